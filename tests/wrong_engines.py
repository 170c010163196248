"""Slightly wrong copies of our engine, for the tests that check the checker (not a test module).

A wrong engine is a fresh copy of ``autograd/engine.py`` in which ONE rule's
contribution to every operand's gradient is multiplied by ``factor`` (the real
module is never touched).
"""

from fractions import Fraction
from pathlib import Path
from types import ModuleType

import autograd.engine

# The engine rule behind each op of the table.
RULES = {
    "add": "_add_back", "mul": "_mul_back", "neg": "_neg_back", "sub": "_sub_back", "div": "_div_back",
    "addc": "_add_back", "rsub": "_sub_back", "mulc": "_mul_back", "rdiv": "_div_back", "powc": "_pow_back",
    "vpow": "_value_pow_back", "rpow": "_value_pow_back", "exp": "_exp_back", "log": "_log_back",
    "tanh": "_tanh_back", "relu": "_relu_back", "sigmoid": "_sigmoid_back", "vsum": "_vsum_back",
    "dot": "_dot_back",
}  # fmt: skip

#: 1 + 1e-9, exact, so that the exact oracle sees it exactly.
TINY = Fraction(1) + Fraction(1, 10**9)


def engine_copy(name: str) -> ModuleType:
    """A fresh copy of ``autograd/engine.py`` as a module called ``name`` (the real one is untouched)."""
    path = Path(autograd.engine.__file__)
    module = ModuleType(name)
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
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
