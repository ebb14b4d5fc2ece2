"""How many scenarios of a certification reach the Python path with two or more candidates.

A certification (``--certify``) checks the generated scenarios of eight chunks, each drawn from
its own seed, plus the explicit examples. This module draws exactly those scenarios (by running
the sweep with the check replaced by a recorder: no implementation is needed), predicts each
with the model, and counts the ones in which a handler on the Python path
(``handle_torch_function``: ``split`` or a function the scenario defines) sees two or more
overloaded types. ``python -m tests.quality.python_path`` writes the counts the docs show to
``docs/_generated/python-path.rst``; ``--check`` says whether the committed file is current.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import hypothesis
from hypothesis import settings

from conformance.search import sweep as sweep_module
from conformance.session.profiles import register
from conformance.suite.test_generated import CHUNKS
from spec.examples import load_examples
from spec.model import Scenario, Unbounded, Unspecified, predict
from spec.model.functions import info_of
from spec.model.scenario import Generation
from spec.model.trace import HandlerRun

OUTPUT = Path("docs", "_generated", "python-path.rst")
#: The features of the generations' usual implementations (reference_impl; torch 2.x).
FEATURES: dict[Generation, frozenset[str]] = {
    "2022": frozenset({"python-path", "subclass-as-mode", "raw-slot"}),
    "stack": frozenset({"python-path", "disable-subclass"}),
}


class _Recorder:
    """Stands in for an implementation: the sweep only reads its features."""

    def __init__(self, generation: Generation) -> None:
        self.features = FEATURES[generation]
        self.generation = generation


def reaches(scenario: Scenario) -> bool:
    """Whether a handler on the Python path sees two or more types in the predicted trace."""
    try:
        trace = predict(scenario)
    except (Unbounded, Unspecified):
        return False
    return any(isinstance(e, HandlerRun) and info_of(e.func).path == "python" and len(e.types) >= 2
               for e in trace.events)


def generated(generation: Generation, profile: str = "certify") -> list[Scenario]:
    """The scenarios a run with ``profile`` draws for ``generation`` (no seed given)."""
    register()
    drawn: list[Scenario] = []

    def record(scenario: Scenario, *_: Any, **__: Any) -> None:
        drawn.append(scenario)

    original, previous = sweep_module.check, getattr(settings, "_current_profile", None)
    sweep_module.check = record
    settings.load_profile(profile)
    try:
        per_chunk = -(-settings().max_examples // CHUNKS)
        for chunk in range(CHUNKS):
            sweep_module.run_sweep(_Recorder(generation), generation,  # type: ignore[arg-type]
                                   per_chunk, chunk=chunk)
    finally:
        sweep_module.check = original
        settings.load_profile(previous or "default")
    return drawn


def counts() -> dict[str, tuple[int, int]]:
    """``(reaching, total)`` for each generation's generated scenarios and explicit examples."""
    out: dict[str, tuple[int, int]] = {}
    generations: tuple[Generation, ...] = ("2022", "stack")
    for generation in generations:
        drawn = generated(generation)
        out[f"generated-{generation}"] = (sum(map(reaches, drawn)), len(drawn))
        examples = [e.scenario for e in load_examples() if e.scenario.generation == generation]
        out[f"examples-{generation}"] = (sum(map(reaches, examples)), len(examples))
    return out


def render(found: dict[str, tuple[int, int]]) -> str:
    rows = [("generated scenarios (``--certify``)", "generated"), ("explicit examples", "examples")]
    lines = [f"Counted with hypothesis {hypothesis.__version__}; the scenarios a seed draws vary a "
             "little from one hypothesis release to another.", "",
             ".. list-table::", "   :header-rows: 1", "   :widths: 40 30 30", "",
             "   * - scenarios", "     - 2022 generation", "     - stack generation"]
    for label, key in rows:
        lines.append(f"   * - {label}")
        for generation in ("2022", "stack"):
            hit, total = found[f"{key}-{generation}"]
            lines.append(f"     - {hit} of {total}")
    return "\n".join(lines) + "\n"


def committed(root: Path) -> dict[str, tuple[int, int]]:
    """The counts the committed table shows, in the order :func:`render` writes them."""
    text = (root / OUTPUT).read_text(encoding="utf-8")
    pairs = [(int(a), int(b)) for a, b in re.findall(r"- (\d+) of (\d+)", text)]
    keys = [f"{row}-{gen}" for row in ("generated", "examples") for gen in ("2022", "stack")]
    return dict(zip(keys, pairs, strict=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.quality.python_path")
    parser.add_argument("--check", action="store_true", help="only say whether the file is current")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args(argv)
    text = render(counts())
    path = args.root / OUTPUT
    if args.check:
        current = path.exists() and path.read_text(encoding="utf-8") == text
        print(f"{OUTPUT}: {'current' if current else 'outdated'}")
        return 0 if current else 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
