"""Planted for ``edge_second_order``, on a copy of our engine with few ops (``x + y``, ``x + c``,
``x * y``, ``x / y``, ``-x``, ``c / x``, ``x.log()``: tests/edge_second_order_engines.py):

* the graph-mode mul rule passes d(x*y)/dy = x as a number: d2/dydx is 0 (d2/dxdy is right, 1);
* the division rule forms d(a/b)/db as -a / (b * b), which overflows past |b| = 1.3e154
  (as tests/engines/planted_edge_second_order.py);
* d2(1/x)/dx2 is off by 1e-310 at x = 2**1022 * 1.0 (where 1 / x is the smallest normal number).
"""

from tests.edge_second_order_engines import engine_with, half_detached_mul_rule, plus, squared_div_rule

#: 1 / x at x = 2 ** 1022 is 2 ** -1022, the smallest normal number.
AT = 2.0**1022


def _rdiv_rule(engine, out):
    engine._rdiv_back_graph(out)


_engine = engine_with(
    __name__,
    {"__add__": "any", "__mul__": "values", "__truediv__": "values", "__neg__": "any", "__rtruediv__": "any",
     "log": "any"},
    {"_mul_back_graph": half_detached_mul_rule, "_div_back_graph": squared_div_rule,
     "_rdiv_back_graph": plus(_rdiv_rule, lambda p: p == (1, AT), 1e-310, operand=1)},
)  # fmt: skip
Value = _engine.Value
