"""Slightly wrong copies of our engine, for the tests that check the checker (not a test module).

A wrong engine is a fresh copy of ``autograd/engine.py`` in which ONE rule's
contribution to every operand's gradient is multiplied by ``factor`` (the real
module is never touched).
"""

from fractions import Fraction
from pathlib import Path
from types import ModuleType

import autograd.engine
from autograd.testing import Graph, Node

# The engine rule behind each op of the table.
RULES = {
    "add": "_add_back", "mul": "_mul_back", "neg": "_neg_back", "sub": "_sub_back", "div": "_div_back",
    "addc": "_addc_back", "rsub": "_rsub_back", "mulc": "_rmul_back", "rdiv": "_rdiv_back",
    "powc": "_pow_back", "vpow": "_value_pow_back", "rpow": "_rpow_back", "exp": "_exp_back",
    "log": "_log_back", "tanh": "_tanh_back", "relu": "_relu_back", "sigmoid": "_sigmoid_back",
    "vsum": "_vsum_back", "dot": "_dot_back", "radd": "_radd_back", "subc": "_subc_back",
    "vmulc": "_mulc_back", "divc": "_divc_back",
}  # fmt: skip

# One small graph per op of the table; its first node is the op under test (leaves inside the domain).
OP_GRAPHS = {
    "add": Graph((0.7, -1.3), (Node("add", (0, 1)), Node("mul", (2, 0)))),
    "mul": Graph((0.7, -1.3), (Node("mul", (0, 1)),)),
    "neg": Graph((0.7,), (Node("neg", (0,)), Node("mul", (1, 0)))),
    "sub": Graph((0.7, -1.3), (Node("sub", (0, 1)), Node("mul", (2, 0)))),
    "div": Graph((0.7, -1.3), (Node("div", (0, 1)),)),
    "addc": Graph((0.7,), (Node("addc", (0,), 0.25), Node("mul", (1, 0)))),
    "rsub": Graph((0.7,), (Node("rsub", (0,), 0.5), Node("mul", (1, 0)))),
    "mulc": Graph((0.7,), (Node("mulc", (0,), 1.5), Node("mul", (1, 0)))),
    "rdiv": Graph((0.7,), (Node("rdiv", (0,), 0.5),)),
    "powc": Graph((0.7,), (Node("powc", (0,), 1.5),)),
    "vpow": Graph((0.7, 1.3), (Node("vpow", (0, 1)),)),
    "rpow": Graph((0.7,), (Node("rpow", (0,), 3.0),)),
    "exp": Graph((0.7,), (Node("exp", (0,)),)),
    "log": Graph((0.7,), (Node("log", (0,)),)),
    "tanh": Graph((0.7,), (Node("tanh", (0,)),)),
    "relu": Graph((0.7,), (Node("relu", (0,)), Node("mul", (1, 0)))),
    "sigmoid": Graph((0.7,), (Node("sigmoid", (0,)),)),
    "vsum": Graph((0.7, -1.3, 2.1), (Node("vsum", (0, 1, 2)), Node("mul", (3, 0)))),
    "dot": Graph((0.7, -1.3, 2.1, 0.4, -0.9), (Node("dot", (0, 1, 2, 3, 4)),)),
    "radd": Graph((0.7,), (Node("radd", (0,), 0.25), Node("mul", (1, 0)))),
    "subc": Graph((0.7,), (Node("subc", (0,), 0.5), Node("mul", (1, 0)))),
    "vmulc": Graph((0.7,), (Node("vmulc", (0,), 1.5), Node("mul", (1, 0)))),
    "divc": Graph((0.7,), (Node("divc", (0,), Fraction(3, 2)), Node("mul", (1, 0)))),
}

#: 1 + 1e-9, exact, so that the exact oracle sees it exactly.
TINY = Fraction(1) + Fraction(1, 10**9)


def engine_copy(name: str) -> ModuleType:
    """A fresh copy of ``autograd/engine.py`` as a module called ``name`` (the real one is untouched)."""
    path = Path(autograd.engine.__file__)
    module = ModuleType(name)
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


def with_graph_rule(name: str, twin: str, rule) -> ModuleType:
    """A copy of the engine (named ``name``) whose graph-mode rule ``twin`` (``"_mul_back_graph"``)
    is ``rule(engine, out)`` instead, for every op that used it."""
    module = engine_copy(name)
    old = getattr(module, twin)
    for key, used in list(module._GRAPH_RULES.items()):
        if used is old:
            module._GRAPH_RULES[key] = lambda out: rule(module, out)
    module.Value.__module__ = name
    return module


def wrong_engine(op: str, factor) -> ModuleType:
    """A copy of the engine whose rule for ``op`` scales every gradient it sends by ``factor``."""
    module = engine_copy(f"wrong_{op}_engine")
    name = RULES[op]
    rule = getattr(module, name)

    def scaled(out):
        operands = list({id(v): v for v in out._prev}.values())  # each once, even in a * a
        before = [v.grad for v in operands]
        rule(out)
        for v, b in zip(operands, before, strict=True):
            v.grad = b + (v.grad - b) * factor

    module._RULE_NAMES[scaled] = module._RULE_NAMES[rule]
    setattr(module, name, scaled)
    return module


def vsum_off_engine(delta: float) -> ModuleType:
    """A copy of the engine whose ``vsum`` value is off by ``delta`` (a sum rounded differently)."""
    module = engine_copy("vsum_off_engine")
    exact_vsum = module.vsum

    def vsum(values):
        out = exact_vsum(values)
        out.data += delta
        return out

    module.vsum = vsum
    return module
