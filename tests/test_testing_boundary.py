"""The one boundary between the harness and the engine under test.

What the engine raises is a fact about it (``EngineRaised``); what the harness raises is a bug of
ours and propagates: out of ``Engine``'s accessors, out of ``audit()``, and out of the command
line as an error of the tool (its own exit status, the traceback, where to report it).  A scan
of the package keeps every broad ``except`` inside ``autograd/testing/boundary.py``.
(regressions/fault_zoo.py plants faults in every part of the harness and runs whole audits.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograd.testing import boundary
from autograd.testing.__main__ import main
from autograd.testing.boundary import HARNESS_FAULT, HARNESS_FAULT_LINE, EngineRaised
from autograd.testing.engines import Engine
from autograd.testing.engines.support import supported
from autograd.testing.ops import OPS, Call, OpSpec

PACKAGE = Path(__file__).resolve().parent.parent / "autograd" / "testing"
BROAD = {"Exception", "BaseException"}


# ---------------------------------------------------------------------- the scan
def broad_catches(source: str) -> list[int]:
    """The lines of ``except`` clauses that catch everything: a bare ``except:``, ``Exception`` or
    ``BaseException`` (also as ``builtins.X``, in a tuple, or through a name bound to them)."""
    tree = ast.parse(source)
    aliases: set[str] = set()

    def broad(node: ast.expr | None) -> bool:
        if node is None:
            return True
        if isinstance(node, ast.Name):
            return node.id in BROAD or node.id in aliases
        if isinstance(node, ast.Attribute):
            return node.attr in BROAD
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(broad(e) for e in node.elts)
        if isinstance(node, ast.BinOp):  # (a, b) + (Exception,)
            return broad(node.left) or broad(node.right)
        return False

    changed = True
    while changed:  # names bound to a broad type, or to another such name, at any depth
        changed = False
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign | ast.AugAssign) else []  # fmt: skip
            value = getattr(node, "value", None)
            if value is None or not broad(value):
                continue
            for t in targets:
                if isinstance(t, ast.Name) and t.id not in aliases:
                    aliases.add(t.id)
                    changed = True
    return [h.lineno for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and broad(h.type)]


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    f()\nexcept:\n    pass\n",
        "try:\n    f()\nexcept Exception:\n    pass\n",
        "try:\n    f()\nexcept BaseException as e:\n    raise\n",
        "try:\n    f()\nexcept (KeyError, Exception):\n    pass\n",
        "import builtins\ntry:\n    f()\nexcept builtins.Exception:\n    pass\n",
        "_ERRORS = (Exception,)\ndef g():\n    try:\n        f()\n    except _ERRORS:\n        pass\n",
        "A = Exception\nB = (A, KeyError)\ntry:\n    f()\nexcept B:\n    pass\n",
        "E: tuple = (ValueError,) + (Exception,)\ntry:\n    f()\nexcept E:\n    pass\n",
    ],
)
def test_the_scan_finds_every_form_of_a_broad_catch(source):
    assert len(broad_catches(source)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    f()\nexcept (KeyError, ValueError):\n    pass\n",
        "class Err(Exception):\n    pass\ntry:\n    f()\nexcept Err:\n    pass\n",
        "_MATH = (ArithmeticError, ValueError)\ntry:\n    f()\nexcept _MATH:\n    pass\n",
    ],
)
def test_the_scan_lets_narrow_catches_be(source):
    assert broad_catches(source) == []


def test_no_broad_catch_in_the_harness_outside_the_boundary():
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "boundary.py" and (lines := broad_catches(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_boundary_has_exactly_its_three_broad_catches():
    # engine_call (the engine's exceptions become facts), harness_code (code of ours that runs
    # while the engine is called: its exceptions are ours) and tool_call (the command line's
    # report of a fault of ours): nothing else in the module may catch everything
    assert len(broad_catches((PACKAGE / "boundary.py").read_text(encoding="utf-8"))) == 3


# ---------------------------------------------------------------------- Engine: ours vs the engine's
class Plain:
    """A tiny engine: a number, + and *, no log."""

    def __init__(self, data):
        self.data, self.grad = data, 0.0

    def __add__(self, other):
        return Plain(self.data + other.data)

    def __mul__(self, other):
        return Plain(self.data * getattr(other, "data", other))

    def backward(self):
        self.grad = 1.0


ENG = Engine(Plain, name="plain")


def row(call: Call, arity: int = 1) -> OpSpec:
    return OpSpec("probe_row", arity, call, lambda s, c: s[0], lambda x, c: x[0], lambda n, c: n[0])


def test_a_method_the_engine_lacks_is_the_engines_fact():
    with pytest.raises(EngineRaised) as raised:
        ENG.apply(OPS["log"], [ENG.make(2.0)])
    assert isinstance(raised.value.exc, AttributeError)
    assert "log" in str(raised.value.exc)
    assert ENG.supports("log") is False
    assert ENG.supports("mul") is True


def test_a_row_naming_an_operand_it_lacks_is_our_fault_not_unsupported():
    bad = row(Call("log", ("v1",)))  # the row says v1 for a unary op: the harness's mistake
    with pytest.raises(KeyError, match="v1"):
        ENG.apply(bad, [ENG.make(2.0)])
    with pytest.raises(KeyError, match="v1"):  # and never "the engine does not support it"
        supported(ENG, bad)


def test_wrong_operand_counts_and_missing_constants_are_our_faults():
    with pytest.raises(TypeError, match="takes 2 operands, given 1"):
        ENG.apply(OPS["mul"], [ENG.make(2.0)])
    with pytest.raises(TypeError, match="needs a constant"):
        ENG.apply(OPS["mulc"], [ENG.make(2.0)])
    with pytest.raises(TypeError, match="no call of its own"):
        ENG.apply(row(Call(None)), [ENG.make(2.0)])


def test_an_operator_row_applies_its_operands_in_the_order_it_names():
    x = ENG.make(3.0)
    assert ENG.apply(row(Call(lambda a, b: Plain(a.data - b), ("v0", "c"))), [x], 1.0).data == 2.0
    assert ENG.apply(row(Call(lambda a, b: Plain(a - b.data), ("c", "v0"))), [x], 1.0).data == -2.0


def test_what_the_engine_raises_in_an_accessor_keeps_its_stage():
    class Broken(Plain):
        @property
        def data(self):
            raise OverflowError("too big")

        @data.setter
        def data(self, x):
            pass

    eng = Engine(Broken, name="broken")
    with pytest.raises(EngineRaised) as raised:
        eng.data(eng.make(1.0), stage="reading")
    assert raised.value.stage == "reading"
    assert isinstance(raised.value.exc, OverflowError)


def test_a_nested_engine_call_is_told_under_the_outer_stage():
    def inner():
        return boundary.engine_call("inner stage", int, "not a number")

    with pytest.raises(EngineRaised) as raised:
        boundary.engine_call("outer stage", inner)
    assert raised.value.stage == "outer stage"
    assert isinstance(raised.value.exc, ValueError)  # the engine's own exception, not wrapped twice


# ---------------------------------------------------------------------- the command line
def test_a_fault_of_the_harness_is_an_error_of_the_tool(monkeypatch, capsys):
    import autograd.testing.__main__ as cli

    def faulty(*args, **kwargs):
        raise KeyError("planted in the harness")

    monkeypatch.setattr(cli, "audit", faulty)
    assert main(["audit", "autograd", "--examples", "1"]) == HARNESS_FAULT == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err
    assert "KeyError: 'planted in the harness'" in err
    assert "in faulty" in err  # the traceback reaches the frame that raised
    assert HARNESS_FAULT_LINE in err
    assert "bug of autograd.testing" in err


def test_an_engine_that_cannot_be_found_is_still_exit_status_2(capsys):
    assert main(["audit", "no_such_module_for_the_boundary_test"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("could not audit no_such_module_for_the_boundary_test: cannot import")
    assert "Traceback" not in err


def test_the_exit_statuses_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "3 an error of autograd.testing itself" in out


def test_a_harness_fault_names_the_exception_and_keeps_its_whole_traceback():
    def ours(*args, **kwargs):
        return args, kwargs

    assert boundary.tool_call(ours, 1, 2, key="word") == ((1, 2), {"key": "word"})
    with pytest.raises(boundary.HarnessFault) as fault:
        boundary.tool_call(dict.__getitem__, {}, "missing")
    assert str(fault.value) == "KeyError: 'missing'"
    report = fault.value.report()
    assert report.startswith("Traceback (most recent call last):\n  File ")  # the lines joined as they are
    assert report.endswith(boundary.HARNESS_FAULT_LINE)


def test_a_child_that_outlives_its_time_limit_is_told_from_one_that_died():
    # a probe must not call a slow engine's timeout a crash: Died says which it was
    program = "\n".join(
        [
            "import time",
            "for line in sys.stdin:",
            "    stage('request ' + line.strip())",
            "    if line.strip() == 'hang': time.sleep(60)",
            "    if line.strip() == 'exit': sys.exit(3)",
            "    answer(line.strip())",
        ]
    )
    with boundary.EngineChild(program, timeout=1) as child:
        hung = child.ask("hang")
        assert (hung.how, hung.stage, hung.timed_out, hung.signal) == (
            "timed out after 1 s",
            "request hang",
            True,
            "",
        )
        exited = child.ask("exit")
        assert (exited.how, exited.timed_out) == ("exit status 3", False)
    assert not boundary.Died("killed by SIGSEGV", "backward()").timed_out
