"""The frameworks' elementwise functions, audited through their adapters: each function an adapter
maps is a method of the scalar class, identified by its values against the catalogue, and judged
there; a planted wrong derivative and an overflow at an edge are found with the right function."""

import pytest
import torch

from autograd.testing import resolve_engine, run_check
from autograd.testing.adapters import TorchFloat64
from autograd.testing.adapters.jax import JAX_FUNCTIONS, jax_float64
from autograd.testing.adapters.mygrad import MYGRAD_FUNCTIONS, mygrad_float64
from autograd.testing.adapters.pytorch import torch_float64, torch_functions
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.identify import extra_ops

FRAMEWORKS = {
    "torch": (torch_float64, torch_functions(torch)),
    "jax": (jax_float64, JAX_FUNCTIONS),
    "mygrad": (mygrad_float64, MYGRAD_FUNCTIONS),
}


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_every_function_an_adapter_maps_is_an_extra_op_of_its_scalar_class(name):
    adapter, functions = FRAMEWORKS[name]
    found = {op.method for op in extra_ops(resolve_engine(adapter=adapter))}
    assert set(functions) <= found, sorted(set(functions) - found)


class _WrongSinDerivative(torch.autograd.Function):
    """sin with d/dx cos(x) * (1 + 1e-6): wrong at every ordinary point, by a millionth."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.cos(x) * (1 + 1e-6)


class _PlantedTorch(TorchFloat64):
    """PyTorch with two functions planted: sin's derivative off by a millionth, and softplus as
    log(1 + exp(x)), which overflows to inf far before its value (x itself, nearly) does."""

    name = "torch with a wrong sin derivative and a naive softplus"

    @property
    def ops(self):
        return {
            "sin": _WrongSinDerivative.apply,
            "softplus": lambda x: torch.log(1 + torch.exp(x)),
            "cos": torch.cos,
        }


@pytest.mark.slow
def test_a_planted_wrong_derivative_and_an_overflow_at_an_edge_are_found_where_they_are():
    eng = resolve_engine(adapter=_PlantedTorch())
    identified = {op.method: op.known for op in extra_ops(eng)}
    assert (identified["sin"], identified["softplus"], identified["cos"]) == ("sin", "softplus", "cos")
    extra = run_check("extra_ops", eng, examples=10)
    wrong = [f for f in extra.findings if f.kind in DEFECT_KINDS]
    assert {(f.kind, f.op) for f in wrong} == {("wrong_gradient", "sin~sin")}, [f.summary for f in wrong]
    assert all(f.severity.label == "wrong" and f.severity.point == "ordinary" for f in wrong)
    edges = run_check("edge_points", eng)
    defects = [f for f in edges.findings if f.kind in DEFECT_KINDS]
    # (and PyTorch's own: 0 / x at 5e-324 is nan, through the reciprocal)
    assert {f.op for f in defects} == {"sin~sin", "softplus~softplus", "rdiv"}, [f.summary for f in defects]
    overflow = [f for f in defects if f.op == "softplus~softplus"]
    # log(1 + exp(x)) is inf from x = 709.8 on, where softplus(x) is x to the last digit (and 0 where
    # 1 + exp(x) rounds to 1: at the underflow threshold, where softplus(x) is exp(x))
    (value,) = [f for f in overflow if f.kind == "wrong_value"]
    assert "x.softplus() at x = 1e+20: value inf, expected 1e+20" in value.summary
    assert all(f.severity.label == "wrong" for f in overflow)
