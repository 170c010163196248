"""Two defects at once, a wrong mul rule and a crash of d(x**0)/dx at 0: neither may hide the other."""

from fractions import Fraction

from tests.engines.audit_minimal import scalar_class

Value = scalar_class("Value", wrong=("mul", Fraction(101, 100)), pow_zero_crash=True)
Value.__module__ = __name__
