"""The errors and warnings the rules specify, as messages built from the texts of a release.

The texts themselves are data (:mod:`spec.texts`); this module fills in the parts that name
the scenario's objects, and tags each part with the rule that decides it: the words with the
TEXT rule of their kind, a type's or a mode's repr with the rule that says it is shown. A text
the table does not establish for the release becomes one part that matches any text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from spec.texts import TextTable, load_texts

from .limits import Unspecified
from .trace import Message, MessagePart, Ref

__all__ = ["TextAbsent", "Texts", "already_active", "classmethod_not_callable", "concat", "enable_bad_type",
           "multiple_dispatch_failed", "no_implementation", "push_instance", "ref"]

_PLACEHOLDER = re.compile(r"\{([a-z]+)\}")


class TextAbsent(Unspecified):
    """The release has no such error or warning (the model does not specify the scenario there)."""


def ref(kind: str, name: str, *rules: str) -> Message:
    """One part naming a scenario object (``kind`` as :class:`Ref` has it), decided by ``rules``."""
    return Message((Ref(kind, name),), (rules,))  # type: ignore[arg-type]


def concat(*messages: Message) -> Message:
    parts: list[MessagePart] = []
    rules: list[tuple[str, ...]] = []
    for message in messages:
        parts.extend(message.parts)
        rules.extend(message.rules_for(i) for i in range(len(message.parts)))
    return Message(tuple(parts), tuple(rules))


@dataclass(frozen=True)
class Texts:
    """The texts of one release (its key in the table, e.g. ``"1.12"`` or ``"pr75154"``)."""

    release: str | None
    table: TextTable = field(default_factory=load_texts, compare=False)

    def known(self, kind: str) -> bool:
        return self.table.status(kind, self.release) == "text"

    def message(self, kind: str, **fills: Message) -> Message:
        """The text of ``kind`` with its ``{placeholders}`` filled in; any text where unknown."""
        status = self.table.status(kind, self.release)
        if status == "absent":
            raise TextAbsent(f"release {self.release} has no {kind} text")
        text = self.table.text(kind, self.release)
        if text is None:
            return Message((Ref("text", kind),), ((),))
        rule = self.table.kinds[kind].rule
        pieces: list[Message] = []
        for i, piece in enumerate(_PLACEHOLDER.split(text)):
            if i % 2:
                pieces.append(fills[piece])
            elif piece:
                pieces.append(Message((piece,), ((rule,),)))
        return concat(*pieces)


def _types_list(types: tuple[str, ...]) -> Message:
    parts: list[MessagePart] = ["["]
    for i, name in enumerate(types):
        if i:
            parts.append(", ")
        parts.append(Ref("type", name))
    parts.append("]")
    return Message(tuple(parts), (("TFM_ERROR_004",),) * len(parts))


def no_implementation(texts: Texts, func: str, types: tuple[str, ...], mode: str | None, *,
                      python: bool) -> Message:
    """The TypeError when every handler declined, in the 'no implementation found' form: the
    function named by TFM_ERROR_001/003, the types by TFM_ERROR_004, the mode by 002/003."""
    names = "TFM_ERROR_003" if python else "TFM_ERROR_001"
    message = texts.message("no-implementation-python" if python else "no-implementation-native",
                            func=ref("func", func, names), types=_types_list(types))
    if mode is None:
        return message
    kind, shown = (("python-mode-suffix", "TFM_ERROR_003") if python
                   else ("native-mode-suffix", "TFM_ERROR_002"))
    return concat(message, texts.message(kind, mode=ref("mode", mode, shown)))


def multiple_dispatch_failed(texts: Texts, func: str, types: tuple[str, ...], mode: str | None) -> Message:
    """TFM_STACK_012: the 'Multiple dispatch failed' form, one line for the mode and per type."""
    lines = [texts.message("multiple-dispatch-mode-line", mode=ref("mode", mode, "TFM_STACK_012"))
             ] if mode is not None else []
    lines += [texts.message("multiple-dispatch-subclass-line", type=ref("type", name, "TFM_ERROR_004"))
              for name in types]
    return texts.message("multiple-dispatch-failed", func=ref("func", func, "TFM_STACK_012"),
                         handlers=concat(*lines))


def already_active(texts: Texts, old: str, *, target_is_mode: bool, rule: str) -> Message:
    """TFM_ENABLE_003/004 (``rule``): enabling over another mode."""
    help_text = texts.message("enable-help-push" if target_is_mode else "enable-help-ignore")
    return texts.message("enable-already-active", mode=ref("mode", old, rule), help=help_text)


def push_instance(texts: Texts, mode: str) -> Message:
    """TFM_PUSH_005."""
    return texts.message("push-instance", mode=ref("mode", mode, "TFM_PUSH_005"))


def enable_bad_type(texts: Texts, target: str) -> Message:
    """TFM_ENABLE_008: ``target`` is ``@class:M`` (a mode class) or ``@object``."""
    shown = "@meta" if target.startswith("@class:") else "@object"
    return texts.message("enable-bad-type", type=ref("type", shown, "TFM_ENABLE_008"))


def classmethod_not_callable() -> Message:
    """TFM_PUSH_010: the 2022 metaclass wrapper calls a classmethod object. The text is
    Python's own (the same on 3.10 to 3.13), not a torch release's, so it is not in the table."""
    return Message(("'classmethod' object is not callable",), (("TFM_PUSH_010",),))


def plain(text: str) -> Message:
    return Message((text,))
