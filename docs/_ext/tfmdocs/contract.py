"""``.. tfm-namespace-contract::`` — the names a torch-like namespace exposes, per generation, and
the optional features with how each is detected, rendered from ``conformance.target.namespace``: the
tables the adapter checks, so the page cannot say anything else."""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from . import data as tfm_data
from .inline import inline
from .rules import _table

TITLES = {"2022": "The 2022 generation", "stack": "The stack generation"}


def _name(path: str) -> nodes.literal:
    return nodes.literal(path, path, classes=["tfm-contract-name"])


class NamespaceContractDirective(SphinxDirective):
    """One section per generation (its module-level names, then its Tensor methods, each with
    whether it is required and what the suite does with it), then the optional features."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from conformance.target import namespace as contract

        tfm_data.note_generated(self.env)
        self.env.note_dependency(contract.__file__ or "")
        by_feature = {path: f.name for f in contract.FEATURES for path in f.names}
        out: list[nodes.Node] = []
        for generation in contract.GENERATIONS:
            section = nodes.section(ids=[f"contract-{generation}"],
                                    names=[f"contract {generation}"])
            section += nodes.title(text=TITLES[generation])
            own = contract.required(generation)
            intro = nodes.paragraph()
            intro += nodes.Text("A module is of this generation when it has every name marked "
                                "“required, tells the generation” below (")
            for i, path in enumerate(own):
                intro += nodes.Text(", " if i else "")
                intro += nodes.literal(path, path)
            intro += nodes.Text(").")
            section += intro
            for methods, heading in ((False, "Module-level names"), (True, "Tensor methods")):
                rows = []
                for name in contract.names_for(generation, methods=methods):
                    status = name.status(generation)
                    needed: str = status or ""
                    if status == "required" and name.path in own:
                        needed = "required, tells the generation"
                    elif status == "optional" and name.path in by_feature:
                        needed = f"optional: feature {by_feature[name.path]}"
                    rows.append([[_name(name.path)], [nodes.Text(needed)],
                                 inline(name.meaning, self.env.docname)])
                section += nodes.rubric(heading, heading, classes=["tfm-rubric"])
                section += _table([30, 16, 54], ["name", "needed", "what the suite does with it"],
                                  rows, ["tfm-contract", f"tfm-contract-{generation}"])
            out.append(section)

        section = nodes.section(ids=["contract-features"], names=["contract features"])
        section += nodes.title(text="Optional features")
        rows = []
        for feature in contract.FEATURES:
            rows.append([[nodes.literal(feature.name, feature.name,
                                        classes=["tfm-contract-feature"])],
                         [nodes.Text(", ".join(feature.generations))],
                         inline(feature.meaning, self.env.docname),
                         inline(contract.detection(feature), self.env.docname)])
        section += _table([16, 12, 36, 36],
                          ["feature", "generations", "what it is", "how it is detected"], rows,
                          ["tfm-contract", "tfm-contract-features"])
        out.append(section)
        return out
