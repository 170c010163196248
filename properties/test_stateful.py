"""Interleaved building, backward() from any node and zeroing of leaves, against a sympy model."""

from hypothesis import settings

from autograd.testing.checks import stateful_machine

GradientMachine = stateful_machine()
GradientMachine.TestCase.settings = settings(settings.default, stateful_step_count=15)
TestGradientMachine = GradientMachine.TestCase
