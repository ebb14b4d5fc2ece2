"""What the model predicts an implementation raises."""

from __future__ import annotations

from .trace import Message

__all__ = ["ModelRaise"]


class ModelRaise(Exception):
    """An exception the model predicts the implementation raises."""

    def __init__(self, exc_type: str, message: Message, rules: tuple[str, ...],
                 declined_at: int | None = None, if_returned: tuple[str, ...] = ()) -> None:
        super().__init__(exc_type, message.render())
        self.exc_type, self.message, self.rules = exc_type, message, rules
        #: The call depth of a dispatch whose handlers all declined (``None``: another error).
        self.declined_at = declined_at
        #: The rules a call that returns a value instead breaks (``Raised.if_returned``).
        self.if_returned = if_returned
