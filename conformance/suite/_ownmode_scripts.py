"""The reproduction scripts of test_ownmodes' explicit tests (each printed with a failure)."""

from __future__ import annotations

_HANDLER = '''
neg = ad.func("neg")
inside = {}


def handler(self, func, types, args=(), kwargs=None):
    if func is neg:
        with ad.device_context("meta"):
            inside["block"] = (stack(), ad.device_of(ones(1)))
        inside["after block"] = (stack(), ad.device_of(ones(1)))
        ad.set_default_device("meta")
        return "handled"
    return func(*args, **(kwargs or {}))


G = type(ad.TorchFunctionMode)("G", (ad.TorchFunctionMode,), {"__torch_function__": handler})
with G():
    print("neg(x):", neg(ad.tensor([1.0])))
    print("in the handler:", inside, "- expected block ([device:meta], meta), after ([], cpu)")
    print("after the handler:", stack(), "- expected ['device:meta', 'G']")
print("after G's block:", stack(), "on", ad.device_of(ones(1)), "- expected ['device:meta'] on meta")
ad.set_default_device(None)
'''


_THREAD = '''
found = {}


def work():
    try:
        found["start"] = (stack(), ad.device_of(ones(1)))
        ad.set_default_device("meta")
        found["set"] = (stack(), ad.device_of(ones(1)))
        with ad.device_context("cpu"):
            found["block"] = ad.device_of(ones(1))
        ad.set_default_device(None)
        found["cleared"] = (stack(), ad.device_of(ones(1)))
    except Exception as exc:
        found["raised"] = repr(exc)


ad.set_default_device("meta")
worker = threading.Thread(target=work)
worker.start()
worker.join()
print("the second thread:", found)
print("expected: start ([], cpu), set (['device:meta'], meta), block cpu, cleared ([], cpu)")
print("the main thread:", stack(), ad.device_of(ones(1)), "- expected ['device:meta'] meta")
ad.set_default_device(None)
'''


_INSIDE_BLOCK = '''
with ad.device_context("cpu"):
    ad.set_default_device("meta")
print("after the block:", stack(), "ones(1) on", ad.device_of(ones(1)),
      "get_default_device()", ad.default_device(), "- expected ['device:meta'], meta, meta")
ad.set_default_device(None)
print("after set_default_device(None):", stack(), "ones(1) on", ad.device_of(ones(1)),
      "- expected [], cpu")
'''


_DEFAULT = '''
def both(label):
    print(label, "- get_default_device():", ad.default_device(), "- ones(1) on:", ad.device_of(ones(1)))


both("initially")
with ad.device_context("meta"):
    both("in with device('meta')")
    with ad.device_context("cpu"):
        both("nested with device('cpu')")
ad.set_default_device("meta")
both("after set_default_device('meta')")
with user("U"):
    both("in a user mode's block")
ad.set_default_device(None)
both("after set_default_device(None)")
'''
