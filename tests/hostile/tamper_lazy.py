"""Hostile: ``mean`` raises, but first replaces the sandbox child's request resolver (the first
time it is called), so that every later request runs on an honest reference_impl: the forgery
comes after the import, inside a scenario, where no check at load time can see it."""

from tests.hostile._base import mean_raises
from tests.mutants._build import install

install(__name__, "-", "mean forges the child's resolver, then raises",
        (mean_raises('    __import__("tests.hostile._tamper", fromlist=["_"]).forge_resolver()\n'),))
