"""An exact engine whose mul sends back 1% too much gradient: a real defect for the audit to find."""

from fractions import Fraction

from tests.engines.audit_minimal import scalar_class

Value = scalar_class("Value", wrong=("mul", Fraction(101, 100)))
Value.__module__ = __name__
