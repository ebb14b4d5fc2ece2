"""``.. tfm-compiled:: FILE CERTIFICATE`` — the divergences of torch.compile from eager torch.

Renders, from the committed expected-failures file of a compiled run and its certificate, how
much Dynamo traced (``run.compile``) and one entry per divergence: the rule, the reason, where
it is seen and links to its root causes, whose repros (docs/compiled-causes.rst) reproduce it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

from . import data as tfm_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib


def _plain(text: str) -> str:
    """``text`` as reStructuredText that shows it as it is (a reason is plain text)."""
    return "".join(f"\\{c}" if c in "\\`*_|[]<>" else c for c in text)


def _fraction_lines(entry: dict[str, Any]) -> list[str]:
    return [
        f"Of the {entry['scenarios']} scenarios the certifying run made both ways (the explicit "
        f"examples and the generated sweep), Dynamo traced **{entry['fullgraph']} whole** with "
        f"``fullgraph=True`` (**{entry['fullgraph_fraction']:.1%}**), {entry['graph_broken']} "
        f"with graph breaks ({entry['graph_breaks']} breaks in all), and compiled nothing of "
        f"{entry['not_compiled']}; {entry['dynamo_errors']} ended in an error of Dynamo's own. "
        + (f"Added up over the scenarios, {entry['frames_compiled']} frame(s) ran a graph in "
           f"the call's thread and {entry['frames_fell_back']} were converted by Dynamo and ran "
           "as eager code without a graph. " if "frames_compiled" in entry else "") +
        f"Each worker checked {entry['scenarios_per_minute']:g} scenarios per minute, both "
        f"ways (backend ``{entry['backend']}``).",
        "",
    ]


class CompiledDivergencesDirective(SphinxDirective):
    required_arguments = 2

    def run(self) -> list[nodes.Node]:
        root = tfm_data.load(self.env.app).root
        toml_path, cert_path = root / self.arguments[0], root / self.arguments[1]
        tfm_data.note_generated(self.env)  # re-read every build: the certificate may appear
        self.env.note_dependency(str(toml_path))
        entries = tomllib.loads(toml_path.read_text(encoding="utf-8"))
        catalogue = tfm_data.load(self.env.app).catalogue
        if cert_path.is_file():
            certificate = json.loads(Path(cert_path).read_text(encoding="utf-8"))
            lines: list[str] = _fraction_lines(certificate["run"]["compile"])
        else:
            lines = [f"No certificate of a compiled run is committed yet (``{self.arguments[1]}``): "
                     "the fraction of scenarios traced without a graph break is in the "
                     "certificate ``tox -e conformance-compile`` writes (``run.compile``).", ""]
        for rule_id, entry in entries.items():
            rule = catalogue.by_id(rule_id)
            lines += [f".. rubric:: {rule_id}: {rule.title}", "",
                      f"Breaks :rule:`{rule_id}` ({rule.level}) under ``torch.compile``. "
                      + _plain(" ".join(str(entry["reason"]).split())), ""]
            if entry.get("functions"):
                lines += ["Seen in the dispatch of: "
                          + ", ".join(f"``{f}``" for f in entry["functions"]) + ".", ""]
            causes = [str(name) for name in entry.get("causes", [])]
            lines += ["Reproduced by the plain-torch repro of its root cause"
                      + ("s" if len(causes) > 1 else "") + ": "
                      + ", ".join(f":ref:`{name} <cause-{name}>`" for name in causes) + ".", ""]
        container = nodes.container(classes=["tfm-compiled"])
        self.state.nested_parse(StringList(lines, str(toml_path)), self.content_offset, container)
        return list(container.children)
