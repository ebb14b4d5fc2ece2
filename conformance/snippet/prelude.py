"""The fixed text of a reproduction script: the helpers every script defines, and the optional
pieces (a call in a new thread, the raw mode slot, scenario-defined functions) and the footer."""

from __future__ import annotations

#: What every script defines: the handlers' exception, how functions and objects are named,
#: what a handler prints, how a result is shown, how a warning is printed.
HELPERS = '''
class HandlerError(Exception):
    """What the scenario's "raise" actions raise."""


def name_of(func):
    name = NAMES.get(id(func))
    if name is None:  # a property's getter, equal to (not the same object as) the named one
        name = next((n for getter, n in GETTERS if getter == func), None)
    return f"?{getattr(func, '__name__', func)!s}" if name is None else name


def function_name(func):
    """A callable as the namespace spells it: Tensor.size, Tensor.shape.__get__, tensor,
    ops.profiler._record_function_enter_new (an operator of torch.ops)."""
    if not callable(func):
        return f"<{type(func).__name__}>"
    name = getattr(func, "__name__", None)
    module = getattr(func, "__module__", None)
    if isinstance(module, str) and module.startswith("torch._ops."):
        return f"ops.{module[len('torch._ops.'):]}.{name}"
    owner = getattr(func, "__self__", None)
    if name in ("__get__", "__set__") and isinstance(getattr(owner, "__name__", None), str):
        return f"Tensor.{owner.__name__}.{name}"
    qualname = getattr(func, "__qualname__", None) or str(name)
    holder, _, rest = qualname.rpartition(".")
    if not holder or holder.startswith("_VariableFunctions"):
        return rest
    return f"Tensor.{rest}" if holder in ("TensorBase", "_TensorBase", "Tensor") else qualname


#: The suite's own code that is running (building the call's tensors, a function's kernel):
#: a call it makes is the program's, not the implementation's.
MAKING = []
HANDED = set()


def handed(who, role, func):
    """A call of a function outside the scenario's, which the handler lets through: printed
    once per handler and function, unless the suite's own code or the syntax made it."""
    if MAKING or function_name(func) in SYNTAX_CALLS or (who, function_name(func)) in HANDED:
        return
    HANDED.add((who, function_name(func)))
    print(f"handler {who} ({role}) handed {function_name(func)}: a call the scenario did not make")


def label(obj):
    """How the trace names an object: a scenario mode or class by its name, the base mode as <base>."""
    if obj is None:
        return None
    if type(obj) is BaseTorchFunctionMode:
        return "<base>"
    if isinstance(obj, type):
        return obj.__name__
    if type(obj).__name__ in MODE_NAMES:
        return type(obj).__name__
    return f"?{obj!r}"


#: A handler's default for kwargs: it was called with three arguments, not with None as a fourth.
NOT_PASSED = object()


def seen(who, role, func, types, passed, bound=None):
    """Print what a handler sees (passed: its fourth argument, or NOT_PASSED)."""
    names = tuple(getattr(t, "__name__", repr(t)) for t in types)
    if passed is NOT_PASSED:
        keys = None
    else:
        keys = ("=None",) if passed is None else tuple(sorted(passed))
    line = (f"handler {who} ({role}) for {name_of(func)}: types={names!r}, kwargs={keys!r}, "
            f"current={label(current_mode())!r}")
    print(line if bound is None else f"{line}, bound to {bound}")


def constructed(self, name, args, kwargs):
    inner = getattr(self, "inner", ABSENT)
    shown = "-" if inner is ABSENT else label(inner)
    print(f"constructed {name}: inner={shown!r}, {len(args) + len(kwargs)} argument(s)")


def plus_equals(target, other):
    """`target += other`, as an expression."""
    target += other
    return target


def set_item(target, index, value):
    """`target[index] = value`, as an expression (a statement's value: None)."""
    target[index] = value


def flat(values):
    return [x for v in values for x in flat(v)] if isinstance(values, list) else [values]


def observe(value):
    if isinstance(value, Tensor):
        with DisableTorchFunction():
            data = [float(x) for x in flat(value.tolist())]
        return f"{type(value).__name__ if type(value) is not Tensor else 'Tensor'}({data})"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(observe(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    return f"?{type(value).__name__}"


def warned(message, category, *rest, **kwargs):
    print(f"warning {category.__name__}: {message}")


ABSENT = object()
IDENTS = {}
'''

#: A call made in a new thread (``Call.thread``).
THREAD = '''

def in_new_thread(call):
    """Make the call in a new thread; its exception, if any, is raised here."""
    box = {}

    def target():
        try:
            box["result"] = call()
        except Exception as exc:
            box["error"] = exc

    worker = threading.Thread(target=target, name="tfmode-scenario")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")
'''

#: ``_set_torch_function_mode`` as a context manager, for a namespace (an adapter has set_raw).
SET_RAW_NS = '''

@contextlib.contextmanager
def set_raw_mode(obj):
    """_set_torch_function_mode(obj), setting the previous object back on exit."""
    old = torch._C._get_torch_function_mode()
    torch._C._set_torch_function_mode(obj)
    try:
        yield
    finally:
        torch._C._set_torch_function_mode(old)
'''

#: What the scenario's own Python functions compute.
ADD_UP = '''

def add_up(*values):
    """What the scenario's functions compute: their tensors added up (None: they have none)."""
    items = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
    rows = []
    for x in items:
        if isinstance(x, Tensor):
            with DisableTorchFunction():
                rows.append([float(y) for y in x.tolist()])
    if not rows:
        return None
    MAKING.append("kernel")
    try:
        return torch.tensor([sum(col) for col in zip(*rows)])
    finally:
        MAKING.pop()
'''

#: Runs the scenario: prints its outcome and the mode left current, re-raises its exception.
FOOTER = '''

warnings.simplefilter("always")
warnings.showwarning = warned
try:
    OUTCOME = f"returned {observe(run())}"
    print(OUTCOME)
except Exception as exc:
    OUTCOME = f"raised {type(exc).__name__}: {exc}"
    print(OUTCOME)
    raise
finally:
    print(f"current mode afterwards: {label(current_mode())!r}")
'''

#: With a prediction (``PREDICTED``, written into the script): the observed outcome and the
#: predicted one are printed last, once the interpreter has shown any traceback.
PREDICTION = '''

OUTCOME = "(none: the script stopped before the call ended)"


def outcome_and_prediction():
    print(f"observed outcome:           {OUTCOME}")
    print(f"the specification predicts: {PREDICTED}")


atexit.register(outcome_and_prediction)
'''
