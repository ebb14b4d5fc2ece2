"""``python -m spec explain SCENARIO``: print the model's predicted trace for a scenario file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .model import ScenarioError, Unbounded, Unspecified, load_scenario, predict
from .model.explain import render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spec", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    explain = commands.add_parser("explain", help="print the predicted trace of a scenario file")
    explain.add_argument("scenario", type=Path, help="a .toml or .json scenario file")
    args = parser.parse_args(argv)
    try:
        scenario = load_scenario(args.scenario)
        trace = predict(scenario)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (Unbounded, Unspecified) as exc:
        print(f"error: {args.scenario}: no rule specifies this scenario ({type(exc).__name__}: {exc})",
              file=sys.stderr)
        return 2
    print(render(scenario, trace))
    return 0


if __name__ == "__main__":
    sys.exit(main())
