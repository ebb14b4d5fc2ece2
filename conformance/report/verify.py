"""``python -m conformance verify CERT``: make the certificate's run again and compare.

The run is made from a clean environment: a fresh temporary folder (its reports folder, its
working folder, a pytest configuration of its own), the environment without PYTEST_*,
HYPOTHESIS_* and TFMODE_* variables, and the options the certificate records in
``evidence.invocation``. Then the digests (the implementation's files, the suite's, the
specification's, the expected-failures file) and the verdicts, rule by rule, are compared.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..version import PACKAGE_DIR
from .certificate import validate_certificate

__all__ = ["VerifyError", "compare", "load", "rerun_command", "verify"]

#: Environment variables the re-run does not inherit: they change how pytest, hypothesis or
#: the suite run.
STRIPPED = ("PYTEST_", "HYPOTHESIS_", "TFMODE_")


class VerifyError(Exception):
    """The certificate cannot be verified (bad input): one line, exit status 2."""


def load(path: Path) -> dict[str, Any]:
    """The certificate at ``path``, with evidence to verify; VerifyError says why not."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VerifyError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise VerifyError(f"{path}: not a certificate: not UTF-8 text") from None
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise VerifyError(f"{path}: not a certificate: not JSON ({exc})") from None
    if not isinstance(document, dict) or "schema_version" not in document:
        raise VerifyError(f"{path}: not a certificate: no schema_version")
    problems = validate_certificate(document)
    if problems:
        raise VerifyError(f"{path}: not a certificate: {problems[0]}")
    version = document["schema_version"]
    if version < 5 or document.get("evidence") is None:
        raise VerifyError(f"{path}: a certificate of schema {version} without evidence (digests "
                          f"and invocation, schema 5 on): nothing to verify; "
                          "certify again with this suite")
    return document


def rerun_command(invocation: Mapping[str, Any], reports: Path, config: Path,
                  workers: int | None = None) -> list[str]:
    """The pytest command line that makes the recorded run again."""
    command = [sys.executable, "-m", "pytest", "-p", "conformance.plugin", "-p", "no:cacheprovider",
               "-c", str(config), "--rootdir", str(config.parent), "-q",
               "--pyargs", "conformance.suite", f"--impl={invocation['impl']}",
               f"--reports-dir={reports}"]
    if invocation["impl_path"]:
        command.append(f"--impl-path={os.pathsep.join(invocation['impl_path'])}")
    if invocation["certify"]:
        command.append("--certify")
    if invocation["compile"]:
        command.append("--compile")
    options = {"--hypothesis-profile": invocation["hypothesis_profile"],
               "--hypothesis-seed": invocation["seed"], "--rule-timeout": invocation["rule_timeout"],
               "--rules": invocation["rules"], "--exhaustive": invocation.get("exhaustive"),
               "-k": invocation["keyword"] or None,
               "-m": invocation["markexpr"] or None,
               "--expected-failures": invocation["expected_failures"]}
    for option, value in options.items():  # --option=VALUE: a value is never an option
        if value is not None:
            command.append(f"{option}={value}" if option.startswith("--") else f"{option}{value}")
    if workers:
        command += ["-n", str(workers)]
    return command


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(STRIPPED)}
    home = str(PACKAGE_DIR.parent)
    paths = [home, *(p or os.getcwd() for p in sys.path if (p or os.getcwd()))]
    env["PYTHONPATH"] = os.pathsep.join(p for p in dict.fromkeys(paths) if Path(p).is_dir())
    return env


def _package_line(what: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    if old.get("digest") == new.get("digest") and old.get("distribution") == new.get("distribution"):
        return None
    if new.get("digest") is None:
        return f"{what}: the files are gone (the certificate's were at {old.get('location')})"
    where = "" if old.get("location") == new.get("location") else \
        f"; found at {new.get('location')}, the certificate's were at {old.get('location')}"
    if old.get("digest") != new.get("digest"):
        return (f"{what}: the files differ from the certificate's ({old.get('files')} files, "
                f"{str(old.get('digest'))[:19]}; now {new.get('files')} files, "
                f"{str(new.get('digest'))[:19]}){where}")
    return f"{what}: the distribution differs: {old.get('distribution')} then, " \
           f"{new.get('distribution')} now{where}"


def compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Every way the re-run's certificate ``new`` differs from ``old``, one line each
    (empty: they agree)."""
    lines: list[str] = []
    before, after = old["evidence"], new.get("evidence") or {}
    for key, what in (("implementation", "implementation"), ("suite", "suite"),
                      ("spec", "specification")):
        line = _package_line(what, before[key], after.get(key) or {})
        if line is not None:
            lines.append(line)
    if (before["expected_failures"] or {}).get("digest") != \
            (after.get("expected_failures") or {}).get("digest"):
        lines.append("expected failures: the file differs from the certificate's")
    old_rules, new_rules = old["rules"], new["rules"]
    for rule_id in sorted(old_rules.keys() | new_rules.keys()):
        was = old_rules.get(rule_id, {}).get("verdict", "absent")
        now = new_rules.get(rule_id, {}).get("verdict", "absent")
        if was != now:
            lines.append(f"{rule_id}: the certificate says {was}, the re-run says {now}")
    for key, what in (("level", "level"), ("summary", "summary"), ("certify", "certify"),
                      ("implementation", "implementation's declaration")):
        if old[key] != new[key]:
            lines.append(f"{what}: the certificate says {json.dumps(old[key])}, the re-run "
                         f"says {json.dumps(new[key])}")
    for key, what in (("complete", "run complete"), ("problems", "run problems")):
        if old["run"][key] != new["run"][key]:
            lines.append(f"{what}: the certificate says {json.dumps(old['run'][key])}, the "
                         f"re-run says {json.dumps(new['run'][key])}")
    return lines


#: What a failure's message says where a time limit decided it: a scenario the implementation
#: did not answer in time (conformance.sandbox.timing), a test past --rule-timeout.
_TIMED = ("did not answer within", "from pytest-timeout (--rule-timeout)")


def timed_rules(certificate: Mapping[str, Any]) -> list[str]:
    """The rules of ``certificate`` that a time limit failed (any of their failures)."""
    rules = certificate.get("rules")
    return sorted(rule_id for rule_id, entry in (rules.items() if isinstance(rules, dict) else ())
                  if isinstance(entry, dict) and any(
                      isinstance(f, dict) and any(t in str(f.get("message")) for t in _TIMED)
                      for f in entry.get("failures") or ()))


def verify(path: Path, *, workers: int | None = None, timeout: float = 3600.0,
           echo: bool = True) -> tuple[int, list[str]]:
    """Verify the certificate at ``path``: the exit status (0 everything matches, 1 not) and
    the lines said. Raises VerifyError for bad input."""
    old = load(path)
    said: list[str] = []

    def say(line: str) -> None:
        said.append(line)
        if echo:
            print(line, flush=True)

    expected = old["evidence"]["invocation"]["expected_failures"]
    if expected is not None and not Path(expected).is_file():
        say(f"MISMATCH expected failures: {expected} is gone")
        return 1, said
    with tempfile.TemporaryDirectory(prefix="tfmode-verify-") as scratch:
        folder = Path(scratch)
        config = folder / "pytest.ini"
        config.write_text("[pytest]\n", encoding="utf-8")
        command = rerun_command(old["evidence"]["invocation"], folder / "reports", config, workers)
        impl = old["implementation"]
        say(f"verifying {path}: {impl['name']} {impl['version']} made {old['generated_at']}; "
            "making the run again")
        try:
            with subprocess.Popen(command, cwd=folder, env=_environment(), text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  start_new_session=True) as child:
                try:
                    output, _ = child.communicate(timeout=timeout)
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.communicate()
                    say(f"MISMATCH the run did not finish within {timeout:g} s")
                    return 1, said
        except OSError as exc:
            raise VerifyError(f"cannot start the run: {exc.strerror or exc}") from None
        found = folder / "reports" / "certificate.json"
        try:
            new = json.loads(found.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            error = next((line for line in output.splitlines() if line.startswith("ERROR")),
                         f"exit status {child.returncode}")
            say(f"MISMATCH the run wrote no certificate: {error}")
            return 1, said
    lines = compare(old, new)
    for line in lines:
        say(f"MISMATCH {line}")
    if lines:
        say(f"NOT VERIFIED: {len(lines)} difference(s) from the certificate")
        timed = sorted(set(timed_rules(old)) | set(timed_rules(new)))
        if timed:
            say(f"note: a time limit failed {', '.join(timed)} in the certificate or the re-run: "
                "an implementation that hangs or slows down now and then need not do it the "
                "same way twice, so differences in those rules' verdicts, and in the level and "
                "summary that count them, may come from the implementation, not from an "
                "altered certificate")
        return 1, said
    say(f"verified: the same files and the same verdict for each of the {len(new['rules'])} "
        f"rules (level {new['level']['reached']})")
    return 0, said
