"""Hostile: mean writes an extra reply to the request in flight (well-formed, with its id, in
the sandbox's frame format) to the reply pipe, then raises."""

from tests.hostile._base import CALL, mean_raises
from tests.mutants._build import install

install(__name__, "-", "mean writes an extra reply", (mean_raises(CALL.format("extra_reply")),))
