"""autograd.compile: the generated code computes what the interpreter computes, raises what it
raises, refuses what a trace cannot record, and says what it baked in.

The comparisons themselves (``regressions/codegen_zoo.py``) are shared with the code-generation
bug zoo, which requires each of them to fail on some deliberately broken compiler.
"""

import io
import math
import sys
from fractions import Fraction

import pytest

import autograd
from autograd import Value, cli, compiler, grad
from autograd.datasets import make_moons
from autograd.nn import MLP
from regressions import codegen_zoo as zoo

THIS_FILE = __file__


# ---------------------------------------------------------------------- same numbers, same errors
def test_every_op_with_reuse_and_fan_out_equals_the_interpreter_bit_for_bit_and_exactly():
    zoo.check_cases(compiler)


def test_errors_are_the_interpreters_at_the_same_op_with_the_same_message():
    zoo.check_errors(compiler)


def test_hessian_hvp_and_newton_step_taken_inside_compile_equal_the_interpreter():
    zoo.check_higher_order(compiler)


def test_the_comparison_can_fail():
    # the checks' own judge: -0.0 is not 0.0, an int is not a float, a different error is different
    assert not zoo.same(-0.0, 0.0)
    assert not zoo.same(0, 0.0)
    assert not zoo.same([1.0, 2.0], [1.0, 2.0000000000000004])
    assert zoo.same((1.5, [Fraction(1, 3)]), (1.5, [Fraction(1, 3)]))
    assert not zoo.same_outcome(("raised", ValueError, "log: x"), ("raised", ValueError, "log: y"))
    with pytest.raises(AssertionError, match="compiled"):
        zoo.assert_agrees(_Lying(), lambda x: x * 2, [1.0], [[1.0]])


class _Lying:
    """A 'compiler' whose function is off by one ulp: the checks must notice."""

    def compile(self, f, inputs):
        real = compiler.compile(f, inputs)

        class Off:
            source = real.source

            def __call__(self, point):
                value, grads = real(point)
                return math.nextafter(value, math.inf), grads

            def value(self, point):
                return math.nextafter(real.value(point), math.inf)

            def run_generated(self, point, gradient=True):
                return self(point) if gradient else self.value(point)

            def interpret(self, point, gradient=True):
                return real.interpret(point, gradient)

        return Off()


def test_hessian_compiled_equals_autograd_hessian_exactly_on_rationals():
    def f(x, y):
        return x * x * y + x / (y * y + 1) + (x - y) ** 3

    def hessian_of_f(x, y):
        return [grad(g, [x, y], create_graph=True) for g in grad(f(x, y), [x, y], create_graph=True)]

    compiled = autograd.compile(hessian_of_f, [1, 2])
    for point in ([1, 2], [Fraction(1, 3), Fraction(-5, 2)], [0.25, -1.5]):
        expected = autograd.hessian(f, point)
        got = compiled.value(point)
        print(point, got, expected)
        assert zoo.same(got, expected)
    assert isinstance(compiled.value([Fraction(1, 3), 2])[0][1], Fraction)


def test_one_compiled_per_sample_loss_serves_every_sample():
    model = MLP(2, [4, 1], nonlin="tanh", seed=3)
    params = model.parameters()
    n = len(params)

    def loss(*xs):
        with cli._parameters(model, xs[:n]):
            return (1 - xs[n + 2] * model(list(xs[n : n + 2]))).relu()

    compiled = autograd.compile(loss, [p.data for p in params] + [0.5, 0.5, 1])
    for x, y in (([0.5, 0.5], 1), ([-1.0, 0.2], -1), ([2.0, -0.3], 1)):
        model.zero_grad()
        out = (1 - y * model(x)).relu()
        out.backward()
        value, grads = compiled([p.data for p in params] + [*x, y])
        assert zoo.same((value, grads[:n]), (out.data, [p.grad for p in params]))


# ---------------------------------------------------------------------- what cannot be traced
def _line_of(text):
    return next(i for i, line in enumerate(open(THIS_FILE), 1) if text in line)


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ("branch_on_data", "reading .data"),
        ("branch_on_bool", "bool()"),
        ("compare", "comparison (<)"),
        ("to_float", "float()"),
        ("first_order_grad", "create_graph=True"),
        ("relu_second_order", "relu"),
        ("set_data", "assigning .data"),
    ],
)
def test_data_dependent_python_is_refused_at_trace_time_naming_the_line(body, what):
    f = UNTRACEABLE[body]
    with pytest.raises(autograd.TraceError) as info:
        autograd.compile(f, [0.5, 2.0])
    message = str(info.value)
    print(message)
    assert what in message
    assert f"{THIS_FILE}:{_line_of(f'# <- {body}')}" in message
    _assert_value_restored()


def branch_on_data(x, y):
    if x.data > 0:  # <- branch_on_data
        return x * y
    return y


def branch_on_bool(x, y):
    return x if (x - y) else y  # <- branch_on_bool


def compare(x, y):
    return x * 2 if x < y else y  # <- compare


def to_float(x, y):
    return x * float(y)  # <- to_float


def first_order_grad(x, y):
    gx, _ = grad(x * y, [x, y])  # <- first_order_grad
    return x * gx


def relu_second_order(x, y):
    (gx,) = grad((x * y).relu(), [x], create_graph=True)  # <- relu_second_order
    return gx * x


def set_data(x, y):
    x.data = 3.0  # <- set_data
    return x * y


UNTRACEABLE = {
    f.__name__: f
    for f in (
        branch_on_data,
        branch_on_bool,
        compare,
        to_float,
        first_order_grad,
        relu_second_order,
        set_data,
    )
}


def _assert_value_restored():
    assert type(Value.__dict__["data"]).__name__ == "member_descriptor"
    assert "__bool__" not in Value.__dict__ and "__lt__" not in Value.__dict__
    v = Value(2.0)
    assert bool(v) and v.data == 2.0
    with pytest.raises(TypeError):
        v < 1  # noqa: B015


def test_constants_and_untraced_values_are_usable_and_reported():
    w = Value(0.25)  # closed over: baked in
    computed_outside = Value(1.0) * 3  # an op node made before the trace: baked in too

    def f(x):
        if w.data > 0:  # an untraced Value may be read and branched on
            return x * w + computed_outside * 2.5  # <- constants
        return x

    compiled = autograd.compile(f, [1.0])
    shown = [str(c) for c in compiled.constants]
    print(compiled, shown)
    assert [c.value for c in compiled.constants] == [0.25, 3.0, 2.5]
    assert [c.kind for c in compiled.constants] == ["Value", "Value", "number"]
    assert all(f"{THIS_FILE}:{_line_of('# <- constants')}" in s for s in shown)
    w.data = 100.0  # a baked-in constant does not follow its Value
    assert compiled([2.0]) == (2.0 * 0.25 + 3.0 * 2.5, [0.25])


def test_tracing_restores_value_even_when_f_raises():
    def f(x):
        return x / 0

    with pytest.raises(ZeroDivisionError, match="div"):
        autograd.compile(f, [1.0])
    _assert_value_restored()


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="compile: inputs must be a list of numbers"):
        autograd.compile(lambda x: x, 1.0)
    with pytest.raises(TypeError, match="must return a Value"):
        autograd.compile(lambda x: 2.0, [1.0])
    with pytest.raises(TypeError, match="callable"):
        autograd.compile(3, [1.0])
    compiled = autograd.compile(lambda x, y: x * y, [1.0, 2.0])
    with pytest.raises(ValueError, match="expected 2 inputs, got 1"):
        compiled([1.0])
    with pytest.raises(ValueError, match="expected 2 inputs, got 3"):
        compiled.value([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="Value: bool True"):
        compiled([True, 2.0])
    with pytest.raises(TypeError, match="Value: bool True"):
        compiled.value([True, 2.0])
    assert compiled.value([3, 4]) == 12 and type(compiled.value([3, 4])) is int


def test_the_generated_code_is_straight_line_python():
    compiled = autograd.compile(lambda x, y: (x * y).tanh() + x, [1.0, 2.0])
    print(compiled.source)
    assert "for " not in compiled.source and "while " not in compiled.source
    assert compiled.source.startswith("def value_and_grad(x0, x1):")
    assert "v1 = _tanh(v0)" in compiled.source
    assert compiled.value_source.startswith("def value(x0, x1):")
    assert repr(compiled).startswith(
        "<compiled test_the_generated_code_is_straight_line_python.<locals>.<lambda>"
    )


def test_interpret_runs_the_recorded_graph_with_the_engine_and_run_generated_the_code_alone():
    compiled = autograd.compile(lambda x, y: x * y + 1, [1.0, 2.0])
    assert compiled.interpret([3.0, 4.0]) == (13.0, [4.0, 3.0])
    assert compiled.interpret([3.0, 4.0], gradient=False) == 13.0
    assert compiled.run_generated([3.0, 4.0]) == (13.0, [4.0, 3.0])
    assert compiled.run_generated([3.0, 4.0], gradient=False) == 13.0
    with pytest.raises(ArithmeticError):  # the generated code notices; the call hands it over
        compiled.run_generated([1e300, 1e300])
    with pytest.raises(OverflowError, match="mul: result of mul"):
        compiled([1e300, 1e300])


# ---------------------------------------------------------------------- used: train --compile
@pytest.mark.slow  # (a few seconds: kept out of the mutation runs)
def test_train_compile_gives_the_same_losses_and_accuracy_step_for_step():
    plain, compiled = [], []
    model_i, _, _ = cli.train(8, 1.0, [6, 6], 1, "tanh", 1, out=io.StringIO(), history=plain)
    out = io.StringIO()
    model_c, _, _ = cli.train(8, 1.0, [6, 6], 1, "tanh", 1, out=out, compiled=True, history=compiled)
    for step, (a, b) in enumerate(zip(plain, compiled, strict=True)):
        print(
            f"step {step}: interpreter loss {a[0]!r} accuracy {a[1]}, compiled loss {b[0]!r} accuracy {b[1]}"
        )
    assert len(plain) == 8
    assert compiled == plain
    assert [p.data for p in model_c.parameters()] == [p.data for p in model_i.parameters()]
    assert "compiled in" in out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("nonlin", ["tanh", "relu"])
@pytest.mark.parametrize("block", [1, 7, 200])
def test_compiled_moons_loss_gives_backwards_gradient_bit_for_bit_whatever_the_block(nonlin, block):
    # blocks of 1 and 7 points (200 = 28 * 7 + 4: a shorter last block) carry the gradient from
    # block to block; 200 is the whole batch in one function.  relu: inactive units send no share.
    points, labels = make_moons(200, noise=0.1, seed=2)
    model = MLP(2, [5, 4, 1], nonlin=nonlin, seed=2)
    step = cli.compiled_moons_loss(model, points, labels, block=block)
    for _ in range(3):
        loss, accuracy, grads = step()
        loss_v, accuracy_i = cli.moons_loss(model, points, labels)
        model.zero_grad()
        loss_v.backward()
        expected = [p.grad for p in model.parameters()]
        assert (loss, accuracy) == (loss_v.data, accuracy_i)
        assert grads == expected
        assert [type(g) for g in grads] == [type(g) for g in expected]
        for p in model.parameters():
            p.data -= 2.0 * p.grad


@pytest.mark.slow
def test_train_compile_from_the_command_line(capsys):
    assert cli.main(["train", "--compile", "--steps", "3", "--hidden", "4,4", "--every", "1"]) == 0
    with_compile = capsys.readouterr().out
    assert cli.main(["train", "--steps", "3", "--hidden", "4,4", "--every", "1"]) == 0
    without = capsys.readouterr().out
    steps = [line for line in with_compile.splitlines() if line.startswith("step")]
    print(with_compile, without, sep="\n")
    assert len(steps) == 3 and steps == [line for line in without.splitlines() if line.startswith("step")]


def test_compiler_has_code_for_every_engine_op():
    from autograd import engine

    assert set(compiler._CODE) == set(engine._RULES) == set(compiler._REPLAY)


# ---------------------------------------------------------------------- messages, reports, edges
_MESSAGES = {
    "branch_on_data": "reading .data of a traced Value at {at}: its number changes from call to call, so "
    "Python code cannot branch on it or use it; use the Value itself (relu and the other ops need no "
    "branch), or compute it outside the compiled function",
    "branch_on_bool": "bool() of a traced Value at {at}: Python control flow cannot depend on a value that "
    "changes from call to call (use relu and the other ops, which need no branch)",
    "compare": "a comparison (<) of a traced Value at {at}: Python control flow cannot depend on a value "
    "that changes from call to call (use relu and the other ops, which need no branch)",
    "to_float": "float() of a traced Value at {at}: Python control flow cannot depend on a value that "
    "changes from call to call (use relu and the other ops, which need no branch)",
    "first_order_grad": "backward() or grad() without create_graph=True at {at} computes plain numbers from "
    "the traced values, which the compiled code would keep as constants; pass create_graph=True",
    "relu_second_order": "a derivative through relu taken with create_graph=True at {at}: its graph depends "
    "on which side of the kink relu's input lies, so one trace cannot serve every input",
    "set_data": "assigning .data of a traced Value at {at}; the trace cannot record it",
}


def _at(function_name, marker):
    """How a message names a line of this file: path:line in function: the line's text."""
    n = _line_of(marker)
    return f"{THIS_FILE}:{n} in {function_name}: {open(THIS_FILE).read().splitlines()[n - 1].strip()}"


@pytest.mark.parametrize("body", sorted(_MESSAGES))
def test_a_refusal_says_what_was_refused_and_shows_the_line_itself(body):
    with pytest.raises(autograd.TraceError) as info:
        autograd.compile(UNTRACEABLE[body], [0.5, 2.0])
    assert str(info.value) == _MESSAGES[body].format(at=_at(body, f"# <- {body}"))


def test_each_constant_is_reported_with_its_value_kind_and_the_line_that_made_or_used_it():
    w = Value(0.25)
    made_before = Value(1.0) * 3

    def f(x):
        y = x * w  # <- first use of w
        return y + made_before * 2.5  # <- number and made_before

    compiled = autograd.compile(f, [1.0])
    used_w, used_other = _at("f", "# <- first use of w"), _at("f", "# <- number and made_before")
    assert [str(c) for c in compiled.constants] == [
        f"0.25 (Value, first used at {used_w})",
        f"3.0 (Value, first used at {used_other})",
        f"2.5 (number, {used_other})",
    ]
    assert repr(compiled) == (
        f"<compiled {f.__qualname__}: 1 inputs, 3 ops, 3 constants, {compiled.source.count(chr(10))} lines>"
    )
    assert compiled.n_ops == 3 and compiled.n_inputs == 1


def test_an_output_that_is_a_constant_is_reported_as_used_by_an_output():
    w = Value(4.0)
    made_before = Value(1.5) * 3  # an op node: its own operands are none of the compiled code's business
    compiled = autograd.compile(lambda x: (x * 2, w, made_before), [1.0])
    assert compiled([3.0]) == ((6.0, 4.0, 4.5), [2.0])
    assert [str(c) for c in compiled.constants] == [
        f"2 (number, {_at('<lambda>', '(x * 2, w, made_before)')})",
        "4.0 (Value, first used at an output)",
        "4.5 (Value, first used at an output)",
    ]


def test_a_constant_used_many_times_is_one_constant():
    w = Value(0.5)

    def f(x, y):
        return x * w + y * w + (x + w) * w  # <- w four times

    compiled = autograd.compile(f, [1.0, 2.0])
    assert [str(c) for c in compiled.constants] == [f"0.5 (Value, first used at {_at('f', '# <- w four')})"]
    assert compiled([1.0, 2.0]) == (2.25, [1.0, 0.5])


def test_a_negative_constant_raised_to_a_power_keeps_its_sign():
    w = Value(-2.0)  # written into the code as a literal: -2.0 ** 2 would be -(2.0 ** 2)
    compiled = autograd.compile(lambda x: x * w**2 + w**3, [1.0])
    assert compiled.run_generated([1.0]) == (-4.0, [4.0])
    assert compiled.run_generated([1.0], gradient=False) == -4.0


def test_an_interior_gradient_past_the_floats_that_reaches_no_input_is_not_an_error():
    # relu of a negative number passes no gradient back, so the infinite gradient above it stays
    # there; the engine does not refuse it, and neither does the generated code
    def f(x):
        return (-x).relu() * 1e300 * 1e300 + x

    x = Value(1.0)
    y = f(x)
    y.backward()
    compiled = autograd.compile(f, [1.0])
    assert compiled.run_generated([1.0]) == (y.data, [x.grad]) == (1.0, [1])


# f, the point, d f/dx by hand: a constant's own gradient would overflow in each (see
# tests/test_engine.py); the engine computes none, and neither does the generated code
CONSTANT_CASES = [
    (lambda x: x / 0.5, 8.98e307, 2.0),
    (lambda x: x / 1e-300, 1e-10, 1 / 1e-300),
    (lambda x: 0 / x, 5e-324, 0.0),
    (lambda x: (x * 2 - 2e300) * 1e10, 1e300, 2e10),
    (lambda x: (2 * x - 2e300) * 1e10, 1e300, 2e10),
    (lambda x: (1e300 - x) * 1e300, 1e300, -1e300),
    (lambda x: 2**x, 1023.9999999999999, 1.2460659279416856e308),  # 2**x ln 2, rounded as the engine does
]


@pytest.mark.parametrize("case", range(len(CONSTANT_CASES)))
def test_a_constant_operand_gets_no_gradient_in_the_generated_code_either(case):
    f, point, expected = CONSTANT_CASES[case]
    compiled = autograd.compile(f, [point])
    value, gradient = compiled.run_generated([point])
    assert gradient == [expected]
    assert compiled([point]) == compiled.interpret([point]) == (value, [expected])


def test_finite_numbers_whose_sum_overflows_are_not_taken_for_an_overflow():
    # the value and the gradient are each below the float maximum, their sum is not
    compiled = autograd.compile(lambda x: x * 1.5, [1e308])
    assert compiled.run_generated([1e308]) == (1.5e308, [1.5])
    assert compiled.run_generated([1e308], gradient=False) == 1.5e308
    with pytest.raises(ArithmeticError):  # a true overflow is still one
        compiled.run_generated([1.5e308])


def test_a_callable_without_a_qualname_is_named_by_its_repr():
    import functools

    f = functools.partial(lambda x, c: x * c, c=2.0)
    compiled = autograd.compile(f, [1.0])
    assert repr(compiled).startswith(f"<compiled {f!r}: 1 inputs, 1 ops, 1 constants, ")
    assert compiled([3.0]) == (6.0, [2.0])


def test_a_value_computed_from_an_input_by_any_operand_is_traced():
    for f in (lambda x: x if 2 * x > 0 else -x, lambda x: x if (Value(2.0) * x).data > 0 else -x):
        with pytest.raises(autograd.TraceError):
            autograd.compile(f, [1.0])


def test_compile_leaves_the_gradient_of_a_closed_over_value_as_it_was():
    w = Value(3.0)
    w.grad = 7.5
    inner = w * 2  # made before the trace: an op node, baked in
    inner.grad = -1.25
    compiled = autograd.compile(lambda x: x * w + x * inner, [2.0])
    assert compiled([2.0]) == (18.0, [9.0])
    assert (w.grad, inner.grad) == (7.5, -1.25)


def test_results_nest_50_lists_deep_and_no_deeper():
    def nested(depth):
        def f(x):
            out = x * 2
            for _ in range(depth):
                out = [out]
            return out

        return f

    value, grads = autograd.compile(nested(50), [1.0])([3.0])
    for _ in range(50):
        (value,) = value
    assert (value, grads) == (6.0, [2.0])
    with pytest.raises(TypeError) as info:
        autograd.compile(nested(51), [1.0])
    assert str(info.value) == (  # the list found at depth 50, holding the output
        "compile: f must return a Value or lists/tuples of Values, "
        "got [Value(data=2.0, grad=0, op='mul')] (list)"
    )


def test_compiles_own_argument_errors_say_what_was_given():
    with pytest.raises(TypeError) as info:
        autograd.compile(3, [1.0])
    assert str(info.value) == "compile: f must be callable, got 3"
    with pytest.raises(TypeError) as info:
        autograd.compile(lambda x: [], [1.0])
    assert str(info.value) == "compile: f returned no Value: []"
    with pytest.raises(TypeError) as info:
        autograd.compile(lambda x: 2.0, [1.0])
    assert str(info.value) == "compile: f must return a Value or lists/tuples of Values, got 2.0 (float)"


def test_division_by_and_of_constants_of_every_kind():
    def f(x):
        return x / 2.5 + 2.5 / x + x / 3 + 3 / x + x / Fraction(1, 3)

    compiled = autograd.compile(f, [1.0])
    for point in ([2.0], [3], [Fraction(2, 7)], [-0.75]):
        expected = compiled.interpret(point)
        assert zoo.same(compiled.run_generated(point), expected)
        assert zoo.same(compiled.run_generated(point, gradient=False), expected[0])


def test_value_handed_over_to_the_interpreter_gives_the_value_alone():
    compiled = autograd.compile(lambda x: x.tanh() * 2, [1.0])
    with pytest.raises(OverflowError):  # math.tanh of an int past the floats: the generated code gives up
        compiled.run_generated([10**400], gradient=False)
    assert compiled.value([10**400]) == 2.0 and type(compiled.value([10**400])) is float
    assert compiled([10**400]) == (2.0, [0.0])


def test_an_overflow_anywhere_in_a_long_function_is_the_engines_error():
    # 257 numbers to check (256 values and the input's gradient): the check's second chunk holds
    # the overflowing output, at index 255
    def f(x):
        y = x
        for _ in range(255):
            y = y + x
        return y * x

    compiled = autograd.compile(f, [1.0])
    assert compiled([1.0]) == (256.0, [512.0])  # 256 x * x
    with pytest.raises(ArithmeticError):
        compiled.run_generated([1e200])
    with pytest.raises(OverflowError, match="mul: result of mul"):
        compiled([1e200])


def test_a_refusal_in_code_without_source_names_the_line_without_its_text():
    namespace = {}
    exec("def f(x):\n    return x if x > 0 else -x\n", namespace)
    with pytest.raises(autograd.TraceError) as info:
        autograd.compile(namespace["f"], [1.0])
    assert str(info.value) == (
        "a comparison (>) of a traced Value at <string>:2 in f: Python control flow cannot depend "
        "on a value that changes from call to call (use relu and the other ops, which need no branch)"
    )


def test_compiled_moons_loss_raises_the_interpreters_error_where_the_interpreter_raises():
    points, labels = make_moons(16, noise=0.1, seed=4)
    model = MLP(2, [3, 1], nonlin="tanh", seed=4)
    step = cli.compiled_moons_loss(model, points, labels)
    model.parameters()[0].data = 1e200  # the L2 term's w * w overflows (the compiled sums would give inf)
    with pytest.raises(OverflowError) as interpreted:
        cli.moons_loss(model, points, labels)
    with pytest.raises(OverflowError) as compiled:
        step()
    assert str(compiled.value) == str(interpreted.value)
    assert "mul" in str(compiled.value)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


# ---------------------------------------------------------------------- behaviours mutants showed
def test_a_value_that_depends_on_no_input_may_be_branched_on_and_refuses_float_as_outside_a_trace():
    made_before = Value(2.5)

    def f(x):
        made_inside = Value(3.0)
        if made_inside and made_before:  # neither depends on x: bool() is allowed
            return x * 2
        return x

    assert autograd.compile(f, [1.0])([4.0]) == (8.0, [2])

    def g(x):
        return x * float(made_before)

    with pytest.raises(TypeError) as err:
        autograd.compile(g, [1.0])
    assert type(err.value) is TypeError  # not a TraceError: the value is not traced
    assert str(err.value) == "a Value is not a number: Value(data=2.5, grad=0)"


def test_a_negative_overflow_in_the_generated_code_is_the_engines_error():
    c = autograd.compile(lambda x: x * 10, [1.0])
    message = r"mul: result of mul\(-1e\+308, 10\) is too large for a float"
    with pytest.raises(OverflowError, match=message):
        c.value([-1e308])
    with pytest.raises(OverflowError, match=message):
        c([-1e308])


def test_an_empty_tuple_in_the_result_comes_back_empty():
    c = autograd.compile(lambda x: (x * 2, ()), [1.0])
    assert c([3.0]) == ((6.0, ()), [2])
    assert c.value([3.0]) == (6.0, ())


def test_inputs_traced_with_floats_and_called_with_ints_divide_exactly():
    c = autograd.compile(lambda x, y: x / y, [1.0, 2.0])
    # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2, at x = 1, y = 3
    out, grads = c([1, 3])
    assert (out, grads) == (Fraction(1, 3), [Fraction(1, 3), Fraction(-1, 9)])
    assert [type(out), *map(type, grads)] == [Fraction] * 3
    assert c.value([1, 3]) == Fraction(1, 3) and type(c.value([1, 3])) is Fraction


def test_a_function_named_like_an_engine_rule_reading_data_is_refused_as_a_read():
    def _exp_back(x):
        return x * x.data

    with pytest.raises(compiler.TraceError, match=r"^reading \.data of a traced Value at "):
        autograd.compile(_exp_back, [1.0])


def test_an_output_made_before_the_trace_has_no_backward_pass():
    w = Value(2.0) * 3.0
    c = autograd.compile(lambda x: w, [1.0])
    assert c([5.0]) == (6.0, [0])
    assert c.source == "def value_and_grad(x0):\n    return 6.0, [0]\n"


def test_int_and_float_constants_are_written_into_the_source_as_their_numbers():
    c = autograd.compile(lambda x: x * 2.5 + -3, [1.0])
    lines = c.source.splitlines()
    assert "    v0 = x0 * 2.5" in lines
    assert "    v1 = v0 + (-3)" in lines


def test_the_compiled_calls_use_no_engine_value(monkeypatch):
    c = autograd.compile(lambda x, y: (x * y).tanh() + y, [0.5, 2.0])
    expected_value = math.tanh(0.25 * 3.0) + 3.0

    def no_value(self, data):
        raise AssertionError("the compiled call made an engine Value")

    monkeypatch.setattr(Value, "__init__", no_value)
    assert c.value([0.25, 3.0]) == expected_value
    assert c([0.25, 3.0])[0] == expected_value


def test_the_final_check_sums_each_number_once():
    c = autograd.compile(lambda x: x * 2.5 + -3, [1.0])
    numbers = "(v0, v1, gk1, gx0, gk0,)"
    assert f"    if not -1e999 < _sum({numbers}) < 1e999: _all_finite({numbers})" in c.source.splitlines()

    def long(x):
        for _ in range(300):
            x = x + 1
        return x

    check = [line for line in autograd.compile(long, [0.0]).source.splitlines() if "_all_finite(" in line]
    assert len(check) == 1
    # 300 values, 300 gradients of the ops' constants and the input's: each once in the sum, once
    # in _all_finite's arguments, in groups of at most 255
    names = check[0].replace("(", " ").replace(")", " ").replace(",", " ").split()
    numbers = [name for name in names if name[0] in "vg"]
    assert len(numbers) == 2 * (300 + 300 + 1)
    assert all(numbers.count(name) == 2 for name in numbers)
    assert check[0].count("_sum(") == 4  # 601 numbers: three groups, and the sum of their sums
