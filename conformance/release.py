"""Certify one torch release in a throwaway venv and commit-ready its certificate to docs/certificates/
(with --compile: the release under torch.compile, judged against its own eager run)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The Python each torch series is certified on (the series' wheels exist for it).
PYTHON_FOR_SERIES = {(1, 12): "3.10", (1, 13): "3.10", **{(2, minor): "3.11" for minor in range(15)}}
#: The releases checked and committed (docs/certificates/torch-X.json), oldest first: what the
#: release matrix workflow (.github/workflows/releases.yml) runs, one job each.
RELEASES = ("1.12.1", "1.13.1", "2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0",
            "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1")
#: Releases before this one need numpy<2 (they were built against numpy 1.x).
NUMPY2_FROM = (2, 3)
#: What the certification venv installs besides the checkout and torch.
TEST_DEPS = ("pytest>=8", "hypothesis>=6.100", "pytest-timeout>=2.3")
#: A compiled run's two workers (a scenario under torch.compile costs ten times an eager one).
COMPILE_XDIST = "pytest-xdist>=3.5"
ROOT = Path(__file__).resolve().parents[1]
#: In a checkout: the test that runs each expected failure's snippet on the installed torch.
SNIPPET_TESTS = ROOT / "tests" / "test_expected_failures.py"
#: In a checkout: the test that runs the compiled expected failures' snippets and the repro of each
#: root cause (compiled-causes.toml) that the release's compiled expected-failures file names.
COMPILED_SNIPPET_TESTS = ROOT / "tests" / "test_compiled_snippets.py"
#: The first release certified under torch.compile: Dynamo's support of torch function modes
#: came in the 2.5 series.
COMPILE_FROM = (2, 5, 1)
#: The per-test limit of a compiled run, as tox's conformance-compile: each compiled scenario
#: takes a second or more, and a test runs many.
COMPILE_RULE_TIMEOUT = 400
#: Run in the venv before a compiled certification: exits 0 only if its torch has torch.compile
#: and Dynamo runs on this Python and platform.
COMPILE_CHECK = ("import sys, torch\n"
                 "if not callable(getattr(torch, 'compile', None)):\n"
                 "    sys.exit('torch ' + torch.__version__ + ' has no torch.compile')\n"
                 "import torch._dynamo\n"
                 "supported = getattr(torch._dynamo, 'is_dynamo_supported', lambda: True)\n"
                 "if not supported():\n"
                 "    sys.exit('torch.compile is not supported on this Python or platform')\n")


class BadRelease(Exception):
    """A release this tool cannot certify, or no interpreter for it; its text is one line."""


def parse_release(release: str) -> tuple[int, int, int]:
    """``"2.0.1"`` -> ``(2, 0, 1)``; a release of no known series is a BadRelease."""
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", release)
    if not match:
        raise BadRelease(f"{release!r} is not a torch release (expected MAJOR.MINOR.PATCH, e.g. 2.0.1)")
    major, minor, patch = (int(part) for part in match.groups())
    if (major, minor) not in PYTHON_FOR_SERIES:
        known = ", ".join(f"{a}.{b}" for a, b in PYTHON_FOR_SERIES)
        raise BadRelease(f"torch {release}: no known series {major}.{minor} (known: {known})")
    return major, minor, patch


def find_python(version: str) -> str:
    """The path of a ``python<version>`` interpreter: on PATH, else under pyenv's versions."""
    found = shutil.which(f"python{version}")
    if found and _runs(found, version):
        return found
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"), "versions")
    for candidate in sorted(pyenv.glob(f"{version}.*/bin/python"), reverse=True):
        if _runs(str(candidate), version):
            return str(candidate)
    raise BadRelease(f"no Python {version} interpreter found (on PATH as python{version} or in {pyenv})")


def _runs(python: str, version: str) -> bool:
    code = "import sys; print('%d.%d' % sys.version_info[:2])"
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.strip() == version


def stem(release: str, compiled: bool) -> str:
    """``torch-X``, or ``torch-X-compiled`` under torch.compile: what a release's certificate and
    expected-failures file are named."""
    return f"torch-{release}-compiled" if compiled else f"torch-{release}"


@dataclass(frozen=True)
class Plan:
    """What certifying one release does: the interpreter, the pins and the suite's command."""

    release: str
    python_version: str
    requirements: tuple[str, ...]
    expected_failures: Path | None
    certificate: Path
    #: Where the release's measured texts go (``python -m conformance texts``); None under
    #: ``--compile``, which keeps the eager release's texts.
    texts: Path | None
    #: Whether the suite runs the release under torch.compile (``--compile``).
    compiled: bool = False

    @property
    def name(self) -> str:
        """The stem of its certificate and expected-failures file (:func:`stem`)."""
        return stem(self.release, self.compiled)

    def pytest_args(self, work: Path) -> list[str]:
        """The suite's command line after ``python -m pytest``, for the venv and reports in ``work``.

        The rootdir is the venv's site-packages (test IDs ``conformance/suite/...``, as in the
        committed certificates); paths are given as ``--opt=PATH``, since pytest reads a separate
        value token as a test path before the plugin's options are known.
        """
        site = work / "venv" / "lib" / f"python{self.python_version}" / "site-packages"
        args = ["-p", "no:cacheprovider", f"--rootdir={site}", "--pyargs", "conformance.suite",
                "--impl", "torch"]
        if self.compiled:  # as tox's conformance-compile runs it: two workers
            args += ["-n", "2", "--compile", f"--rule-timeout={COMPILE_RULE_TIMEOUT}"]
        args += ["--hypothesis-profile", "certify", f"--reports-dir={work / 'reports'}"]
        if self.expected_failures is not None:
            args.append(f"--expected-failures={self.expected_failures}")
        return args


def is_checkout(root: Path) -> bool:
    """Whether ``root`` is a checkout of the project (not the folder of an installed package)."""
    return (root / "pyproject.toml").is_file() and (root / "docs" / "certificates").is_dir()


def plan(release: str, root: Path = ROOT, compiled: bool = False) -> Plan:
    """The plan for ``release`` (under torch.compile if ``compiled``), without touching the
    network or the disk beyond a stat; a release before :data:`COMPILE_FROM` is a BadRelease
    under torch.compile."""
    major, minor, patch = parse_release(release)
    if compiled and (major, minor, patch) < COMPILE_FROM:
        first = ".".join(map(str, COMPILE_FROM))
        raise BadRelease(f"torch {release}: --compile certifies torch {first} and later (Dynamo "
                         f"supports torch function modes from the 2.5 series on)")
    pins = [str(root), *TEST_DEPS, f"torch=={release}"]
    if compiled:  # as tox's conformance-compile: pytest-xdist for two workers, and no numpy
        pins.insert(-1, COMPILE_XDIST)
    else:  # numpy too, as users have it: torch dispatches some operators differently without it
        pins.append("numpy<2" if (major, minor) < NUMPY2_FROM else "numpy")
    name = stem(release, compiled)
    expected = root / "conformance" / "expected_failures" / f"{name}.toml"
    return Plan(release, PYTHON_FOR_SERIES[(major, minor)], tuple(pins),
                expected if expected.exists() else None,
                root / "docs" / "certificates" / f"{name}.json",
                None if compiled else root / "docs" / "texts" / f"torch-{release}.json", compiled)


def _step(name: str, action: Callable[[], int]) -> int:
    start = time.monotonic()
    code = action()
    status = "ok" if code == 0 else f"exit {code}"
    print(f"[{time.monotonic() - start:7.1f}s] {name}: {status}", flush=True)
    return code


def _run(cmd: Sequence[str], log: Path, cwd: Path | None = None) -> int:
    with log.open("a", encoding="utf-8") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        try:
            done = subprocess.run(list(cmd), stdout=out, stderr=subprocess.STDOUT, cwd=cwd, check=False)
        except OSError as exc:
            out.write(f"cannot run: {exc}\n")
            return 127
        return done.returncode


def certify(p: Plan, python: str, pip_args: Sequence[str] = (), keep_log: Path | None = None,
            keep_venv: bool = False) -> int:
    """Create the venv, install, certify, copy the certificate; the venv is removed in any case
    unless ``keep_venv`` (then its path is printed, to try snippets in it and remove it by hand)."""
    work = Path(tempfile.mkdtemp(prefix=f"tfm-{p.name}-"))
    venv, reports = work / "venv", work / "reports"
    log = keep_log or Path(tempfile.gettempdir(), f"tfm-{p.name}.log")
    log.write_text("", encoding="utf-8")
    under = " under torch.compile" if p.compiled else ""
    print(f"torch {p.release}{under}: Python {p.python_version} ({python}), log {log}", flush=True)
    vpy = str(venv / "bin" / "python")
    try:
        if _step("create venv", lambda: _run([python, "-m", "venv", str(venv)], log)):
            return 1
        install = [vpy, "-m", "pip", "install", "--disable-pip-version-check", *pip_args, *p.requirements]
        if _step("install " + " ".join(p.requirements[1:]), lambda: _run(install, log)):
            return 1
        if p.compiled and _step("check torch.compile", lambda: _run([vpy, "-c", COMPILE_CHECK], log)):
            print(f"error: torch {p.release} cannot be certified under torch.compile here: "
                  f"{_last_line(log)}", flush=True)
            return 1
        measured = 0 if p.texts is None else _measure_texts(p.texts, vpy, work, log)
        code = _step("certify", lambda: _run([vpy, "-m", "pytest", *p.pytest_args(work)], log, work))
        written = reports / "certificate.json"
        if not written.exists():
            print(f"no certificate written (pytest exit {code}); see {log}", flush=True)
            return 1
        p.certificate.parent.mkdir(parents=True, exist_ok=True)
        commit_ready(written, p.certificate)
        print(f"certificate: {p.certificate} (pytest exit {code})", flush=True)
        tests = COMPILED_SNIPPET_TESTS if p.compiled else SNIPPET_TESTS
        if p.expected_failures is not None and tests.exists():
            snippets = [vpy, "-m", "pytest", "-p", "no:cacheprovider", str(tests)]
            what = ("the compiled expected failures' snippets and root causes' repros" if p.compiled
                    else "the expected failures' snippets")
            code = _step(f"run {what} on this release", lambda: _run(snippets, log, ROOT)) or code
        return code or measured
    finally:
        if keep_venv:
            print(f"kept venv: {venv} (remove {work} yourself)", flush=True)
        else:
            _step("remove venv", lambda: _remove(work))


def _measure_texts(target: Path, vpy: str, work: Path, log: Path) -> int:
    """Measure the venv's texts into ``target`` (unless only object addresses differ)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    texts = work / "texts.json"
    measure = [vpy, "-m", "conformance", "texts", "--impl", "torch", f"--output={texts}"]
    measured = _step(f"measure the texts into {target}", lambda: _run(measure, log, work))
    if texts.exists() and not settle_texts(texts, target):
        print(f"texts: as committed but for object addresses; {target} left as it is", flush=True)
    return measured


def _last_line(log: Path) -> str:
    """The log's last non-empty line (what a failed check printed last)."""
    lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]
    return next((line for line in reversed(lines) if line), "(nothing printed)")


#: An object's address in its printed form (``<M object at 0x7f...>``): it differs from run to run.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def settle_texts(measured: Path, target: Path) -> bool:
    """Write the measured texts to ``target`` unless the file there says the same but for object
    addresses (a re-run would otherwise leave every release's texts changed); True if written."""
    new = measured.read_text(encoding="utf-8")
    if target.exists():
        old = target.read_text(encoding="utf-8")
        if _ADDRESS.sub(" at 0x", old) == _ADDRESS.sub(" at 0x", new):
            return False
    target.write_text(new, encoding="utf-8")
    return True


def commit_ready(written: Path, target: Path) -> None:
    """Copy the run's certificate to ``target`` without its evidence: the digests and the
    invocation name this machine's files (the throwaway venv, the checkout's path), which a
    reader of the repository does not have; ``conformance verify`` then says there is nothing
    to verify, as for the certificates of the schemas before evidence."""
    document = json.loads(written.read_text(encoding="utf-8"))
    document["evidence"] = None
    target.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def _remove(path: Path) -> int:
    shutil.rmtree(path, ignore_errors=True)
    return 1 if path.exists() else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.release", description=__doc__)
    parser.add_argument("release", help="a torch release, e.g. 2.0.1")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and stop")
    parser.add_argument("--compile", action="store_true",
                        help="certify the release under torch.compile (2.5.1 and later): the suite "
                             "with --compile, torch-X-compiled.toml, docs/certificates/"
                             "torch-X-compiled.json; the texts are not measured again")
    parser.add_argument("--python", help="the interpreter to use (default: found by the series)")
    parser.add_argument("--keep-venv", action="store_true",
                        help="do not remove the venv (to run snippets in it); its path is printed")
    parser.add_argument("--pip-arg", action="append", default=[], metavar="ARG",
                        help="an extra argument for pip install (repeat), e.g. --find-links=DIR")
    args = parser.parse_args(argv)
    if not is_checkout(ROOT):
        print(f"error: python -m conformance.release runs in a checkout of tfmode-conformance (it "
              f"installs the checkout and writes docs/certificates/ and docs/texts/ there); "
              f"{ROOT} is an installed package, not a checkout", file=sys.stderr)
        return 2
    try:
        p = plan(args.release, ROOT, compiled=args.compile)
        python = args.python or find_python(p.python_version)
    except BadRelease as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        under = " under torch.compile" if p.compiled else ""
        print(f"release: torch {p.release}{under}\npython: {p.python_version} ({python})")
        print("install: " + " ".join(p.requirements))
        print("certify: python -m pytest " + " ".join(p.pytest_args(Path("WORK"))))
        print(f"expected failures: {p.expected_failures or 'none (no failure is expected)'}")
        print(f"certificate: {p.certificate}")
        print(f"texts: {p.texts or 'not measured (those of the eager release)'}")
        return 0
    return certify(p, python, args.pip_arg, keep_venv=args.keep_venv)


if __name__ == "__main__":
    sys.exit(main())
