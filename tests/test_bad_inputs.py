"""Every bad input gets one clear line and a non-zero status, and nothing is written.

Each row runs a real command line in a subprocess from a folder of its own, as a user would:
the suite (``python -m pytest --pyargs conformance.suite ...``), ``python -m spec explain`` or
``python -m conformance``. The folder starts with a previous run's reports in ``reports/``;
after the command it must hold exactly what it held before. Fixture modules (implementations
that misbehave) live in another folder, put on PYTHONPATH. The rows run concurrently.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

MODULES = {
    "notns.py": "x = 1\n",
    "boom.py": "raise RuntimeError('kaput')\n",
    "exits.py": "import sys\nsys.exit(3)\n",
    "exitad.py": "import sys\n\ndef make():\n    sys.exit('the adapter refuses')\n",
    "badad.py": "def make():\n    raise ValueError('no adapter today')\n",
    "syntaxerr.py": "def broken(:\n    pass\n",
}
#: Files in the folder each command runs in (beside reports/).
FILES: dict[str, bytes] = {
    "taken": b"a file where the reports folder would go\n",
    "malformed.toml": b"[[[ not toml\n",
    "unknown_rule.toml": b'[TFM_NOPE_001]\nreason = "no such rule"\n',
    "modes5.toml": b'generation = "2022"\nmodes = 5\n',
    "latin1.toml": b'generation = "2022"\ntitle = "caf\xe9"\n',
}
PREVIOUS = {"reports/certificate.json": b'{"previous": true}\n', "reports/badge.json": b"{}\n"}


@dataclass(frozen=True)
class Row:
    """A command line (``tool`` and its arguments), its environment, and what the error says."""

    tool: str  # "suite", "spec" or "conformance"
    args: tuple[str, ...]
    says: str
    env: dict[str, str] = field(default_factory=dict)


SUITE = ("--impl", "reference_impl")
ROWS: dict[str, Row] = {
    "missing module": Row("suite", ("--impl", "no_such_module_xyz"),
                          "--impl 'no_such_module_xyz': no module named 'no_such_module_xyz' "
                          "(not installed? --impl-path DIR, TFMODE_IMPL_PATH=DIR or certify(impl_path=DIR) "
                          "imports it from the folder DIR that holds it)"),
    "nothing after the colon": Row("suite", ("--impl", "reference_impl:"),
                                   "--impl 'reference_impl:': nothing after ':'"),
    "import error": Row("suite", ("--impl", "boom"),
                        "--impl 'boom': importing boom raised RuntimeError: kaput"),
    "syntax error": Row("suite", ("--impl", "syntaxerr"), "importing syntaxerr raised SyntaxError"),
    "sys.exit at import": Row("suite", ("--impl", "exits"),
                              "--impl 'exits': importing exits raised SystemExit: 3"),
    "sys.exit in the adapter": Row("suite", ("--impl", "exitad:make"),
                                   "constructing the adapter raised SystemExit: the adapter refuses"),
    "not a namespace": Row("suite", ("--impl", "notns"), "notns is not a torch-like namespace"),
    "missing attribute": Row("suite", ("--impl", "notns:Nope"), "notns has no attribute 'Nope'"),
    "factory raises": Row("suite", ("--impl", "badad:make"),
                          "constructing the adapter raised ValueError: no adapter today"),
    "empty --impl": Row("suite", ("--impl", ""), "--impl is empty"),
    "TFMODE_IMPL": Row("suite", (), "TFMODE_IMPL='junk': no module named 'junk'",
                       {"TFMODE_IMPL": "junk"}),
    "reports dir is a file": Row("suite", (*SUITE, "--reports-dir", "taken"),
                                 "--reports-dir 'taken': not a folder for the reports: it is a file"),
    "reports dir under a file": Row("suite", (*SUITE, "--reports-dir", "taken/sub"),
                                    "--reports-dir 'taken/sub': not a folder for the reports: "
                                    "it lies under the file"),
    "TFMODE_REPORTS is a file": Row("suite", SUITE, "TFMODE_REPORTS='taken': not a folder",
                                    {"TFMODE_REPORTS": "taken"}),
    "negative timeout": Row("suite", (*SUITE, "--rule-timeout", "-1"),
                            "--rule-timeout must be a number of seconds, at least 1 (got '-1')"),
    "zero timeout": Row("suite", (*SUITE, "--rule-timeout=0"), "--rule-timeout must be"),
    "missing expected failures": Row("suite", (*SUITE, "--expected-failures", "nope.toml"),
                                     "nope.toml: cannot read the expected-failures file"),
    "malformed expected failures": Row("suite", (*SUITE, "--expected-failures", "malformed.toml"),
                                       "malformed.toml: invalid TOML"),
    "unknown rule in expected failures": Row("suite", (*SUITE, "--expected-failures",
                                                       "unknown_rule.toml"),
                                             "unknown rule ID 'TFM_NOPE_001'"),
    "unknown profile": Row("suite", (*SUITE, "--hypothesis-profile", "nope"),
                           "--hypothesis-profile: no hypothesis profile named 'nope' (the suite's: "
                           "dev, triage, ci, certify, thorough)"),
    "unknown profile in the environment": Row("suite", SUITE, "TFMODE_PROFILE: no hypothesis "
                                              "profile named 'nope'", {"TFMODE_PROFILE": "nope"}),
    "explain modes = 5": Row("spec", ("explain", "modes5.toml"), "modes must be an array, got int"),
    "explain non-UTF-8": Row("spec", ("explain", "latin1.toml"), "latin1.toml: not UTF-8 text"),
    "explain missing file": Row("spec", ("explain", "nope.toml"), "nope.toml: cannot read"),
    "diff with one --impl": Row("conformance", ("diff", "--impl", "reference_impl"),
                                "diff needs --impl exactly twice (got 1)"),
    "diff with sys.exit": Row("conformance", ("diff", "--impl", "reference_impl", "--impl", "exits"),
                              "importing exits raised SystemExit: 3"),
    "snippet non-UTF-8": Row("conformance", ("snippet", "latin1.toml"), "not UTF-8 text"),
}


def command(row: Row) -> list[str]:
    if row.tool == "suite":
        return [sys.executable, "-m", "pytest", "--pyargs", "conformance.suite",
                "-p", "no:cacheprovider", *row.args]
    return [sys.executable, "-m", row.tool, *row.args]


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder`` with its content (None for a folder)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@dataclass(frozen=True)
class Result:
    returncode: int
    output: str
    before: dict[str, bytes | None]
    after: dict[str, bytes | None]


def execute(row: Row, cwd: Path, modules: Path) -> Result:
    for name, content in {**FILES, **PREVIOUS}.items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_bytes(content)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TFMODE_", "HYPOTHESIS_", "PYTEST_")) and k != "CI"}
    env.update(PYTHONPATH=str(modules), PYTHONDONTWRITEBYTECODE="1", **row.env)
    before = snapshot(cwd)
    done = subprocess.run(command(row), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    return Result(done.returncode, done.stdout + done.stderr, before, snapshot(cwd))


@pytest.fixture(scope="module")
def results(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Result]]:
    """Every row started at once, each test waiting for its own; under pytest-xdist, whose
    workers already run rows side by side, a row starts when its test asks for it."""
    modules = tmp_path_factory.mktemp("modules")
    for name, text in MODULES.items():
        (modules / name).write_text(text, encoding="utf-8")
    workers = 1 if hasattr(request.config, "workerinput") else os.cpu_count() or 2
    futures: dict[str, Future[Result]] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:

        def result(name: str) -> Result:
            if name not in futures:
                futures[name] = pool.submit(execute, ROWS[name], tmp_path_factory.mktemp("cwd"),
                                            modules)
            return futures[name].result()

        if workers > 1:
            futures.update((name, pool.submit(execute, row, tmp_path_factory.mktemp("cwd"), modules))
                           for name, row in ROWS.items())
        yield result


@pytest.mark.parametrize("name", list(ROWS))
def test_a_bad_input_gets_one_clear_line(results: Callable[[str], Result], name: str) -> None:
    result = results(name)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.returncode != 0, result.output
    assert "Traceback" not in result.output and "INTERNALERROR" not in result.output, result.output
    assert len(lines) == 1, result.output
    assert ROWS[name].says in lines[0], result.output
    assert result.after == result.before, "the command wrote or changed files"


def test_the_snippet_example_of_the_help_runs() -> None:
    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "conformance", "--help"], cwd=repo,
                          capture_output=True, text=True, timeout=120, check=True)
    example = next(line.split() for line in done.stdout.splitlines()
                   if line.strip().startswith("python -m conformance snippet"))
    path = example[4]
    assert (repo / path).is_file(), f"--help names {path}, which does not exist"
    run = subprocess.run([sys.executable, "-m", "conformance", *example[3:]], cwd=repo,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Reproduces a tfmode-conformance scenario" in run.stdout, run.stderr
