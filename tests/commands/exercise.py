"""Exercising a registry entry in a workspace, and what went wrong if anything did.

Each function returns a list of problems (empty: the entry holds); a problem is a readable
paragraph with the command, its exit status and the end of its output.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
from pathlib import Path
from typing import Any

from conformance.report.headline import from_certificate

from .registry import VERDICTS, Entry
from .toxini import ToxIni, parse_tox_command
from .workspace import Done, Workspace, python_argv

CERTIFICATE = Path("reports", "certificate.json")


def doc_file(root: Path, name: str, source: str) -> str:
    """The literal block of ``source`` (a page) whose first line is ``# name``."""
    lines = (root / source).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"# {name}":
            indent = len(line) - len(line.lstrip())
            block = [line]
            for following in lines[i + 1:]:
                if following.strip() and len(following) - len(following.lstrip()) < indent:
                    break
                block.append(following)
            return "\n".join(x[indent:] for x in block).strip() + "\n"
    raise AssertionError(f"{source} shows no block starting with '# {name}'")


def _files(entry: Entry, ws: Workspace) -> None:
    for name, content in entry.files.items():
        text = doc_file(ws.root, name, content[4:]) if content.startswith("doc:") else content
        (ws.root / name).write_text(text, encoding="utf-8")


def expect(entry: Entry, done: Done, status: int | None = None) -> list[str]:
    """The exit status and the output the entry states (for [ci], those of its check)."""
    wanted = entry.status if status is None else status
    problems = []
    if done.status != wanted:
        problems.append(f"expected exit status {wanted}:\n{done.describe()}")
    elif entry.output and not re.search(entry.output, done.output, re.M):
        problems.append(f"the output has no match for {entry.output!r}:\n{done.describe()}")
    return problems


def certificate_problems(expected: dict[str, Any], certificate: dict[str, Any]) -> list[str]:
    """Where the certificate differs from what the registry states about it."""
    found: dict[str, Any] = {
        "complete": certificate["run"]["complete"], "level": certificate["level"]["reached"],
        "implementation": certificate["implementation"]["name"], "certify": certificate["certify"],
        "stale": certificate["stale_expected_failures"],
        "verdicts": {rule: certificate["rules"][rule]["verdict"]
                     for rule in expected.get("verdicts", {}) if rule in certificate["rules"]},
        **{verdict: certificate["summary"][verdict] for verdict in VERDICTS}}
    return [f"certificate {key}: expected {value!r}, found {found[key]!r}"
            for key, value in expected.items() if found[key] != value]


def _tox_runs(entry: Entry, ws: Workspace, extra: tuple[str, ...], collect: bool) -> list[Done]:
    """Run what ``tox -e ENV -- ARGS EXTRA`` would run, stopping at the first failing command
    as tox does; with ``collect``, only its pytest commands, with ``--co -q``."""
    tox = parse_tox_command(entry.command)
    ini = ToxIni(ws.root / "tox.ini")
    runs: list[Done] = []
    for env in tox.envs:
        for argv in ini.commands(env, tox.posargs + extra):
            if collect and argv[0] != "pytest":
                continue
            argv = python_argv(argv) + (["--co", "-q"] if collect else [])
            runs.append(ws.argv(argv, entry.timeout, {**ini.set_env(env), **tox.variables}))
            if runs[-1].status != 0:
                return runs
    return runs


def _run(entry: Entry, ws: Workspace, collect: bool) -> tuple[list[str], Done]:
    extra = tuple(shlex.split(entry.shorter or ""))
    problems: list[str] = []
    if entry.shorter and collect:  # the shown command is too long to run: collect it in full
        if entry.kind == "equivalent":
            collected = _tox_runs(entry, ws, (), collect=True)
        elif re.match(r"^(python -m )?pytest\s", entry.command):
            collected = [ws.shell(f"{entry.command} --co -q", entry.timeout)]
        else:
            collected = []
        problems += [f"collecting the shown command failed:\n{d.describe()}"
                     for d in collected if d.status != 0]
    if entry.kind == "equivalent":
        runs = _tox_runs(entry, ws, extra, collect=False)
        done = Done("\n".join(d.command for d in runs), runs[-1].status if runs else 0,
                    "".join(d.output for d in runs), sum(d.seconds for d in runs))
    else:
        done = ws.shell(" ".join([entry.command, *([entry.shorter] if entry.shorter else [])]),
                        entry.timeout)
    return problems + judge(entry, ws, done), done


def _reports_agree(ws: Workspace, done: Done, certificate: dict[str, Any]) -> list[str]:
    """The line naming the implementation that the run printed and the badge it wrote are
    what its certificate says (conformance.report.headline.from_certificate)."""
    line, shield = from_certificate(certificate)
    problems = []
    if not re.search(rf"^{re.escape(line)}$", done.output, re.M):
        problems.append(f"the output has no line {line!r}, which its certificate says:\n"
                        f"{done.describe(10)}")
    badge = ws.root / CERTIFICATE.with_name("badge.json")
    written = json.loads(badge.read_text(encoding="utf-8")) if badge.is_file() else None
    if written != shield:
        problems.append(f"badge.json is {written!r}; its certificate says {shield!r}")
    return problems


def judge(entry: Entry, ws: Workspace, done: Done) -> list[str]:
    """Whether the run ``done`` of ``entry`` in ``ws`` did what the entry states: its exit
    status and output, the files it writes, its certificate; and where it wrote a certificate,
    that its terminal line and badge agree with it."""
    problems = expect(entry, done)
    for path in entry.writes:
        if not (ws.root / path).is_file() or not (ws.root / path).stat().st_size:
            problems.append(f"{path} was not written:\n{done.describe()}")
    if entry.certificate:
        if not (ws.root / CERTIFICATE).is_file():
            problems.append(f"no {CERTIFICATE} was written:\n{done.describe()}")
        else:
            certificate = json.loads((ws.root / CERTIFICATE).read_text(encoding="utf-8"))
            problems += [f"{p}\n{done.describe(10)}"
                         for p in certificate_problems(entry.certificate, certificate)]
            problems += _reports_agree(ws, done, certificate)
            shield = ws.root / CERTIFICATE.with_name("badge.json")
            if entry.badge and shield.is_file():
                message = json.loads(shield.read_text(encoding="utf-8")).get("message")
                if message != entry.badge:
                    problems.append(f"badge.json says {message!r}, not {entry.badge!r}")
    return problems


def exercise(entry: Entry, ws: Workspace, collect: bool = True) -> list[str]:
    """Run a [run], [equivalent] or [named] entry in ``ws`` and check what it states (a shorter
    run's shown command is collected in full unless ``collect`` is false)."""
    return exercise_run(entry, ws, collect)[0]


def exercise_run(entry: Entry, ws: Workspace, collect: bool = True) -> tuple[list[str], Done | None]:
    """:func:`exercise`, and the entry's own run (None where it was not run)."""
    if entry.kind == "named":
        return [f"{entry.label()}: {problem}" for problem in
                expect(entry, ws.shell(f"{entry.command} --help", entry.timeout))], None
    _files(entry, ws)
    for path in (*entry.writes, *([str(CERTIFICATE)] if entry.certificate else [])):
        (ws.root / path).unlink(missing_ok=True)  # an earlier run's file proves nothing
    for command in entry.before:
        done = ws.shell(command, entry.timeout)
        if done.status is None:
            return [f"a command run before it timed out:\n{done.describe()}"], None
    problems, done = _run(entry, ws, collect)
    return [f"{entry.label()}: {problem}" for problem in problems], done


def check_ci(entry: Entry, ws: Workspace) -> list[str]:
    """What can be checked of a command that is not run here (see registry.toml's header)."""
    problems: list[str] = []
    ini = ToxIni(ws.root / "tox.ini")
    ci_script = (ws.root / ".ci" / "run").read_text(encoding="utf-8")
    is_tox = re.match(r"^(?:[A-Z][A-Z0-9_]*=\S*\s+)*tox(\s|$)", entry.shown) is not None
    if is_tox:
        tox = parse_tox_command(entry.command)
        envs = tox.envs or tuple(ini.env_list())
        for env in envs:
            if not ini.has_env(env):
                problems.append(f"tox.ini has no env {env!r}")
                continue
            commands = ini.commands(env, tox.posargs)
            if not commands:
                problems.append(f"tox env {env!r} runs no command")
            for argv in commands:  # the test files and expected-failures files it reads
                problems += [f"tox env {env!r} names {word}, which does not exist"
                             for word in argv if word.startswith(str(ws.root))
                             and word.endswith((".py", ".toml")) and not Path(word).exists()]
            if tox.posargs and not ini.takes_posargs(env):
                problems.append(f"tox env {env!r} ignores the arguments after --")
            problems += [f"tox does not pass {name} to env {env!r} (pass_env)" for name in tox.variables
                         if not any(fnmatch.fnmatchcase(name, p) for p in ini.pass_env(env))]
        if tox.posargs:
            done = ws.shell(f"python -m pytest --pyargs conformance.suite "
                            f"{shlex.join(tox.posargs)} --co -q", entry.timeout)
            if done.status != 0:
                problems.append(f"the suite's options refuse the arguments:\n{done.describe()}")
        if entry.ci_run:
            problems += [f"{env!r} is not in tox's env_list, which .ci/run runs"
                         for env in envs if env not in ini.env_list()]
            wanted = "python -m tox p" if tox.parallel else "python -m tox"
            if not any(line.split("#")[0].strip().startswith(wanted)
                       for line in ci_script.splitlines()):
                problems.append(f".ci/run does not run {wanted!r}")
    elif entry.ci_run and not any(all(word in line for word in entry.command.split())
                                  for line in ci_script.splitlines()):
        problems.append(f".ci/run has no line with every word of {entry.command!r}")
    if entry.check:
        problems += expect(entry, ws.shell(entry.check, entry.timeout))
    return [f"{entry.label()}: {problem}" for problem in problems]

