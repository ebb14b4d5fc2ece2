"""Hostile: mean writes eight bytes of garbage to the reply pipe, then raises."""

from tests.hostile._base import CALL, mean_raises
from tests.mutants._build import install

install(__name__, "-", "mean writes garbage to the reply pipe", (mean_raises(CALL.format("garbage")),))
