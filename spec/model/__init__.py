"""The executable model: scenarios in, predicted traces out."""

from .codec import load_scenario, scenario_from_dict, scenario_to_dict
from .limits import Unbounded, Unspecified
from .prediction import predict
from .raising import ModelRaise
from .scenario import Scenario
from .trace import Trace
from .validate import ScenarioError

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
