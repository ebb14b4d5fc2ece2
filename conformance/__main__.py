"""``python -m conformance``: run the suite (run, certify), compare two implementations (diff),
write a reproduction (snippet), record texts (texts), check a certificate by making its run
again (verify), report the root causes of the compiled divergences (report), and, in a
checkout, check a torch release (release) or regenerate the matrix (matrix)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .target.adapter import Adapter, AdapterError, load_adapter, put_impl_path

_EPILOG = """\
examples:
  python -m conformance run --impl my_torchlike --impl-path src       (a conformance run)
  python -m conformance certify --impl my_torchlike --impl-path src   (a certification)
  python -m conformance diff --impl reference_impl --impl my_torchlike --examples 500 --seed 1
  python -m conformance snippet spec/scenarios/mode_stack.toml --impl reference_impl
      (from the repository's root; any .toml or .json scenario file will do)
  python -m conformance texts --impl torch --output torch-texts.json
  python -m conformance verify reports/certificate.json
  python -m conformance release 2.0.1 --dry-run     (in a checkout: what it would do)
  python -m conformance report --compiled --output compiled-divergences.md
"""

#: Commands whose arguments are another tool's, passed on untouched.
_PASSED_ON = {
    "run": "run the suite on an implementation: a conformance run (the options are the pytest "
           "plugin's: --impl, --impl-path, --hypothesis-profile, --expected-failures, --rules, "
           "...; it is pytest --pyargs conformance.suite)",
    "certify": "the same run with --certify: a certification, which passes only when every "
               "MUST rule passes",
    "release": "in a checkout: check one torch release in a throwaway venv and write its "
               "certificate (python -m conformance.release)",
    "matrix": "in a checkout: regenerate the matrix and evolution pages from the committed "
              "certificates (python -m conformance.matrix)",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m conformance",
        description="Tools of the tfmode-conformance suite (the suite itself runs under pytest: "
                    "pytest --pyargs conformance.suite --impl MODULE).",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, text in _PASSED_ON.items():
        sub.add_parser(name, help=text, add_help=False)
    diff = sub.add_parser(
        "diff", help="run the same generated scenarios on two implementations and print the "
                     "minimal scenarios where they behave differently",
        description="Run the same generated scenarios on implementations A and B (translated "
                    "between generations where they differ) and print, for each distinct "
                    "difference, a minimal scenario, what A and B did, and the rules that decide "
                    "it. Exit status: 0 no difference, 1 differences, 2 usage error.")
    diff.add_argument("--impl", action="append", required=True, metavar="SPEC",
                      help="MODULE or pkg.mod:ATTR; give it twice (A, then B)")
    _impl_path_option(diff)
    diff.add_argument("--examples", type=int, default=300, metavar="N",
                      help="scenarios to generate (default 300)")
    diff.add_argument("--seed", type=int, default=None, metavar="S",
                      help="hypothesis seed, for a reproducible search")
    diff.add_argument("--max-report", type=int, default=5, metavar="K",
                      help="print at most K differences (default 5)")
    snip = sub.add_parser("snippet", help="print a Python script reproducing a scenario file",
                          description="Print a self-contained script that runs the scenario "
                                      "(TOML or JSON) on the implementation and prints what "
                                      "each handler sees.")
    snip.add_argument("scenario", type=Path, metavar="FILE")
    snip.add_argument("--impl", default="reference_impl", metavar="SPEC",
                      help="MODULE or pkg.mod:ATTR (default reference_impl)")
    _impl_path_option(snip)
    texts = sub.add_parser("texts", help="record the error and warning texts the implementation "
                                         "produces in the TEXT rules' examples (JSON)",
                           description="Run the TEXT rules' examples of the implementation's "
                                       "generation and write, as JSON, each text it raised or "
                                       "warned, as shipped and with the scenario's objects named. "
                                       "A measurement: nothing is predicted or judged.")
    texts.add_argument("--impl", default="reference_impl", metavar="SPEC",
                       help="MODULE or pkg.mod:ATTR (default reference_impl)")
    _impl_path_option(texts)
    texts.add_argument("--output", type=Path, default=None, metavar="FILE",
                       help="write the JSON here (default: standard output)")
    verify = sub.add_parser(
        "verify", help="make a certificate's run again from a clean environment and compare "
                       "its digests and verdicts",
        description="Make the run a certificate records again (a fresh temporary reports "
                    "folder, the certificate's implementation, --impl-path, profile, seed, "
                    "expected failures and options; no PYTEST_*, HYPOTHESIS_* or TFMODE_* "
                    "variables) and compare: the digests of the implementation's files, of the "
                    "suite and of the specification, and each rule's verdict. Exit status: 0 "
                    "everything matches, 1 a difference (one line each), 2 bad input.")
    verify.add_argument("certificate", type=Path, metavar="CERT", help="a certificate.json")
    verify.add_argument("-n", "--workers", type=int, default=None, metavar="N",
                        help="run the suite on N pytest-xdist workers (default: serially)")
    verify.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                        help="bound on the whole run (default 3600)")
    report = sub.add_parser(
        "report", help="write the root causes of the compiled divergences as Markdown, one "
                       "section per cause, ready to paste into an issue",
        description="Write, as Markdown, each root cause of the compiled expected failures "
                    "shipped with the suite once: its title, severity, the rules it breaks, the "
                    "torch releases it holds on, the upstream issues found, and a plain-torch "
                    "repro that prints EAGER: and COMPILED: and exits 1 when they differ.")
    report.add_argument("--compiled", action="store_true", required=True,
                        help="the divergences of torch.compile from eager torch (the one report)")
    report.add_argument("--output", type=Path, default=None, metavar="FILE",
                        help="write the Markdown here (default: standard output)")
    return parser


def _report(args: argparse.Namespace) -> int:
    from .report.causes import CausesError, load_causes, markdown

    try:
        text = markdown(load_causes())
    except CausesError as exc:
        raise _UsageError(str(exc)) from None
    return _write(text, args.output)


def _write(text: str, output: Path | None) -> int:
    """Write ``text`` to ``output`` (standard output if None): a command's result."""
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _UsageError(f"cannot write {output}: {exc.strerror}") from None
    return 0


def _impl_path_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl-path", default=None, metavar="DIRS",
                        help="folders (separated by the platform's path separator) put first on "
                             "sys.path to find an implementation that is not installed")


def _use_impl_path(args: argparse.Namespace) -> None:
    """Put ``--impl-path`` first on ``sys.path``, as the plugin does (adapter.put_impl_path)."""
    try:
        put_impl_path(getattr(args, "impl_path", None), Path.cwd())
    except AdapterError as error:
        raise _UsageError(str(error)) from None


def _passed_on(command: str, rest: list[str]) -> int:
    """Run a command whose arguments belong to another tool (see :data:`_PASSED_ON`)."""
    if command in ("run", "certify"):
        import subprocess

        if _asks_for_workers(rest) and not _has_xdist():
            print(f"python -m conformance {command}: error: {_NO_XDIST}", file=sys.stderr)
            return 2

        extra = ["--certify"] if command == "certify" and "--certify" not in rest else []
        plugin = [] if _plugin_autoloads() else ["-p", "conformance.plugin"]
        # A process of its own: pytest then imports the suite itself (its assertions rewritten).
        return subprocess.call([sys.executable, "-m", "pytest", *plugin, "--pyargs",
                                "conformance.suite", *rest, *extra])
    if command == "release":
        from .release import main as release_main

        return release_main(rest)
    from .matrix import main as matrix_main

    return matrix_main(rest)


#: The one line a run that asks for workers gets where pytest-xdist is not installed.
_NO_XDIST = "-n needs pytest-xdist, which is not installed here (pip install pytest-xdist)"


def _asks_for_workers(rest: list[str]) -> bool:
    """Whether pytest's arguments ``rest`` ask for pytest-xdist workers (``-n N``, ``-nN``,
    ``--numprocesses``), before a ``--`` that ends the options."""
    for arg in rest:
        if arg == "--":
            return False
        if arg == "-n" or arg.startswith("--numprocesses") or (
                arg.startswith("-n") and arg[2:3].isalnum()):
            return True
    return False


def _has_xdist() -> bool:
    from importlib.util import find_spec

    return find_spec("xdist") is not None


def _plugin_autoloads() -> bool:
    """Whether pytest loads the plugin by itself (the package is installed, with its entry point)."""
    try:
        from importlib.metadata import entry_points

        return any(ep.value == "conformance.plugin" for ep in entry_points(group="pytest11")) and (
            not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"))
    except Exception:  # metadata that cannot be read: load it explicitly
        return False


def _verify(args: argparse.Namespace) -> int:
    from .report.verify import VerifyError, verify

    if args.workers is not None and args.workers < 1:
        raise _UsageError("--workers must be at least 1")
    if not args.timeout > 0:
        raise _UsageError("--timeout must be a number of seconds > 0")
    if args.workers is not None and not _has_xdist():
        raise _UsageError(_NO_XDIST)
    try:
        status, _ = verify(args.certificate, workers=args.workers, timeout=args.timeout)
    except VerifyError as exc:
        raise _UsageError(" ".join(str(exc).split())) from None
    return status


def _load(spec: str) -> Adapter:
    try:
        return load_adapter(spec)
    except (Exception, SystemExit) as exc:
        raise _UsageError(" ".join(str(exc).split())) from None


class _UsageError(Exception):
    """A one-line problem with the command line (exit status 2)."""


def _diff(args: argparse.Namespace) -> int:
    from .tools.diff import find_differences, render

    if len(args.impl) != 2:
        raise _UsageError(f"diff needs --impl exactly twice (got {len(args.impl)})")
    if args.examples < 1 or args.max_report < 1:
        raise _UsageError("--examples and --max-report must be at least 1")
    spec_a, spec_b = args.impl
    _use_impl_path(args)
    a, b = _load(spec_a), _load(spec_b)
    print(f"A = {spec_a} ({a.name} {a.version}, generation {a.generation})")
    print(f"B = {spec_b} ({b.name} {b.version}, generation {b.generation})")
    seed = "random" if args.seed is None else args.seed
    print(f"{args.examples} generated scenarios, seed {seed}")
    findings = find_differences(a, b, args.examples, args.seed)
    if not findings:
        print("no differences found")
        return 0
    shown = findings[: args.max_report]
    for i, finding in enumerate(shown, start=1):
        print()
        print(render(finding, i, len(findings), spec_a, spec_b))
    if len(findings) > len(shown):
        print(f"\n... and {len(findings) - len(shown)} more distinct difference(s) "
              f"(--max-report {len(findings)} shows them)")
    print(f"\n{len(findings)} distinct difference(s)")
    return 1


def _snippet(args: argparse.Namespace) -> int:
    from spec.model import ScenarioError, load_scenario

    from .snippet import snippet

    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        raise _UsageError(str(exc)) from None
    _use_impl_path(args)
    adapter = _load(args.impl)
    sys.stdout.write(snippet(scenario, args.impl, adapter.generation))
    return 0


def _texts(args: argparse.Namespace) -> int:
    import json

    from .sandbox.parent import ImplementationFault, SandboxedImplementation
    from .target.adapter import AdapterError
    from .tools.measure import measure

    _use_impl_path(args)
    try:  # in a sandbox process, as the suite runs it: a crash costs one example, not the run
        target = SandboxedImplementation(args.impl, origin=f"--impl {args.impl!r}")
    except (AdapterError, ImplementationFault) as exc:
        raise _UsageError(" ".join(str(exc).split())) from None
    try:
        text = json.dumps(measure(target), indent=2, sort_keys=True) + "\n"
    finally:
        target.close()
    return _write(text, args.output)


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given and given[0] in _PASSED_ON:
        return _passed_on(given[0], given[1:])
    args = _parser().parse_args(given)
    commands = {"diff": _diff, "snippet": _snippet, "texts": _texts, "verify": _verify,
                "report": _report}
    try:
        return commands[args.command](args)
    except _UsageError as exc:
        print(f"python -m conformance {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
