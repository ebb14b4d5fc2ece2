"""python -m spec explain SCENARIO: print the model's predicted trace for a scenario.

SCENARIO is a .toml or .json scenario file, the name of a scenario bundled with the package
(mode_stack, ...) or the name of one of the rules' examples.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .model import Scenario, ScenarioError, Unbounded, Unspecified, load_scenario, predict
from .model.explain import render

#: The scenarios bundled with the package, by name (the file's stem).
BUNDLED = Path(__file__).resolve().parent / "scenarios"


def bundled() -> list[str]:
    """The names of the bundled scenarios."""
    return sorted(p.stem for p in BUNDLED.glob("*.toml"))


def resolve(given: str) -> Scenario:
    """The scenario ``given`` names: a file, a bundled scenario, or a rule's example."""
    path = Path(given)
    if path.is_file() or path.suffix in (".toml", ".json"):
        return load_scenario(path)
    if (BUNDLED / f"{given}.toml").is_file():
        return load_scenario(BUNDLED / f"{given}.toml")
    from .examples import load_examples

    for example in load_examples():
        if example.name == given:
            return example.scenario
    raise ScenarioError(f"{given}: no such file, bundled scenario ({', '.join(bundled())}) "
                        "or rule example")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spec",
                                     description="The specification's command line.")
    commands = parser.add_subparsers(dest="command", required=True)
    explain = commands.add_parser(
        "explain", help="print the predicted trace of a scenario",
        description="Print the model's predicted trace of SCENARIO: a .toml or .json scenario "
                    f"file, a bundled scenario ({', '.join(bundled())}) or the name of a rule's "
                    "example.")
    explain.add_argument("scenario", metavar="SCENARIO",
                         help="a scenario file, a bundled scenario's name or an example's name")
    args = parser.parse_args(argv)
    try:
        scenario = resolve(args.scenario)
        trace = predict(scenario)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (Unbounded, Unspecified) as exc:
        print(f"error: {args.scenario}: no rule specifies this scenario ({type(exc).__name__}: {exc})",
              file=sys.stderr)
        return 2
    try:
        print(render(scenario, trace))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (| head): not an error of the scenario
        sys.stdout = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
