"""The executable model: scenarios in, predicted traces out."""

from .codec import ScenarioError, load_scenario, scenario_from_dict, scenario_to_dict
from .engine import predict
from .limits import Unbounded, Unspecified
from .raising import ModelRaise
from .scenario import Scenario
from .trace import Trace

__all__ = [
    "ModelRaise",
    "Scenario",
    "ScenarioError",
    "Trace",
    "Unbounded",
    "Unspecified",
    "load_scenario",
    "predict",
    "scenario_from_dict",
    "scenario_to_dict",
]
