"""The end of a conformance run: verdicts, the certificate, the badge and the terminal summary."""

from __future__ import annotations

import contextlib
import os
import traceback
from collections import Counter
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..report.certificate import build_certificate, dumps, spec_version
from ..report.headline import badge, counts, run_line, terminal_lines, unused_scope_lines
from ..report.verdicts import (
    MUST_LEVELS,
    RuleVerdict,
    aggregate,
    level_reached,
    narrow,
    rule_entries,
    summary,
)
from ..sandbox import processes
from ..sandbox.parent import SandboxedImplementation
from ..target import noise
from ..target.compiled import summarise
from ..version import __version__
from .expectations import stale_entries, unused_scope
from .observed import expected_settings, hypothesis_section
from .reportsdir import write_run
from .runstate import PROCESSES_OUTPUT, TAMPERED_OUTPUT, RunState, one_line, state_of
from .selection import Selection

# -- reporting -------------------------------------------------------------------------------


def _header(state: RunState) -> list[str]:
    ad = state.adapter
    assert ad is not None
    spec = spec_version(state.catalogue)
    seed = state.seed or ("derandomized" if state.derandomize else "random")
    source = f"{'TFMODE_IMPL=' if state.origin.startswith('TFMODE_IMPL') else '--impl '}{state.spec}"
    lines = [
        f"tfmode-conformance {__version__}: spec of {spec['rules']} rules "
        f"({spec['digest'][:19]}), certify: {'yes' if state.certify else 'no'}",
        f"implementation: {ad.name} {ad.version} ({source}), generation {ad.generation},"
        f" features: {', '.join(sorted(ad.features)) or 'none'}",
        f"hypothesis: profile {state.profile!r}, seed {seed}",
    ]
    if state.compile:
        lines.append("compile: each scenario runs eagerly and inside torch.compile(backend='eager'); "
                     "the compiled run is judged against the eager one")
    if state.expected_path:
        lines.append(f"expected failures: {state.expected_path} ({len(state.expected)} entries)")
    lines += [f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith("TFMODE_")]
    return lines


def pytest_report_header(config: pytest.Config) -> list[str]:
    state = state_of(config)
    return _header(state) if state.active and state.adapter is not None else []


def _junit_logfile(config: pytest.Config, state: RunState, final: Path | None) -> None:
    """Point pytest's JUnit plugin at the file's final name (its summary line shows it)."""
    if state.junit_tmp is None:
        return
    for plugin in config.pluginmanager.get_plugins():
        if getattr(plugin, "logfile", None) == os.path.normpath(state.junit_tmp.resolve()):
            plugin.logfile = str(final) if final is not None else plugin.logfile


def _discard_junit(state: RunState) -> None:
    """A run that never started (a usage error): leave the reports folder as it was."""
    if state.junit_tmp is None:
        return
    with contextlib.suppress(OSError):
        state.junit_tmp.unlink(missing_ok=True)
        state.reports_dir.rmdir()  # only if the JUnit file was all it held


def _incomplete(session: pytest.Session, state: RunState,
                exitstatus: int | pytest.ExitCode) -> list[str]:
    """Why this run does not account for every selected test (empty: it does)."""
    problems: list[str] = []
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        by = processes.interrupted_by()
        problems.append("the run was interrupted" + (f" by {by}" if by else ""))
    elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:
        problems.append("pytest stopped with an internal error")
    problems += state.lost
    problems += list(dict.fromkeys(state.tampered))
    missing = sorted(state.selected - state.reported)
    if missing:
        problems.append(f"{len(missing)} of {len(state.selected)} selected tests did not report "
                        f"a result (first: {missing[0]})")
    return problems


def _from_junit(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by pytest's JUnit plugin (writing its file)."""
    where = os.path.join("_pytest", "junitxml.py")
    return any(frame.filename.endswith(where) for frame in traceback.extract_tb(exc.__traceback__))


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_sessionfinish(session: pytest.Session,
                         exitstatus: int | pytest.ExitCode) -> Generator[None, None, None]:
    """After every plugin's own end of session (pytest's JUnit file is written): the
    certificate. A JUnit file that could not be written (a full disk) is one line, and its
    half is removed."""
    state = state_of(session.config)
    try:
        result = yield
    except OSError as exc:
        if state.junit_tmp is None or not _from_junit(exc):
            raise
        state.junit_error = one_line(exc)
        with contextlib.suppress(OSError):
            state.junit_tmp.unlink(missing_ok=True)
        result = None
    _finish(session, exitstatus)
    return result


def _finish(session: pytest.Session, exitstatus: int | pytest.ExitCode) -> None:
    config = session.config
    state = state_of(config)
    _end_processes(config, state)
    if (not state.active or state.adapter is None or hasattr(config, "workerinput")
            or config.option.collectonly):
        return
    if exitstatus == pytest.ExitCode.USAGE_ERROR:
        _discard_junit(state)
        return
    ad = state.adapter
    problems = _incomplete(session, state, exitstatus)
    selection = state.selection or Selection(
        reasons=["no pytest-xdist worker reported what it collected"], coverage_unknown=True)
    if not selection.selected and not problems:
        _empty_selection(session, state, selection)
        return
    if state.certify and selection.partial:  # a certification is of the whole suite
        problems.append(f"--certify runs the whole suite, and this run left tests out: "
                        f"{'; '.join(selection.reasons)}")
    verdicts = aggregate(state.catalogue, ad.generation, state.outcomes.values(), state.expected,
                         getattr(ad, "stack_version", None), getattr(ad, "release", None),
                         state.scoped_entries())
    if selection.partial:
        narrow(verdicts, selection.covers)
    level = level_reached(verdicts, ad.features, state.feature_rules)
    if selection.partial:
        level = {"reached": "none", "features": []}
    shield = badge(verdicts, level)
    if problems:
        level = {"reached": "none", "features": []}
        shield = {**shield, "message": "incomplete run", "color": "red"}
    said = {k: v.verdict for k, v in verdicts.items()}
    stale = [] if problems else stale_entries(state.expected, said)
    unused = {} if problems or selection.partial else unused_scope(state.scopes, said,
                                                                   state.scope_used)
    requested = state.requested or expected_settings(state.profile, state.seed)
    hypothesis = hypothesis_section(requested, state.observed)
    certificate = build_certificate(
        catalogue=state.catalogue,
        implementation={"name": ad.name, "version": ad.version, "generation": ad.generation,
                        "features": sorted(ad.features), "release": getattr(ad, "release", None)},
        hypothesis_settings=hypothesis,
        run={"complete": not problems, "selected_tests": len(state.selected),
             "reported_tests": len(state.reported & state.selected), "problems": problems,
             "processes_ended": state.processes_ended,
             "selection": _selection_entry(selection, verdicts),
             **_compile_entry(state), **_exhaustive_entry(state)},
        certify=state.certify, level=level, summary=summary(verdicts),
        rules=rule_entries(verdicts), stale=stale, unused_scope=unused,
        noise_warnings=noise.summary(state.noise),
        evidence=state.evidence, surface=state.surface)
    state.lines = [] if state.early else _header(state)  # the header came too early for it
    if problems:
        state.lines += [f"INCOMPLETE RUN: {p}" for p in problems]
        state.lines.append("INCOMPLETE RUN: this certificate certifies nothing (level none)")
    state.lines += _partial_lines(selection, verdicts)
    if state.processes_ended:
        state.lines.append(f"WARNING: the implementation left {state.processes_ended} "
                           "process(es) running; the run ended them")
    state.lines += _compile_lines(certificate["run"]) + _exhaustive_lines(certificate["run"], state.certify)
    state.lines.append(run_line(certificate["implementation"], verdicts, shield, bool(problems),
                                selection.partial))
    state.lines += terminal_lines(verdicts, level, stale, state.expected_path, ad.features)
    state.lines += unused_scope_lines(unused, state.expected_path)
    state.lines += [f"{'ERROR' if state.certify else 'WARNING'}: hypothesis settings differ: {line}"
                    for line in hypothesis["disagreements"]]
    if state.junit_error is not None:
        state.lines.append(f"ERROR: could not write the JUnit file: {state.junit_error}")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    try:
        written = write_run(state.reports_dir, {"certificate.json": dumps(certificate),
                                                "badge.json": dumps(shield)},
                            None if state.junit_error else state.junit_tmp)
        _junit_logfile(config, state, state.reports_dir / "junit.xml"
                       if state.reports_dir / "junit.xml" in written else None)
        state.lines.append(f"reports: {', '.join(str(p) for p in written)}")
    except OSError as exc:
        state.lines.append(f"ERROR: could not write the conformance reports: {one_line(exc)}")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if problems and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if state.certify:
        _certify_status(session, state, verdicts, problems, len(hypothesis["disagreements"]))


def _end_processes(config: pytest.Config, state: RunState) -> None:
    """End the sandbox's child and every process the implementation started, before anything is
    written (so none can write after the run); count them (a worker tells its controller)."""
    if not state.active:
        return
    tampered = None
    if isinstance(state.adapter, SandboxedImplementation):
        state.adapter.close()
        tampered = state.adapter.sandbox.tampered
    processes.deactivate()
    if hasattr(config, "workerinput"):
        config.workeroutput[PROCESSES_OUTPUT] = processes.ended()  # type: ignore[attr-defined]
        if tampered is not None:
            config.workeroutput[TAMPERED_OUTPUT] = tampered  # type: ignore[attr-defined]
    else:
        state.processes_ended += processes.ended()
        if tampered is not None:
            state.tampered.append(tampered)


def _empty_selection(session: pytest.Session, state: RunState, selection: Selection) -> None:
    """Nothing of the suite is left to run: a usage error, and no report is written."""
    if selection.collected:
        what = (f"the selection leaves none of the suite's {selection.collected} tests to run "
                f"({'; '.join(selection.reasons)})")
    else:
        what = "no test of the conformance suite was collected (run: pytest --pyargs conformance.suite)"
    state.lines = [f"ERROR: {what}: nothing was certified and no report was written"]
    _discard_junit(state)
    session.exitstatus = pytest.ExitCode.USAGE_ERROR


def _compile_entry(state: RunState) -> dict[str, Any]:
    """``{"compile": ...}`` under --compile (the tests' tallies added up), else nothing."""
    if not state.compile:
        return {}
    tallies = [o.compilation for o in state.outcomes.values() if o.compilation is not None]
    return {"compile": summarise(tallies)}


def _exhaustive_entry(state: RunState) -> dict[str, Any]:
    """``{"exhaustive": ...}`` when the run had an exhaustive scope (its chunks' tallies added
    up; null when no chunk reported, e.g. a selection without them), else nothing."""
    if state.exhaustive is None:
        return {}
    from ..exhaustive.report import add_up_chunks

    tallies = [o.exhaustive for o in state.outcomes.values() if o.exhaustive is not None]
    entry = add_up_chunks(tallies)
    if entry is None:
        entry = {"scope": state.exhaustive.name, "bounds": state.exhaustive.describe(),
                 "scenarios": 0, "unspecified": 0, "complete": False, "seconds": 0.0,
                 "scenarios_per_second": 0}
    return {"exhaustive": entry}


def _exhaustive_lines(run: dict[str, Any], certify: bool) -> list[str]:
    entry = run.get("exhaustive")
    if entry is None:
        return ["exhaustive scope: none (this certification checked no bounded scope whole: "
                "--exhaustive none)"] if certify else []
    whole = "" if entry["complete"] else " (NOT enumerated whole)"
    return [f"exhaustive scope {entry['scope']} ({entry['bounds']}): {entry['scenarios']} scenarios "
            f"checked{whole}, {entry['unspecified']} of them unspecified; {entry['seconds']:g} s "
            f"of the workers' time, {entry['scenarios_per_second']} scenarios per second"]


def _compile_lines(run: dict[str, Any]) -> list[str]:
    entry = run.get("compile")
    if entry is None:
        return []
    return [f"torch.compile(backend={entry['backend']!r}): {entry['scenarios']} scenarios run "
            f"both ways, {entry['fullgraph']} traced whole ({entry['fullgraph_fraction']:.1%}), "
            f"{entry['graph_broken']} with graph breaks, {entry['not_compiled']} not compiled, "
            f"{entry['dynamo_errors']} ended in a Dynamo error; "
            f"{entry['scenarios_per_minute']:g} scenarios per minute per worker"]


def _selection_entry(selection: Selection, verdicts: dict[str, RuleVerdict]) -> dict[str, Any]:
    covered = None
    if selection.partial:
        covered = [k for k, v in verdicts.items()
                   if v.verdict not in ("not_selected", "not_applicable")]
    return {"partial": selection.partial, "reasons": list(selection.reasons),
            "rules_option": selection.rules, "covered_rules": covered}


def _partial_lines(selection: Selection, verdicts: dict[str, RuleVerdict]) -> list[str]:
    if not selection.partial:
        return []
    lines = [f"PARTIAL RUN: {reason}" for reason in selection.reasons]
    left = sum(v.verdict == "not_selected" for v in verdicts.values())
    covered = len(_selection_entry(selection, verdicts)["covered_rules"] or ())
    lines.append(f"PARTIAL RUN: {covered} applicable rules have every test they need in this "
                 f"run; {left} are not_selected; a partial run certifies nothing (level none)")
    return lines


def _certify_status(session: pytest.Session, state: RunState, verdicts: dict[str, RuleVerdict],
                    problems: list[str], unsettled: int) -> None:
    """A certification passes only on a complete run of the whole suite (a partial one is
    incomplete: see the problems) in which every MUST rule passes."""
    bad = [k for k, v in verdicts.items()
           if v.rule.level in MUST_LEVELS
           and v.verdict in ("fail", "expected_failure", "untested", "not_compiled")]
    if problems:
        state.lines.append("certification FAILED: the run is incomplete")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    if not bad and not unsettled:
        state.lines.append("certification: every MUST rule passes")
        return
    if bad:
        c = counts(verdicts)
        uncompiled = sum(verdicts[k].verdict == "not_compiled" for k in bad)
        state.lines.append(
            f"certification FAILED: {len(bad)} MUST rule(s) not met ({c.unexpected} failing "
            f"unexpectedly, {c.expected} expected failure(s), {c.untested} untested"
            + (f", {uncompiled} not compiled" if uncompiled else "")
            + "); a certification counts an expected failure of a MUST rule as not met")
    if unsettled:
        state.lines.append(f"certification FAILED: tests ran with other hypothesis settings than "
                           f"profile {state.profile!r} ({unsettled} kind(s), listed above)")
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            exitstatus: int | pytest.ExitCode, config: pytest.Config) -> None:
    state = state_of(config)
    if not state.lines:
        return
    terminalreporter.write_sep("=", "tfmode conformance")
    for line in [*state.lines, *skip_lines(terminalreporter.stats.get("skipped", []))]:
        terminalreporter.write_line(line, yellow=line.startswith("WARNING"),
                                    red=line.startswith(("ERROR", "certification FAILED",
                                                         "INCOMPLETE", "PARTIAL")))


def skip_lines(reports: Sequence[Any], shown: int = 4) -> list[str]:
    """Why the skipped tests were skipped, grouped by reason, most common first (a skip is
    never a failure: a test that does not apply, or judged nothing under --compile)."""
    reasons: Counter[str] = Counter()
    for report in reports:
        longrepr = getattr(report, "longrepr", None)
        text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reasons[str(text).removeprefix("Skipped: ")] += 1
    if not reasons:
        return []
    total = sum(reasons.values())
    lines = [f"skipped {total} test(s), none a failure (pytest -rs lists each):"]
    lines += [f"  {n} {reason}" for reason, n in reasons.most_common(shown)]
    if len(reasons) > shown:
        rest = sum(n for _, n in reasons.most_common()[shown:])
        lines.append(f"  {rest} for {len(reasons) - shown} other reason(s)")
    return lines
