"""tfmdocs: the Sphinx extension that renders the specification from the repository at build time.

Directives
    ``tfm-area``               one area page: every rule with its anchor (``id="TFM_X_NNN"``),
                               level, generations, statement, rationale, evidence, uncertainty,
                               doctested example and the tests that carry its marker
    ``tfm-rule-table``         every rule in one table
    ``tfm-area-toctree``       the area pages, in the catalogue's order
    ``tfm-figure``             a drawn figure (``dispatch-order``, ``push-enable``)
    ``tfm-sequence``           the model's sequence diagram of a scenario file
    ``tfm-trace``              the model's predicted trace of a scenario file, with rules
    ``tfm-functions``          the overridable functions the model knows
    ``tfm-adapter-members``    the Adapter protocol's members, each of which must be described
    ``tfm-include-if-exists``  include a file that a later step may generate
    ``tfm-options``            the conformance plugin's pytest options
    ``tfm-profiles``           the hypothesis settings profiles
    ``tfm-certificate-schema`` every field of certificate.json, from its JSON Schema
    ``tfm-certificate-example`` a certificate, checked against the schema
    ``tfm-command``            ``python -m ...`` run at build time, shown with its output
    ``tfm-texts``              the error and warning texts per release, exactly as required
    ``tfm-namespace-contract`` the names a namespace exposes per generation, and the features
    ``tfm-compiled``           torch.compile against eager: the compiled fraction and each
                               divergence with its rule, reason and snippet
Roles
    ``:rule:``                 a rule ID, linked to its anchor
    ``:tfm-opt:``              a command-line option, checked against the conformance plugin
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from . import compiled, contract, data, misc, model, rules, suite, texts
from .nodes import skip, tfm_svg, tfm_text, visit_tfm_svg_html, visit_tfm_text_html


def _builder_inited(app: Sphinx) -> None:
    data.check(app)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("tfm_repository_root", str(Path(app.confdir).parent), "env", str)
    app.add_config_value("tfm_scenario_format_doc", "explain", "env", str)

    app.add_node(
        tfm_svg,
        html=(visit_tfm_svg_html, None),
        latex=(skip, None),
        text=(skip, None),
        man=(skip, None),
        texinfo=(skip, None),
    )
    app.add_node(tfm_text, html=(visit_tfm_text_html, None))
    app.add_directive("tfm-area", rules.AreaDirective)
    app.add_directive("tfm-rule-table", rules.RuleTableDirective)
    app.add_directive("tfm-area-toctree", rules.AreaToctreeDirective)
    app.add_directive("tfm-figure", model.FigureDirective)
    app.add_directive("tfm-sequence", model.SequenceDirective)
    app.add_directive("tfm-trace", model.TraceDirective)
    app.add_directive("tfm-functions", model.FunctionsDirective)
    app.add_directive("tfm-adapter-members", misc.AdapterMembersDirective)
    app.add_directive("tfm-include-if-exists", misc.IncludeIfExistsDirective)
    app.add_directive("tfm-options", suite.OptionsDirective)
    app.add_directive("tfm-profiles", suite.ProfilesDirective)
    app.add_directive("tfm-certificate-schema", suite.CertificateSchemaDirective)
    app.add_directive("tfm-certificate-example", suite.CertificateExampleDirective)
    app.add_directive("tfm-command", suite.CommandDirective)
    app.add_directive("tfm-texts", texts.TextsDirective)
    app.add_directive("tfm-namespace-contract", contract.NamespaceContractDirective)
    app.add_directive("tfm-compiled", compiled.CompiledDivergencesDirective)
    app.add_role("rule", rules.rule_role)
    app.add_role("tfm-opt", misc.option_role)

    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", data.outdated)
    app.connect("env-purge-doc", data.purge)
    app.connect("env-purge-doc", misc.purge_options)
    app.connect("env-merge-info", data.merge)
    app.connect("env-merge-info", misc.merge_options)
    app.connect("env-check-consistency", misc.check_options)
    app.connect("doctree-read", model.check_format_page)
    app.connect("doctree-resolved", misc.check_markup)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
