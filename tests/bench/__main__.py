"""``python -m tests.bench [--quick] [--only SECTION,...] [--write-docs] [--json PATH]``.

Prints the results as reStructuredText; ``--write-docs`` also writes them to
``docs/_generated/bench.rst`` (included by ``docs/performance.rst``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from tests.bench import rst

SECTIONS = ("dispatch", "depth", "sweep", "exhaustive", "surface", "suite", "xdist", "memory")
ROOT = Path(__file__).resolve().parents[2]
DOCS_RESULTS = ROOT / "docs" / "_generated" / "bench.rst"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="fewer repeats, fewer depths, fewer scenarios and dispatches")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run (default: {','.join(SECTIONS)})")
    parser.add_argument("--scenarios", type=int, default=None,
                        help="scenarios in the sweep benchmark (default 2000; --quick 300)")
    parser.add_argument("--calls", type=int, default=None,
                        help="dispatches in the memory benchmark (default 1,000,000)")
    parser.add_argument("--write-docs", action="store_true",
                        help=f"write the tables to {DOCS_RESULTS.relative_to(ROOT)}")
    parser.add_argument("--json", metavar="PATH", help="also write the raw figures as JSON")
    args = parser.parse_args(argv)
    args.sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    return args


def _torch_version() -> str | None:
    try:
        import torch
    except ImportError:
        return None
    return str(torch.__version__)


def _jsonable(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return _jsonable(asdict(value))
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    torch_version = _torch_version()
    needs_torch = {"dispatch", "depth"} & set(args.sections)
    if needs_torch and torch_version is None:
        print("the dispatch benchmarks compare with torch 2.13: run them with `tox -e bench` "
              "(or install torch==2.13.0)", file=sys.stderr)
        return 2
    if needs_torch and torch_version is not None and not torch_version.startswith("2.13"):
        print(f"warning: torch {torch_version} is installed; the targets are against torch 2.13",
              file=sys.stderr)
    raw: dict[str, Any] = {}
    parts: list[str] = []

    def emit(text: str) -> None:
        parts.append(text)
        print(text, flush=True)

    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    emit(rst.table(f"The machine ({when}{', quick run' if args.quick else ''})",
                   ["property", "value"], rst.machine(torch_version), [30, 70]))

    if needs_torch:
        from tests.bench import dispatch

        ref, torch = dispatch.Reference(), dispatch.Torch()
        result = dispatch.run_cases(ref, torch, args.quick)
        if "depth" in args.sections:
            dispatch.run_depths(result, ref, torch, args.quick)
        # More rounds of the cases, minutes apart from the first: a slow spell of a shared
        # machine then spoils at most one round of a case.
        for _ in range(1 if args.quick else 2):
            dispatch.run_cases(ref, torch, args.quick, result)
        raw["dispatch"] = result
        emit(dispatch.render(result))
    if "sweep" in args.sections:
        from tests.bench import sweep

        n = args.scenarios or (300 if args.quick else 2000)
        sweep_result = sweep.run(n)
        raw["sweep"] = sweep_result
        emit(rst.section("Generated scenarios per second") + "\n" + sweep.render(sweep_result))
    if "exhaustive" in args.sections:
        from tests.bench import exhaustive

        n = args.scenarios or (500 if args.quick else 4000)
        rates = exhaustive.run(n, with_torch=torch_version is not None)
        raw["exhaustive"] = rates
        emit(rst.section("Enumerated scenarios per second") + "\n" + exhaustive.render(rates))
    if "surface" in args.sections:
        from tests.bench import surface

        surface_result = surface.run(args.quick)
        raw["surface"] = surface_result
        emit(rst.section("The surface sweep") + "\n" + surface.render(surface_result))
    if {"suite", "xdist"} & set(args.sections):
        from tests.bench import suite

        suite_result = suite.run(with_xdist="xdist" in args.sections)
        raw["suite"] = suite_result
        emit(rst.section("The conformance run") + "\n" + suite.render(suite_result))
    if "memory" in args.sections:
        from tests.bench import memory

        calls = args.calls or (100_000 if args.quick else 1_000_000)
        memory_result = memory.run(calls)
        raw["memory"] = memory_result
        emit(rst.section("Memory") + "\n" + memory.render(memory_result))

    if args.write_docs:
        DOCS_RESULTS.parent.mkdir(parents=True, exist_ok=True)
        header = (".. Generated by `python -m tests.bench --write-docs` (tox -e bench); "
                  "do not edit.\n\n")
        DOCS_RESULTS.write_text(header + "\n".join(parts), encoding="utf-8")
        print(f"wrote {DOCS_RESULTS}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(_jsonable(raw), indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
