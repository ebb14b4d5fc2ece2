"""Writes a self-contained Python script that reproduces a scenario on one implementation."""

from __future__ import annotations

import json
from collections.abc import Iterator

from spec.model.codec import scenario_to_dict
from spec.model.functions import FORMS, FUNCS
from spec.model.scenario import Construct, Disable, Scenario, SetRaw
from spec.model.syntax import REFLECTED_METHODS
from spec.model.trace import Trace

from .declarations import Declarations
from .prelude import FOOTER, HELPERS, PREDICTION
from .trace import outcome_line


class ScriptWriter(Declarations):
    """Emits the script for one scenario: header, helpers, declarations, the set-up and call,
    and, given the model's prediction, the predicted outcome to print last."""

    predicted: Trace | None = None

    def body(self) -> Iterator[str]:
        yield "def run():"
        if self.instances:
            yield f"    global {', '.join(self.obj(n) for n in self.instances)}"
        for name in self.instances:
            yield f"    {self.obj(name)} = {self.make_mode(name)}"
        indent = "    "
        for index, step in enumerate(self.sc.setup):
            yield f"{indent}with {self.step(step)}:"
            indent += "    "
            yield f'{indent}print(f"set-up step {index} entered: current={{label(current_mode())!r}}")'
        call = self.sc.call
        if call is None:
            yield f"{indent}return None"
            return
        counter = iter(range(1000))
        lines: list[str] = []
        args = [self.materialize(a, counter, lines) for a in call.args]
        kwargs = [(k, self.materialize(a, counter, lines)) for k, a in call.kwargs]
        expr = self.call(call.func, args, kwargs)
        lines.append(f"return in_new_thread(lambda: {expr})" if call.thread else f"return {expr}")
        yield f"{indent}try:"
        yield from (f"{indent}    {line}" for line in lines)
        yield f"{indent}finally:"
        yield f'{indent}    print(f"call settled: current={{label(current_mode())!r}}")'

    # -- the whole script ---------------------------------------------------------------

    def where(self) -> str:
        return f"adapter {self.impl}" if self.adapter_style else self.impl

    def title(self) -> Iterator[str]:
        """The script's docstring and the comment that says what it runs."""
        yield (f'"""Reproduces a tfmode-conformance scenario on {self.where()} '
               f'(generation {self.gen})."""')
        yield "# The scenario (spec.model.scenario_to_dict):"
        for key, value in scenario_to_dict(self.sc).items():
            yield f"#   {key}: {json.dumps(value)}"

    def header(self) -> Iterator[str]:
        yield from self.title()
        yield ""
        steps = self.sc.setup
        if self.predicted is not None:
            yield "import atexit"
        if any(isinstance(s, (SetRaw, Construct)) for s in steps):
            yield "import contextlib"
        if self.sc.call is not None and self.sc.call.thread:
            yield "import threading"
        if self.adapter_style:
            yield "import types as _types"
        yield "import warnings"
        yield ""
        if self.adapter_style:
            yield from self.adapter_header()
        else:
            yield from self.namespace_header()
        plain = [n for n, f in FUNCS.items() if f.path != "probe" and not f.method]
        methods = [n for n, f in FUNCS.items() if f.method]
        pairs = [f"({n!r}, torch.{n})" for n in plain]
        pairs += [f"({n!r}, Tensor.{n.removeprefix('Tensor.')})" for n in methods]
        yield ""
        yield ""
        yield "NAMES = {id(f): n for n, f in [" + ", ".join(pairs) + "]}"
        yield from self.form_names()
        yield f"MODE_NAMES = {tuple(m.name for m in self.sc.modes)!r}"
        form = FORMS.get(self.sc.call.func) if self.sc.call is not None else None
        # an operator's call of the right operand's reflected method is the syntax's own
        reflected = sorted(f"Tensor.{m}" for m in REFLECTED_METHODS) if form and form.operator else []
        yield f"SYNTAX_CALLS = {tuple(reflected)!r}"

    def form_names(self) -> Iterator[str]:
        """The callables the call's form may hand its handlers, named as the runner names them
        (the first of each group); a property's getter is a new object at each lookup, so it
        is named by equality (GETTERS). Only a scenario written as a form names them."""
        form = FORMS.get(self.sc.call.func) if self.sc.call is not None else None
        methods: list[tuple[str, str]] = []
        getters: list[tuple[str, str]] = []
        for group in form.groups if form is not None else ():
            for handed in group:
                attr = handed.removeprefix("Tensor.")
                if attr.endswith(".__get__"):
                    getters.append((attr.removesuffix(".__get__"), group[0]))
                else:
                    methods.append((attr, group[0]))
        if methods:
            yield f"for _attr, _name in {methods!r}:"
            yield "    if hasattr(Tensor, _attr):"
            yield "        NAMES.setdefault(id(getattr(Tensor, _attr)), _name)"
        yield ("GETTERS = [(getattr(Tensor, _attr).__get__, _name) for _attr, _name in "
               f"{getters!r} if hasattr(Tensor, _attr)]")

    def namespace_header(self) -> Iterator[str]:
        yield f"import {self.impl} as torch"
        yield ""
        yield "Tensor = torch.Tensor"
        yield "TorchFunctionMode = torch.overrides.TorchFunctionMode"
        yield "BaseTorchFunctionMode = torch.overrides.BaseTorchFunctionMode"
        yield "DisableTorchFunction = torch._C.DisableTorchFunction"
        yield "disabled_torch_function_impl = torch._C._disabled_torch_function_impl"
        if self.sc.classes:
            yield "inner_call_guard = getattr(torch._C, 'DisableTorchFunctionSubclass', DisableTorchFunction)"
        if self.gen == "2022":
            yield "push_torch_function_mode = torch.overrides.push_torch_function_mode"
            yield "enable_torch_function_mode = torch.overrides.enable_torch_function_mode"
            yield ""
            yield ""
            yield "def current_mode():"
            yield "    return torch._C._get_torch_function_mode()"
            return
        if any(isinstance(s, Disable) and s.subclass_only for s in self.sc.setup):
            yield "DisableTorchFunctionSubclass = torch._C.DisableTorchFunctionSubclass"
        yield ""
        yield ""
        yield "def current_mode():"
        yield "    stack = torch.overrides._get_current_function_mode_stack()"
        yield "    return stack[-1] if stack else None"

    def adapter_header(self) -> Iterator[str]:
        yield "from conformance.adapter import load_adapter"
        yield ""
        yield f"ad = load_adapter({self.impl!r})"
        yield "Tensor = ad.Tensor"
        yield "TorchFunctionMode = ad.TorchFunctionMode"
        yield "BaseTorchFunctionMode = ad.BaseTorchFunctionMode"
        yield "disabled_torch_function_impl = ad.disabled_impl"
        yield "push_torch_function_mode = ad.push"
        yield "current_mode = ad.current_mode"
        yield "set_raw_mode = ad.set_raw"
        yield ""
        yield ""
        yield "def enable_torch_function_mode(mode, replace=None, ignore_preexisting=False):"
        yield "    return ad.enable(mode, replace, ignore_preexisting)"
        yield ""
        yield ""
        yield "def DisableTorchFunction():"
        yield "    return ad.disable()"
        yield ""
        yield ""
        yield "def DisableTorchFunctionSubclass():"
        yield "    return ad.disable(subclass_only=True)"
        yield ""
        yield ""
        yield "def inner_call_guard():"
        yield "    return ad.disable(subclass_only='disable-subclass' in ad.features)"
        yield ""
        yield ""
        probes = [n for n, f in FUNCS.items() if f.path == "probe"]
        yield "torch = _types.SimpleNamespace("
        yield "    tensor=ad.tensor,"
        for n, f in FUNCS.items():
            if f.path != "probe" and not f.method:
                yield f"    {n}=ad.func({n!r}),"
        yield "    overrides=_types.SimpleNamespace(" + ", ".join(
            f"{n}=lambda *a, _n={n!r}: ad.has_torch_function(_n, a)" for n in probes) + ","
        yield "        handle_torch_function=ad.func('handle_torch_function')),"
        yield ")"

    def prediction(self) -> Iterator[str]:
        if self.predicted is None:
            return
        yield ""
        yield ("# What the specification predicts, computed by its model when this script was "
               "written")
        yield "# (<type A>, <mode M> and <func f> stand for what the implementation names them):"
        yield f"PREDICTED = {outcome_line(self.predicted)!r}"
        yield from PREDICTION.splitlines()

    def script(self) -> str:
        lines = [*self.header(), *HELPERS.splitlines(), *self.extras(), *self.class_decls(),
                 *self.mode_decls(), *self.function_decls(), *self.prediction(), "", "",
                 *self.body(), *FOOTER.splitlines()]
        return "\n".join(lines) + "\n"


def snippet(scenario: Scenario, impl_spec: str, generation: str,
            predicted: Trace | None = None) -> str:
    """A runnable script that reproduces ``scenario`` on ``impl_spec`` and prints what it sees.

    ``impl_spec`` is a module name (the script imports it as ``torch``) or ``pkg.mod:ATTR``
    (the script drives the adapter). Each line printed corresponds to one event of the
    runner's trace (see :func:`conformance.snippet.describe`); an exception is printed and then
    re-raised. With ``predicted`` (the model's trace for the scenario) the script ends by
    printing the outcome it observed beside the predicted one, after any traceback.
    """
    writer = ScriptWriter(scenario, impl_spec, generation)
    writer.predicted = predicted
    return writer.script()
