"""The conformance suite: drive any torch-like namespace, compare with the model, certify."""

__version__ = "0.1.0"
