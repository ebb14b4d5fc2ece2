"""Certify from Python: :func:`certify` runs the suite on an implementation and returns its
:class:`Certificate`; :func:`load_certificate` reads one a run wrote.

The suite runs in a child process (``python -m pytest --pyargs conformance.suite``), exactly as
on the command line: the caller's own pytest session, settings and state are untouched, and an
implementation that crashes or hangs cannot take the caller with it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..version import PACKAGE_DIR
from .certificate import validate_certificate

__all__ = ["Certificate", "CertifyError", "FailureReport", "RuleResult", "certify",
           "load_certificate"]


class CertifyError(RuntimeError):
    """The run could not certify anything: bad arguments, an implementation that does not load,
    a run that did not finish. The message is one line."""


@dataclass(frozen=True)
class FailureReport:
    """One failing test of a rule: its message, and the scenario and snippet that reproduce it."""

    rule: str
    test: str
    message: str
    scenario: Any = None
    snippet: str | None = None


@dataclass(frozen=True)
class RuleResult:
    """One rule's verdict: ``pass``, ``fail``, ``expected_failure``, ``not_applicable``,
    ``untested`` or ``not_selected``."""

    id: str
    level: str
    title: str
    verdict: str
    tests: tuple[str, ...]
    failures: tuple[FailureReport, ...]


@dataclass(frozen=True)
class Certificate:
    """A conformance run's certificate (the ``certificate.json`` it wrote), with accessors."""

    document: dict[str, Any]
    #: where the certificate was read from (None: a temporary folder, since removed)
    path: Path | None = None
    #: the run's terminal output (empty for a loaded certificate)
    output: str = ""

    @property
    def implementation(self) -> str:
        impl = self.document["implementation"]
        return f"{impl['name']} {impl['version']} (generation {impl['generation']})"

    @property
    def rules(self) -> dict[str, RuleResult]:
        out: dict[str, RuleResult] = {}
        for rule_id, entry in self.document["rules"].items():
            failures = tuple(FailureReport(rule_id, f["test"], f["message"], f.get("scenario"),
                                           f.get("snippet")) for f in entry["failures"])
            out[rule_id] = RuleResult(rule_id, entry["level"], entry["title"], entry["verdict"],
                                      tuple(entry["tests"]), failures)
        return out

    @property
    def verdicts(self) -> dict[str, str]:
        """``{rule ID: verdict}`` for every rule of the catalogue."""
        return {k: str(v["verdict"]) for k, v in self.document["rules"].items()}

    @property
    def complete(self) -> bool:
        """Every selected test ran to its end and reported."""
        return bool(self.document["run"]["complete"])

    @property
    def partial(self) -> bool:
        """The run left out tests (``rules=``, ``-k``, ...): it certifies nothing."""
        return bool(self.document["run"].get("selection", {}).get("partial", False))

    @property
    def level(self) -> str:
        """``none``, ``MUST`` or ``SHOULD`` (always ``none`` for a partial or incomplete run)."""
        return str(self.document["level"]["reached"])

    @property
    def failures(self) -> list[FailureReport]:
        """Every failure of a rule that failed (expected failures excluded), rule by rule."""
        return [f for r in self.rules.values() if r.verdict == "fail" for f in r.failures]

    @property
    def passed(self) -> bool:
        """The run is complete, no rule failed (expected failures aside), no MUST rule it
        selected went untested, and it gave at least one rule a verdict."""
        rules = self.rules.values()
        must_untested = any(r.verdict == "untested" and r.level.startswith("MUST") for r in rules)
        decided = any(r.verdict in ("pass", "expected_failure") for r in rules)
        return self.complete and decided and not must_untested and not self.failures

    def explain(self) -> str:
        """A report to read: the outcome, then each failing rule's first failure in full."""
        summary = ", ".join(f"{k} {v}" for k, v in self.document["summary"].items() if v)
        lines = [f"{self.implementation}: {'passed' if self.passed else 'FAILED'} "
                 f"({summary}; level {self.level}{', partial run' if self.partial else ''})"]
        lines += [f"incomplete run: {p}" for p in self.document["run"]["problems"]]
        for rule in self.rules.values():
            if rule.verdict != "fail" or not rule.failures:
                continue
            first = rule.failures[0]
            lines += ["", f"{rule.id} [{rule.level}] {rule.title}: {len(rule.failures)} failing "
                          f"test(s), first {first.test}", first.message]
            if first.snippet:
                lines += ["reproduce with:", first.snippet]
        return "\n".join(lines)


def load_certificate(path: str | os.PathLike[str]) -> Certificate:
    """Read a ``certificate.json``; a file that is not one raises :class:`CertifyError`."""
    where = Path(path)
    try:
        document = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CertifyError(f"{where}: not a readable certificate: {exc}") from None
    problems = validate_certificate(document)
    if problems:
        raise CertifyError(f"{where}: not a certificate: {problems[0]}")
    return Certificate(document, where)


def certify(impl: str, *, profile: str = "ci", rules: str | Sequence[str] | None = None,
            expected_failures: str | os.PathLike[str] | None = None,
            impl_path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
            seed: int | None = None, reports_dir: str | os.PathLike[str] | None = None,
            rule_timeout: float | None = None, timeout: float = 3600.0,
            exhaustive: str | None = None, pytest_args: Sequence[str] = ()) -> Certificate:
    """Run the conformance suite on ``impl`` (``MODULE`` or ``pkg.mod:Adapter``) and return
    its certificate.

    ``profile`` is a hypothesis profile of the suite (``dev``, ``ci``, ``certify``,
    ``thorough``); ``certify`` makes a formal run (as ``--certify``). ``rules`` runs only
    the tests of some rules (``"TFM_ORDER_*"``, ``["ORDER", "TFM_TYPES_001"]``): a partial
    run. ``impl_path`` adds folders to import the implementation from; the caller's
    ``sys.path`` is passed on too, so whatever the caller can import, the run can.
    ``reports_dir`` keeps the reports (default: a temporary folder, removed afterwards).
    ``timeout`` bounds the whole run; ``rule_timeout`` each test. ``exhaustive`` checks every
    scenario of a bounded scope too (``"default"``, ``"large"`` or bounds, as
    ``--exhaustive``); a certification checks the default scope unless given another.
    Raises :class:`CertifyError` when nothing could be certified.
    """
    args = ["--pyargs", "conformance.suite", "--impl", impl, "--hypothesis-profile", profile]
    if profile == "certify":
        args.append("--certify")
    if rules is not None:
        args += ["--rules", rules if isinstance(rules, str) else ",".join(rules)]
    if expected_failures is not None:
        args += ["--expected-failures", str(Path(expected_failures).resolve())]
    if impl_path is not None:
        paths = [impl_path] if isinstance(impl_path, (str, os.PathLike)) else list(impl_path)
        args += ["--impl-path", os.pathsep.join(str(Path(p).resolve()) for p in paths)]
    if seed is not None:
        args += ["--hypothesis-seed", str(seed)]
    if rule_timeout is not None:
        args += ["--rule-timeout", str(rule_timeout)]
    if exhaustive is not None:
        args += ["--exhaustive", exhaustive]
    with tempfile.TemporaryDirectory(prefix="tfmode-certify-") as scratch:
        reports = Path(reports_dir).resolve() if reports_dir is not None else Path(scratch, "reports")
        output = _run([*args, "--reports-dir", str(reports), *pytest_args], Path(scratch), timeout)
        found = reports / "certificate.json"
        if not found.is_file():
            raise CertifyError(_first_error(output) or "the run wrote no certificate")
        loaded = load_certificate(found)
        return Certificate(loaded.document, found if reports_dir is not None else None, output)


def _run(args: list[str], scratch: Path, timeout: float) -> str:
    """Run pytest on the suite in a fresh process, in ``scratch`` (no user configuration
    applies), the caller's imports reachable; its combined output."""
    (scratch / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    home = str(PACKAGE_DIR.parent)
    paths = [home, *(p for p in sys.path if p and Path(p).is_dir())]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TFMODE_", "PYTEST_ADDOPTS", "PYTEST_PLUGINS"))}
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    command = [sys.executable, "-m", "pytest", "-p", "conformance.plugin", "-p", "no:cacheprovider",
               "-c", str(scratch / "pytest.ini"), "--rootdir", str(scratch), "-q", *args]
    with subprocess.Popen(command, cwd=scratch, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, start_new_session=True) as child:
        try:
            output, _ = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            raise CertifyError(f"the conformance run did not finish within {timeout:g} s") from None
    return output


def _first_error(output: str) -> str | None:
    for line in output.splitlines():
        if line.startswith("ERROR: ") and "usage:" not in line:
            return line.removeprefix("ERROR: ")
    for line in output.splitlines():
        if line.startswith(("ERROR:", "E ")):
            return line
    return None
