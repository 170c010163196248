"""A ``Var`` that refuses Fraction data (TypeError), with add, mul, neg, sub, relu and log only."""

from tests.engines.audit_minimal import scalar_class

Var = scalar_class("Var", ops=("add", "mul", "neg", "sub", "relu", "log"), numbers="float_only")
Var.__module__ = __name__
