"""python -m tests.quality.real_mutants --target torch|torch-breadth|reference [--variants a,b]
[--output PATH]
[--rst PATH] [--keep]

Checks the control, then each variant, by a conformance run of the suite (never a ``--certify``
run: the variant set's profile and options), one subprocess at a time, and prints one line per
run. Exit status: 0 when the control comes out clean and no run is broken, 1 otherwise,
2 when a variant does not apply to the installed file.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import report
from .harness import Result, VariantError, VariantSet, check, run_all


def _variant_set(target: str) -> VariantSet:
    if target == "torch":
        from .torch_overrides import VARIANT_SET
    elif target == "torch-breadth":
        from .torch_breadth import VARIANT_SET
    else:
        from .reference import VARIANT_SET
    return VARIANT_SET


def _line(result: Result) -> None:
    rules = " ".join(result.failed_rules) or "-"
    extra = f"  [{result.problem}]" if result.problem else ""
    if result.masked_rules:
        extra += f"  [more tests fail under expected failures: {' '.join(result.masked_rules)}]"
    print(f"{result.name:34} {result.status:9} {result.seconds:7.1f}s  {rules}{extra}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.quality.real_mutants",
                                     description=__doc__)
    parser.add_argument("--target", choices=("torch", "torch-breadth", "reference"), required=True)
    parser.add_argument("--variants", help="comma-separated names (default: every variant)")
    parser.add_argument("--output", type=Path, help="write the JSON result here")
    parser.add_argument("--rst", type=Path, help="also render the JSON result as reST here")
    parser.add_argument("--keep", action="store_true",
                        help="keep the generated modules and the reports (the folder is printed)")
    parser.add_argument("--dry-run", action="store_true",
                        help="only check that every edit applies to the installed file and "
                             "compiles (exit 2 if one does not); run nothing")
    args = parser.parse_args(argv)
    vset = _variant_set(args.target)
    if args.dry_run:
        try:
            for variant in [vset.control, *vset.select(None)]:
                compile(check(vset, variant), variant.name, "exec")
        except (VariantError, SyntaxError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        targets = sorted({v.target or vset.target for v in [vset.control, *vset.select(None)]})
        print(f"every edit applies to the installed {', '.join(targets)} and compiles")
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="tfmode-variants-"))
    try:
        names = args.variants.split(",") if args.variants else None
        control, results = run_all(vset, vset.select(names), workdir, _line)
    except VariantError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    doc = report.document(vset, control, results)
    text = json.dumps(doc, indent=2) + "\n"
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    if args.rst is not None:
        args.rst.parent.mkdir(parents=True, exist_ok=True)
        args.rst.write_text(report.render(doc), encoding="utf-8")
    summary = doc["summary"]
    clean = control.status == "survived"
    print(f"control {'clean' if clean else 'NOT clean: ' + control.status}; "
          f"{summary['killed']} killed, {summary['survived']} survived, {summary['broken']} broken")
    if args.keep:
        print(f"kept the generated modules and the reports in {workdir}")
    return 0 if clean and not summary["broken"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
