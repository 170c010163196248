"""An op whose value the certified reference cannot settle, for the tests of what the harness
does with such a point (an edge point of it is inconclusive, never a verdict)."""

import operator

import sympy

from autograd.testing.ops import Call, OpSpec

X = sympy.Symbol("x", real=True)
#: (sin(x)**2 + cos(x)**2 - 1) * 2**10000 is exactly 0, which sympy does not simplify: every
#: interval of it straddles 0 and, at 8192 bits still, is some 2**1800 wide: no float is certain.
HIDDEN_ZERO = (sympy.sin(X) ** 2 + sympy.cos(X) ** 2 - 1) * 2**10000

#: x + HIDDEN_ZERO is x, computed as v * 1.0: at no point but 0 (where sin and cos are exact) can
#: its value be certified.  Register it (``autograd.testing.ops.registered``) to probe it.
HIDDEN_ZERO_OP = OpSpec(
    "test_hidden_zero", 1, Call(operator.mul, ("v0",), numbers=(1.0,)),
    lambda s, c: s[0] + HIDDEN_ZERO.subs(X, s[0]),
    lambda x, c: x[0], lambda n, c: f"{n[0]} * 1.0", form="v * 1.0",
)  # fmt: skip
