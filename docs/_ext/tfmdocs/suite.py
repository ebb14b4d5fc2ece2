"""What the pages say about the suite, read from the suite: its options, its hypothesis profiles,
the certificate schema (and examples checked against it), and the output of its commands."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from typing import Any, ClassVar

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from . import data as tfm_data
from .rules import _table

logger = logging.getLogger(__name__)


# -- the plugin's command-line options ---------------------------------------------------------


class _Recorder:
    """Stands in for pytest's parser and its option groups."""

    def __init__(self) -> None:
        self.options: list[tuple[tuple[str, ...], dict[str, Any]]] = []

    def getgroup(self, name: str, description: str = "") -> _Recorder:
        return self

    def addoption(self, *names: str, **kwargs: Any) -> None:
        self.options.append((names, kwargs))

    def addini(self, *args: Any, **kwargs: Any) -> None:
        pass


def plugin_options() -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """The options ``conformance.plugin.pytest_addoption`` adds, as it adds them."""
    from conformance import plugin

    recorder = _Recorder()
    plugin.pytest_addoption(recorder)  # type: ignore[arg-type]
    return recorder.options


class OptionsDirective(SphinxDirective):
    """``.. tfm-options::`` — the suite's pytest options, from the plugin itself."""

    def run(self) -> list[nodes.Node]:
        tfm_data.note_generated(self.env)
        rows = []
        for names, kwargs in plugin_options():
            metavar = kwargs.get("metavar")
            flag = ", ".join(names) + (f" {metavar}" if metavar else "")
            help_text = " ".join(str(kwargs.get("help", "")).split())
            rows.append([[nodes.literal(text=flag)], [nodes.Text(help_text)]])
        return [_table([30, 70], ["option", "what it does"], rows, ["tfm-options"])]


# -- hypothesis profiles -------------------------------------------------------------------------


class ProfilesDirective(SphinxDirective):
    """``.. tfm-profiles::`` — the hypothesis settings profiles, with their exact values."""

    def run(self) -> list[nodes.Node]:
        from hypothesis import Phase, settings

        from conformance.session import profiles

        tfm_data.note_generated(self.env)
        profiles.register()
        rows = []
        for name, values in profiles.PROFILES.items():
            loaded = settings.get_profile(name)  # with what it inherits (ci: hypothesis' ci)
            shown = [f"max_examples={loaded.max_examples}", f"derandomize={loaded.derandomize}",
                     f"database={'none' if loaded.database is None else 'on'}",
                     f"deadline={loaded.deadline}", f"print_blob={loaded.print_blob}"]
            for key, value in values.items():
                if key == "suppress_health_check":
                    shown.append("suppress_health_check=[" + ", ".join(
                        v.name for v in value) + "]")  # type: ignore[attr-defined]
                elif key == "phases":
                    names = [phase.name for phase in value]  # type: ignore[attr-defined]
                    every = set(names) == {phase.name for phase in Phase}
                    shown.append("every phase" if every else
                                 "phases=[" + ", ".join(names) + "]: failing scenarios unshrunk")
            rows.append([[nodes.literal(text=name)], [nodes.Text(", ".join(shown))]])
        return [_table([14, 86], ["profile", "settings"], rows, ["tfm-profiles"])]


# -- the certificate ---------------------------------------------------------------------------


def _schema_rows(schema: dict[str, Any], root: dict[str, Any], path: str,
                 rows: list[list[list[nodes.Node]]]) -> None:
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].removeprefix("#/$defs/")]
    kind = schema.get("type")
    shown: list[nodes.Node]
    if "const" in schema:
        shown = [nodes.Text("always "), nodes.literal(text=json.dumps(schema["const"]))]
    elif "enum" in schema:
        shown = [nodes.Text("one of ")]
        for i, value in enumerate(schema["enum"]):
            shown += [nodes.Text(", ")] if i else []
            shown.append(nodes.literal(text=json.dumps(value)))
    else:
        shown = [nodes.Text(" or ".join(kind) if isinstance(kind, list) else (kind or ""))]
    if path:
        rows.append([[nodes.literal(text=path)], shown,
                     [nodes.Text(" ".join(str(schema.get("description", "")).split()))]])
    for key, sub in schema.get("properties", {}).items():
        _schema_rows(sub, root, f"{path}.{key}" if path else key, rows)
    if isinstance(schema.get("additionalProperties"), dict):
        _schema_rows(schema["additionalProperties"], root, f"{path}.<ID>", rows)
    if isinstance(schema.get("items"), dict) and (
            "properties" in schema["items"] or "$ref" in schema["items"]):
        _schema_rows(schema["items"], root, f"{path}[]", rows)


class CertificateSchemaDirective(SphinxDirective):
    """``.. tfm-certificate-schema::`` — every field of ``certificate.json``, from its schema."""

    def run(self) -> list[nodes.Node]:
        from conformance.report.certificate import CERTIFICATE_SCHEMA

        tfm_data.note_generated(self.env)
        rows: list[list[list[nodes.Node]]] = []
        _schema_rows(CERTIFICATE_SCHEMA, CERTIFICATE_SCHEMA, "", rows)
        return [_table([30, 22, 48], ["field", "value", "meaning"], rows, ["tfm-schema"])]


class CertificateExampleDirective(SphinxDirective):
    """A JSON certificate (the content), checked against the schema, shown as a code block."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        from conformance.report.certificate import validate_certificate

        tfm_data.note_generated(self.env)
        text = "\n".join(self.content)
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise self.error(f"the example certificate is not JSON: {exc}") from None
        for problem in validate_certificate(document):
            logger.warning("the example certificate does not follow the schema: %s", problem,
                           location=(self.env.docname, self.lineno), type="tfm",
                           subtype="certificate")
        block = nodes.literal_block(text, text, language="json")
        return [block]


# -- commands, run when the docs are built ------------------------------------------------------


class CommandDirective(SphinxDirective):
    """``.. tfm-command:: spec explain FILE`` — ``python -m ...`` run now, shown with its output.

    The command runs in the repository root with the checkout first on ``PYTHONPATH``.
    ``:returncode: N`` says which exit status is expected (default 0).
    """

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {"returncode": int}

    def run(self) -> list[nodes.Node]:
        data = tfm_data.load(self.env.app)
        tfm_data.note_generated(self.env)
        argv = shlex.split(self.arguments[0])
        env = dict(os.environ, COLUMNS="96", PYTHONHASHSEED="0",
                   PYTHONPATH=os.pathsep.join([str(data.root), os.environ.get("PYTHONPATH", "")]))
        try:
            done = subprocess.run([sys.executable, "-m", *argv], cwd=data.root, env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
        except subprocess.TimeoutExpired:
            raise self.error(f"python -m {self.arguments[0]} did not finish") from None
        expected = self.options.get("returncode", 0)
        if done.returncode != expected:
            raise self.error(f"python -m {self.arguments[0]} exited with {done.returncode} "
                             f"(expected {expected}):\n{done.stderr or done.stdout}")
        output = (done.stdout + done.stderr).rstrip()
        text = f"$ python -m {self.arguments[0]}\n{output}"
        return [nodes.literal_block(text, text, language="console", classes=["tfm-command"])]
