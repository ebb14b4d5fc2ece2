"""The machinery of tests/test_commands.py: finding shown commands, reading tox.ini and the
registry, and judging a run, each shown to catch what it is there to catch."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.commands.exercise import certificate_problems, check_ci, doc_file, exercise
from tests.commands.registry import Entry, RegistryError, load_registry
from tests.commands.shown import shown_commands
from tests.commands.toxini import ToxIni, ToxIniError, parse_tox_command
from tests.commands.workspace import REPO, Workspace

README = """\
# x

Run `tox -e conformance` or `python -m spec explain FILE`; `--impl x` and `python3.10` are
not commands.

| env | what |
| --- | --- |
| `tests` | `pytest -n 2 tests` |

```console
pip install tox && tox -e a   # set up, then run
tox -e b -- --impl m          # or: pytest --pyargs conformance.suite --impl m
```

```python
python = "not a command"
```
"""

PAGE = """\
Title ``python -m conformance diff``
====================================

.. code-block:: console

   $ python - <<'EOF'
   print("# not a comment")
   EOF
   $ tox -e docs   # the docs
   output line, not a command
   $ python -m x \\
       --flag
   $ PYENV_VERSION=3.11 tox

Two commands, from the root::

   python -m conformance.release 2.0.1     # a release
   pytest -q

Not commands::

   behaviour = { default = "forward" }

.. code-block:: toml

   key = "python -m not.this"

.. tfm-command:: spec explain a.toml
   :returncode: 1

.. literalinclude:: out.txt
   :language: text

.. a comment naming ``python -m hidden``

Prose: ``python -m
conformance texts --impl MODULE`` over two lines, and ``reference_impl``.
"""


def test_shown_commands_are_found_in_every_form(tmp_path: Path) -> None:
    (tmp_path / "docs" / "_build").mkdir(parents=True)
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs" / "page.rst").write_text(PAGE)
    (tmp_path / "docs" / "out.txt").write_text("$ python -m conformance diff --seed 1\nA = x\n")
    (tmp_path / "docs" / "_build" / "old.rst").write_text("``tox -e built``\n")
    assert shown_commands(tmp_path) == {
        "pip install tox": ["README.md:11"],
        "tox -e a": ["README.md:11"],
        "tox -e b -- --impl m": ["README.md:12"],
        "pytest --pyargs conformance.suite --impl m": ["README.md:12"],
        "tox -e conformance": ["README.md:3"],
        "python -m spec explain FILE": ["README.md:3"],
        "pytest -n 2 tests": ["README.md:8"],
        "python - <<'EOF'\nprint(\"# not a comment\")\nEOF": ["docs/page.rst:6"],
        "tox -e docs": ["docs/page.rst:9"],
        "python -m x \\\n    --flag": ["docs/page.rst:11"],
        "PYENV_VERSION=3.11 tox": ["docs/page.rst:13"],
        "python -m conformance.release 2.0.1": ["docs/page.rst:17"],
        "pytest -q": ["docs/page.rst:18"],
        "python -m spec explain a.toml": ["docs/page.rst:28"],
        "python -m conformance diff --seed 1": ["docs/page.rst:31"],
        "python -m conformance diff": ["docs/page.rst:1"],
        "python -m conformance texts --impl MODULE": ["docs/page.rst:36"],
    }


def test_the_docs_show_the_commands_the_issue_is_about() -> None:
    shown = shown_commands(REPO)
    assert "docs/adapter.rst" in " ".join(shown[
        "tox -e conformance -- --impl-path docs/examples --impl othertorch_adapter:OtherTorchAdapter"])
    assert doc_file(REPO, "tfmode-expected-failures.toml", "docs/expected-failures.rst") \
        .startswith("# tfmode-expected-failures.toml\n[TFM_REACH_002]\n")


TOX_INI = """\
[tox]
env_list = lint, tests, tests-py310

[testenv]
set_env =
    A = 1
pass_env = CI, PYENV_VERSION
commands =
    !py310: pytest -n 2 {posargs:tests --x}
    py310,py311: pytest {posargs:tests}

[testenv:suite]
set_env =
    {[testenv]set_env}
    B = two words
commands =
    # a comment
    pytest --pyargs conformance.suite --reports {toxinidir}/r \\
        {posargs}
    python -m tests.bench

[testenv:odd]
commands = pytest {envtmpdir}
"""


def test_tox_ini_is_read_as_tox_reads_it(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_text(TOX_INI)
    ini = ToxIni(tmp_path / "tox.ini", Path("/ROOT"))
    assert ini.commands("tests") == [["pytest", "-n", "2", "tests", "--x"]]
    assert ini.commands("tests-py310", ("-k", "a b")) == [["pytest", "-k", "a b"]]
    assert ini.commands("suite", ("--impl", "m")) == [
        ["pytest", "--pyargs", "conformance.suite", "--reports", "/ROOT/r", "--impl", "m"],
        ["python", "-m", "tests.bench"]]
    assert ini.set_env("suite") == {"A": "1", "B": "two words"}
    assert ini.set_env("tests") == {"A": "1"}
    assert ini.pass_env("tests") == ["CI", "PYENV_VERSION"]
    assert ini.has_env("tests-py310") and ini.has_env("suite") and not ini.has_env("tests-py312")
    assert ini.takes_posargs("suite") and not ini.takes_posargs("odd")
    with pytest.raises(ToxIniError, match="unknown substitution"):
        ini.commands("odd")
    with pytest.raises(ToxIniError, match="no tox env 'nope'"):
        ini.commands("nope")


def test_tox_command_lines_are_taken_apart() -> None:
    tox = parse_tox_command("PYENV_VERSION=3.11:3.10 tox -e a,b -- --impl 'x y'")
    assert (tox.variables, tox.envs, tox.posargs) == ({"PYENV_VERSION": "3.11:3.10"}, ("a", "b"),
                                                      ("--impl", "x y"))
    assert not tox.parallel
    parallel = parse_tox_command("tox p -e a")
    assert (parallel.envs, parallel.parallel) == (("a",), True)
    assert parse_tox_command("tox run-parallel").parallel
    with pytest.raises(ToxIniError, match="only -e ENV"):
        parse_tox_command("tox -p -e a")


@pytest.mark.parametrize(("toml", "message"), [
    ('[run]\n"tox -e a" = { output = "x" }', "never \\[run\\]"),
    ('[equivalent]\n"python x" = { output = "x" }', "for tox -e ENV"),
    ('[run]\n"python x" = {}', "state a property"),
    ('[run]\n"python x" = { output = "x", colour = 1 }', "unknown field.*colour"),
    ('[run]\n"python x" = { output = "x", with = { y = "z" } }', "placeholder 'y'"),
    ('[run]\n"python x" = { output = "x", after = "python y" }', "no \\[run\\] or \\[equivalent\\]"),
    ('[run]\n"python x" = { output = "x", shorter = "-q" }', "needs the reason"),
    ('[run]\n"python x" = { output = "x", needs = ["numpy"] }', "needs may name only"),
    ('[run]\n"python x" = { status = true, output = "x" }', "status has the wrong type"),
    ('[ci]\n"tox -e a" = {}', "needs the reason"),
    ('[ci]\n"python x" = { reason = "slow" }', "needs ci_run or a check"),
    ('[run]\n"python x" = { output = "x" }\n[named]\n"python x" = {}', "in \\[run\\] and \\[named\\]"),
    ('[later]\n"python x" = {}', "unknown section \\[later\\]"),
    ('[run]\n"python x" = { output = "x", wheel = "maybe" }', "wheel is one of run, refuses"),
    ('[run]\n"python x" = { output = "x", wheel_reason = "r" }', "go with wheel"),
    ('[run]\n"python x" = { output = "x", wheel = "checkout" }', "need a wheel_reason"),
    ('[run]\n"python x" = { output = "x", wheel = "refuses", wheel_shorter = "-q", '
     'wheel_reason = "r" }', "wheel_shorter is for"),
    ('[run]\n"python x" = { output = "x", wheel = "run", wheel_shorter = "-q" }',
     "need a wheel_reason"),
    ('[run]\n"python x" = { output = "x" }\n"python y" = { output = "y", after = "python x", '
     'wheel = "run" }', "no wheel of its own"),
    ('[ci]\n"python x" = { reason = "r", ci_run = true, wheel = "run" }', "check is run"),
    ('[equivalent]\n"tox -e a" = { output = "x", wheel = "run" }', "unknown field.*wheel"),
    ('[run]\n"python x" = { output = "x", after = "python y" }\n'
     '"python y" = { output = "x", after = "python x" }', "makes a cycle"),
])
def test_an_inconsistent_registry_is_refused_in_one_line(tmp_path: Path, toml: str,
                                                         message: str) -> None:
    (tmp_path / "registry.toml").write_text(toml)
    with pytest.raises(RegistryError, match=message) as caught:
        load_registry(tmp_path / "registry.toml")
    assert "\n" not in str(caught.value)


def _entries(tmp_path: Path, toml: str) -> list[Entry]:
    (tmp_path / "registry.toml").write_text(textwrap.dedent(toml))
    return list(load_registry(tmp_path / "registry.toml").values())


def test_a_run_that_does_not_do_what_the_registry_states_fails(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    entries = _entries(tmp_path, """\
        [run]
        "python -m spec explain spec/scenarios/mode_stack.toml" = { output = '^no such line$' }
        "python -m spec explain FILE" = { with = { FILE = "missing.toml" }, output = "." }
        "python -m conformance.matrix" = { writes = ["nowhere.txt"] }
        [equivalent]
        "tox -e conformance -- --impl M" = { with = { M = "no_such_module" }, certificate = { fail = 0 } }
        "tox -e conformance -- I" = { with = { I = "--impl=no" }, shorter = "-x", reason = "r", writes = "x" }
        [named]
        "python -m conformance.sandbox._child" = {}
        """)
    problems = [exercise(entry, ws) for entry in entries]
    assert "no match for '^no such line$'" in problems[0][0]
    assert "expected exit status 0" in problems[1][0] and "missing.toml" in problems[1][0]
    assert problems[2] == [problems[2][0]] and "nowhere.txt was not written" in problems[2][0]
    assert "expected exit status 0" in problems[3][0] and "no_such_module" in problems[3][0]
    assert "no reports/certificate.json was written" in problems[3][1]
    assert "collecting the shown command failed" in problems[4][0] and "--co" in problems[4][0]
    assert "expected exit status 0" in problems[5][0]


def test_the_workspace_runs_the_copy_and_never_tox(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    done = ws.shell("python -c 'import conformance; print(conformance.__file__)'", 60)
    assert done.status == 0 and done.output.strip() == str(ws.root / "conformance" / "__init__.py")
    assert ws.shell("tox -e conformance", 60).status == 97
    assert ws.shell("echo ${CI:-unset} ${TFMODE_IMPL:-unset}", 60, None).output.split() == \
        ["unset", "unset"]


def test_ci_checks_notice_what_no_longer_holds(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    entries = _entries(tmp_path, """\
        [ci]
        "tox -e nope" = { reason = "r" }
        "tox -e conformance -- --no-such-option" = { reason = "r" }
        "tox -e bench" = { reason = "r", ci_run = true }
        "FOO=1 tox" = { reason = "r" }
        "pip install nothing-of-the-sort" = { reason = "r", ci_run = true }
        "python x" = { reason = "r", check = "exit 3" }
        """)
    problems = [check_ci(entry, ws) for entry in entries]
    assert "tox.ini has no env 'nope'" in problems[0][0]
    assert "the suite's options refuse the arguments" in problems[1][0]
    assert "'bench' is not in tox's env_list" in problems[2][0]
    assert "tox does not pass FOO" in problems[3][0]
    assert ".ci/run has no line with every word" in problems[4][0]
    assert "expected exit status 0" in problems[5][0]


def test_certificate_problems_name_each_difference() -> None:
    certificate = {
        "run": {"complete": True}, "level": {"reached": "MUST"}, "certify": False,
        "implementation": {"name": "m"}, "stale_expected_failures": [],
        "rules": {"TFM_A_001": {"verdict": "fail"}},
        "summary": {"pass": 3, "fail": 1, "expected_failure": 0, "not_applicable": 0,
                    "untested": 0}}
    assert certificate_problems({"complete": True, "fail": 1, "implementation": "m"},
                                certificate) == []
    assert certificate_problems({"fail": 0, "verdicts": {"TFM_A_001": "pass"}, "level": "SHOULD"},
                                certificate) == [
        "certificate fail: expected 0, found 1",
        "certificate verdicts: expected {'TFM_A_001': 'pass'}, found {'TFM_A_001': 'fail'}",
        "certificate level: expected 'SHOULD', found 'MUST'"]
