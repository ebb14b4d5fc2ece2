"""Not an attack: mean raises ValueError. What every wire_* run is compared with."""

from tests.hostile._base import mean_raises
from tests.mutants._build import install

install(__name__, "-", "mean raises ValueError", (mean_raises(),))
