"""The edge points of an op of more than three operands (autograd.testing.probes.regions).

An op registered beside the table (``autograd.testing.ops.registered``) may take any number of
operands; the table names them x, y, z and, past three, x0, x1, ... (``OpSpec.operand_names``).
The edge points name them the same way: they used to stop at z, so that a fourth operand had no
name and the edge probe failed on such an op with an error of its own.
"""

from autograd.testing import run_check
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.ops import Call, OpSpec, registered
from autograd.testing.probes.edges import edge_points
from tests.engines import sound

MULADD = OpSpec(
    "test_muladd", 4, Call("muladd", ("v0", "v1", "v2", "v3")),
    lambda s, c: s[0] * s[1] + s[2] * s[3], lambda x, c: x[0] * x[1] + x[2] * x[3],
    lambda n, c: f"{n[0]}.muladd({n[1]}, {n[2]}, {n[3]})", form="v.muladd(w, x, y)",
)  # fmt: skip


class _MulAdd(sound.Core):
    """+ - * / and ``a.muladd(b, c, d) = a * b + c * d``."""

    def muladd(self, b, c, d):
        return self * b + c * d


def test_an_op_of_four_operands_gets_points_that_name_each_operand():
    with registered(MULADD):
        points = edge_points("test_muladd")
        # the first operand moved first, from 0, the others at the partner 1.5
        assert points[0].label() == "x0.muladd(x1, x2, x3) at x0 = 0.0, x1 = 1.5, x2 = 1.5, x3 = 1.5"
        assert points[-1].source() == "x0.muladd(x1, x2, x3)"
        result = run_check("edge_points", _MulAdd)
    assert {p.moved for p in points} == {0, 1, 2, 3}
    assert result.status == "passed" and not [f for f in result.findings if f.kind in DEFECT_KINDS]
    assert [f.op for f in result.findings if f.op == "test_muladd"]  # its range limits, e.g. at +-max
