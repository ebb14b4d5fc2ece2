"""Protocol warnings are events; an implementation's own warnings are noise, counted, never compared."""

from __future__ import annotations

from collections import Counter

from conformance.target import noise

NUMPY = "Failed to initialize NumPy: No module named 'numpy' (Triggered internally at x.cpp:84.)"
NATIVE = ("Defining your `__torch_function__` as a plain method is deprecated and will be an error "
          "in future, please define it as a classmethod. (Triggered internally at y.cpp:359.)")


def test_the_protocol_warnings_are_told_from_noise() -> None:
    assert noise.is_protocol_warning(NATIVE)
    assert noise.is_protocol_warning("`Mode.push()` on a TorchFunctionMode is no longer necessary")
    assert noise.is_protocol_warning("your __torch_function__ misbehaves")
    assert not noise.is_protocol_warning(NUMPY)
    assert not noise.is_protocol_warning("torch.foo is deprecated, please use torch.bar")


def test_noise_is_counted_across_processes_by_first_line() -> None:
    noise.take()
    noise.note([("UserWarning", noise.first_line(NUMPY + "\nmore"))] * 2)
    taken = noise.take()
    assert noise.take() == "[]"
    total: Counter[tuple[str, str]] = Counter()
    noise.merge(total, taken)
    noise.merge(total, taken)
    assert noise.summary(total) == [{"category": "UserWarning", "message": NUMPY, "count": 4}]
