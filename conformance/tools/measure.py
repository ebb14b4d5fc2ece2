"""Measure an implementation's error and warning texts: the TEXT examples, run and recorded.

``python -m conformance texts --impl MODULE`` runs every text example of the implementation's
generation (whatever torch version the example is about) and writes what the implementation
raised and warned, as shipped and as a template in which the scenario's objects are named
(``{type Sub}``, ``{mode M}``). It predicts nothing and judges nothing: its output is the
measurement from which a release's entries in the texts table are written and checked.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from typing import Any

from spec.examples import Example, load_examples
from spec.model.trace import Raised, WarningEmitted

from ..judge.check import Target, observe
from ..judge.compare import Naming

#: Seconds one text example may take (the first torch call may load a lot).
EXAMPLE_SECONDS = 20.0


def template(text: str, naming: Naming) -> str:
    """``text`` with each scenario object's printed form replaced by ``{kind name}``.

    Longer printed forms are replaced first, so a type's repr inside a mode's repr stays whole.
    """
    for (kind, name), shown in sorted(naming.items(), key=lambda item: -len(item[1])):
        if shown:
            text = text.replace(shown, "{" + f"{kind} {name}" + "}")
    return text


def text_examples(generation: str, examples: Sequence[Example] | None = None) -> list[Example]:
    """The examples of the TEXT rules that a ``generation`` implementation can run."""
    chosen = load_examples() if examples is None else tuple(examples)
    return [e for e in chosen
            if any(r.startswith("TFM_TEXT_") for r in e.rules) and e.scenario.generation == generation]


def measure(adapter: Target, examples: Sequence[Example] | None = None) -> dict[str, Any]:
    """Run the text examples on ``adapter``; a JSON-ready record of every text it produced."""
    records: list[dict[str, Any]] = []
    for example in text_examples(adapter.generation, examples):
        try:
            trace, naming, leaked = observe(example.scenario, adapter, EXAMPLE_SECONDS)
        except Exception as exc:  # a crash or hang is recorded, not fatal to the other examples
            records.append({"example": example.name, "rules": list(example.rules),
                            "fault": f"{type(exc).__name__}: {exc}"})
            continue
        warnings = [{"category": e.category, "text": e.message.render(),
                     "template": template(e.message.render(), naming)}
                    for e in trace.events if isinstance(e, WarningEmitted)]
        record: dict[str, Any] = {"example": example.name, "rules": list(example.rules),
                                  "raised": None, "warnings": warnings}
        if isinstance(trace.outcome, Raised):
            text = trace.outcome.message.render()
            record["raised"] = {"type": trace.outcome.exc_type, "text": text,
                                "template": template(text, naming)}
        if leaked:
            record["leaked"] = list(leaked)
        records.append(record)
    return {"implementation": adapter.name, "release": getattr(adapter, "release", None),
            "generation": adapter.generation, "python": platform.python_version(),
            "texts": records}
