"""Checks single-bug variants of an installed implementation through the real command line
(conformance runs under the variant set's profile, never a ``--certify`` run).

A variant set names a target module (``torch.overrides``), the package to import
(``torch``), a control and the variants. A variant is data: an exact old text of the target's
installed file, which must occur there once, and the new text that replaces it. For each
variant, :func:`write_module` writes ``tfmode_variant_<name>.py`` into a temporary directory
(the text of :mod:`.runtime` and one call of its ``install``); :func:`run_variant` runs the suite
on ``--impl tfmode_variant_<name>`` in a subprocess with that directory on PYTHONPATH (the
suite's sandbox child inherits it), and :func:`classify` reads the certificate:

* ``killed``: at least one rule fails, or an expected failure is reported stale;
* ``survived``: a complete certificate without a failure;
* ``broken``: no certificate, an incomplete run, or a crash of the command itself. A broken
  run is never counted as killed.

A variant that makes more tests fail under a rule the expected failures already cover is not
killed (the rule's verdict is still ``expected_failure``), but the result lists such rules as
``masked_rules``: their failing tests differ from the control's.

Nothing is written into the installed package: the edit lives in the importing process only.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..cli import REPO, SuiteRun, run_suite
from . import runtime

Status = Literal["killed", "survived", "broken"]
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class VariantError(Exception):
    """A variant does not fit the installed file; the message is one line."""


@dataclass(frozen=True)
class Equivalence:
    """The variant is believed equivalent under the spec: ``rule`` allows it, for ``reason``."""

    rule: str
    reason: str


@dataclass(frozen=True)
class Variant:
    """One single-bug edit of the target module: ``old`` (exactly once) becomes ``new``."""

    name: str
    description: str
    old: str
    new: str
    equivalent_under: Equivalence | None = None
    #: The module this variant edits, when not the set's target (the breadth variants).
    target: str | None = None


@dataclass(frozen=True)
class VariantSet:
    """What to edit and import, the control (an edit that changes no behaviour), the variants,
    and how the suite runs (profile, seed, further options; paths relative to the repository)."""

    target: str
    package: str
    control: Variant
    variants: tuple[Variant, ...]
    profile: str | None = "dev"
    seed: str | None = "0"
    options: tuple[str, ...] = ()
    timeout: float = 900.0

    def select(self, names: Sequence[str] | None) -> list[Variant]:
        """The variants named (all when ``names`` is None), in the order asked."""
        if names is None:
            return list(self.variants)
        known = {v.name: v for v in self.variants}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise VariantError(f"no variant named {', '.join(unknown)} (known: {', '.join(known)})")
        return [known[n] for n in names]


@dataclass
class Result:
    """What the certificate of one variant says."""

    name: str
    description: str
    status: Status
    failed_rules: list[str]
    stale_expected_failures: list[str]
    seconds: float
    equivalent_under: Equivalence | None
    problem: str | None = None
    masked_rules: list[str] = field(default_factory=list)
    run: SuiteRun | None = field(default=None, repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        eq = self.equivalent_under
        return {"name": self.name, "description": self.description, "status": self.status,
                "failed_rules": self.failed_rules,
                "stale_expected_failures": self.stale_expected_failures,
                "masked_rules": self.masked_rules,
                "seconds": round(self.seconds, 1),
                "equivalent_under": None if eq is None else {"rule": eq.rule, "reason": eq.reason},
                "problem": self.problem}


def locate(target: str) -> Path:
    """The installed source file of module ``target``, found without importing anything."""
    parts = target.split(".")
    spec = importlib.util.find_spec(parts[0])
    for depth in range(2, len(parts) + 1):
        if spec is None or not spec.submodule_search_locations:
            spec = None
            break
        spec = importlib.machinery.PathFinder.find_spec(
            ".".join(parts[:depth]), list(spec.submodule_search_locations))
    if spec is None or spec.origin is None or not spec.has_location:
        raise VariantError(f"{target} is not installed as a Python source file")
    return Path(spec.origin)


def check(vset: VariantSet, variant: Variant) -> str:
    """The target's source with the variant's edit applied; VariantError if it does not apply."""
    if not _NAME.match(variant.name):
        raise VariantError(f"variant name {variant.name!r} is not lower_case_with_underscores")
    path = locate(variant.target or vset.target)
    try:
        return runtime.apply_edit(runtime.read_source(str(path)), variant.old, variant.new)
    except ValueError as exc:
        raise VariantError(f"variant {variant.name} does not apply to {path}: {exc}") from None


def module_name(variant: Variant) -> str:
    return f"tfmode_variant_{variant.name}"


def write_module(directory: Path, vset: VariantSet, variant: Variant) -> str:
    """Write the variant's importable module into ``directory``; return its name."""
    check(vset, variant)
    name = module_name(variant)
    text = Path(runtime.__file__).read_text(encoding="utf-8")
    call = (f"\n\ninstall(__name__, {variant.name!r}, {variant.target or vset.target!r}, "
            f"{vset.package!r},\n"
            f"        {variant.old!r},\n        {variant.new!r})\n")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.py").write_text(text + call, encoding="utf-8")
    return name


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[-1] if lines else "(no output)").replace(str(REPO), "<repo>")[:300]


def classify(run: SuiteRun) -> tuple[Status, list[str], list[str], str | None]:
    """(status, failed rules, stale expected failures, why the run is broken or None)."""
    cert = run.certificate
    if cert is None:
        return "broken", [], [], f"no certificate (exit {run.returncode}): {_one_line(run.output)}"
    failed, stale = run.failed(), list(cert.get("stale_expected_failures", []))
    if not cert["run"]["complete"]:
        problems = "; ".join(cert["run"]["problems"]) or "no reason given"
        return "broken", failed, stale, _one_line(f"incomplete run: {problems}")
    if run.returncode not in (0, 1):
        return "broken", failed, stale, f"exit {run.returncode}: {_one_line(run.output)}"
    return ("killed" if failed or stale else "survived"), failed, stale, None


def _expected_failures(run: SuiteRun | None) -> dict[str, set[str]]:
    rules = (run.certificate or {}).get("rules", {}) if run is not None else {}
    return {rule_id: {f["test"] for f in entry.get("failures", [])}
            for rule_id, entry in rules.items() if entry["verdict"] == "expected_failure"}


def masked(run: SuiteRun, control: SuiteRun | None) -> list[str]:
    """Rules still expected failures in ``run`` whose failing tests the control did not fail
    ([] without a control: the control's own run is the baseline)."""
    if control is None:
        return []
    before = _expected_failures(control)
    return sorted(rule_id for rule_id, tests in _expected_failures(run).items()
                  if tests - before.get(rule_id, set()))


def run_variant(vset: VariantSet, variant: Variant, workdir: Path,
                env_extra: dict[str, str] | None = None, control: SuiteRun | None = None) -> Result:
    """Write the variant's module under ``workdir`` and check it by a conformance run in a
    subprocess; ``control``
    (the control's run) tells which expected failures are new (``masked_rules``)."""
    modules = workdir / "modules"
    impl = write_module(modules, vset, variant)
    extra = [option.replace("{repo}", str(REPO)) for option in vset.options]
    run = run_suite(impl, workdir / variant.name, extra=extra, timeout=vset.timeout,
                    env_extra={**(env_extra or {}), "PYTHONPATH": str(modules)},
                    seed=vset.seed, profile=vset.profile)
    status, failed, stale, problem = classify(run)
    return Result(variant.name, variant.description, status, failed, stale, run.seconds,
                  variant.equivalent_under, problem, masked(run, control), run)


def run_all(vset: VariantSet, variants: Sequence[Variant], workdir: Path,
            report: Callable[[Result], None] = lambda result: None) -> tuple[Result, list[Result]]:
    """Check that every variant applies, then run the suite on the control and each variant in
    turn."""
    for variant in [vset.control, *variants]:
        check(vset, variant)
    control = run_variant(vset, vset.control, workdir)
    report(control)
    results = []
    for variant in variants:
        results.append(run_variant(vset, variant, workdir, control=control.run))
        report(results[-1])
    return control, results
