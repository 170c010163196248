"""The harness-fault zoo: faults planted in the harness's own code, each of which must propagate.

The harness zoo (``harness_zoo.py``) plants wrong verdict logic and shows that the self-tests
notice; this zoo plants *faults* (an exception of ours: a wrong index, a missing key, a stray
``assert``) in every part of ``autograd.testing`` that an audit of our own engine runs: op rows,
operand selection, graph building, oracles, references, strategies, the state machine's model,
probes, discovery, the ``Engine`` accessors, verdicts, report and the command line.  A fault of
ours must never pass and never become a finding against the engine: the audit, run in a fresh
interpreter as ``python -m autograd.testing audit autograd`` with the fault planted, must exit
with the tool-error status (``boundary.HARNESS_FAULT``) and print the planted exception's
traceback.  Plants are checked text substitutions (``harness_zoo.Plant``: each old text must
occur exactly once), applied at import time.

    python -m regressions.fault_zoo                 # list the plants
    python -m regressions.fault_zoo NAME            # audit our engine with NAME planted

This module imports nothing from ``autograd`` (the plant must be in place before the first import).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from regressions.harness_zoo import APPLIED, MARKER, ROOT, Plant, install

#: The command line the planted audit runs, after the target (small: a few seconds an audit).
AUDIT_ARGS = ("--examples", "2", "--seed", "0")


@dataclass(frozen=True)
class Fault:
    """A planted fault: ``plant`` (its edits), ``raises``, the traceback's line showing the planted
    exception (e.g. ``KeyError: 'planted: engine_data_huge'``), and the engine
    audited (``target``, the command line's arguments: our engine, or a fixture engine whose
    defect or extra op leads the audit through the planted code)."""

    plant: Plant
    raises: str
    target: tuple[str, ...] = ("autograd",)

    @property
    def name(self) -> str:
        return self.plant.name


OURS = ("autograd",)  # our engine (correct): any finding would be a false alarm
WRONG = ("tests.engines.wrong_rule",)  # exp's rule is wrong: the audit confirms a defect
MISSING = ("tests.engines.missing_ops",)  # ops it lacks: the support probe reports them
EXTRA = ("tests.engines.extra_ops",)  # ops beyond the table: identified, or self-checked
ADAPTED = ("--adapter", "tests.engines.functional:adapter")  # an engine through the adapter protocol
ACCESSORS = ("tests.engines.method_accessors",)  # its number and gradient behind methods: Accessors


def _fault(
    name: str, what: str, module: str, old: str, new: str, raises: str, target: tuple[str, ...]
) -> Fault:
    return Fault(Plant(name, what, module, ((old, new),), ()), raises, target)


def _raise(
    name: str, what: str, module: str, anchor: str, exc: str, when: str = "", target: tuple[str, ...] = OURS
) -> Fault:
    """A fault: ``raise exc("planted: name")`` (``if when``), on a line of its own before
    ``anchor`` (which starts a line and occurs once), at its indentation."""
    message = f"planted: {name}"
    statement = f"{f'if {when}: ' if when else ''}raise {exc}({message!r})"
    indent = anchor[: len(anchor) - len(anchor.lstrip())]
    shown = repr(message) if exc == "KeyError" else message  # how the traceback shows it
    return _fault(name, what, f"autograd.testing.{module}", anchor, f"{indent}{statement}\n{anchor}",
                  f"{exc}: {shown}", target)  # fmt: skip


FAULTS = {
    f.name: f
    for f in [
        # the three faults that used to pass or blame the engine: a row applying an operand it
        # lacks (log read as unsupported), a stray assert in the model (a wrong_gradient on our
        # engine), Engine.data failing beyond 1e300 (crash findings on our engine)
        _fault("log_row_operand", "the log row names an operand it does not have (v1 for v0)",
               "autograd.testing.ops.table", 'Call("log", ("v0",))', 'Call("log", ("v1",))', "KeyError: 'v1'",
               OURS),
        _raise("model_assert", "a stray assert in the state machine's model (adding a node)",
               "checks.machine", "        self.ops.append((op, c))\n", "AssertionError"),
        _raise("engine_data_huge", "Engine.data fails on numbers beyond 1e300", "engines.engine",
               "        return x if type(x) in PLAIN else boundary.engine_call(stage, as_number, x,",
               "KeyError", "isinstance(x, float) and abs(x) > 1e300"),
        # the op table and how an op is applied
        _raise("operand_selection", "operand selection fails for tanh", "engines.engine",
               "        operands = (*(named[o] for o in call.operands), *call.numbers)\n", "IndexError",
               'spec.name == "tanh"'),
        _raise("op_float_rule", "the op table's float rule (from sympy's diff) fails", "ops.row",
               '    symbols = sympy.symbols(f"a0:{nargs}", real=True)\n', "ZeroDivisionError"),
        # graph building and the engine accessors
        _raise("graph_build", "graph building fails on graphs of more than three nodes", "graph",
               "        for node in self.nodes:\n            values.append(eng.apply(", "IndexError",
               "len(self.nodes) > 3"),
        _raise("engine_grad", "Engine.grad fails on a negative gradient", "engines.engine",
               "        return g if type(g) in PLAIN else boundary.engine_call(stage, as_number, g,",
               "TypeError", "type(g) is float and g < -2"),
        _raise("engine_backward", "Engine.backward fails under create_graph", "engines.engine",
               '        kwargs = {"create_graph": True} if create_graph else {}\n', "AttributeError",
               "create_graph"),
        _raise("discovery", "discovery fails after finding the class", "engines.discover",
               "    return _resolve(target, cls=cls,", "AttributeError"),
        _raise("discovery_fit", "discovery fails reading which member a backward pass changed", "engines.fit",
               "    changed = [n for n, v in after.items() if n != data_attr and before.get(n) != v]\n",
               "KeyError"),
        _raise("accessors_engine", "the Engine of a class with accessor methods fails", "engines.forms",
               "    shown = [shown_as(adapter.cls, n) for n in (adapter.data_attr, adapter.grad_attr)]\n",
               "IndexError", target=ACCESSORS),
        _raise("write_grad", "writing a gradient in the engine's kind fails", "engines.numbers",
               "    return in_kind(current, g, keep)\n", "TypeError"),
        # oracles and references
        _raise("symbolic_tolerances", "the symbolic oracle's tolerance fails", "oracles.symbolic",
               "    _, weighted = backward_path_sums(graph, values, partials)\n", "ZeroDivisionError"),
        _raise("edge_reference", "the edge probe's reference fails at large arguments", "probes.regions",
               "    symbols, exprs = _op_expressions(op, len(args), const)\n", "TypeError",
               "max(map(abs, args)) > 1e300"),
        _raise("fd_oracle", "finite differences (the second vote) fail", "oracles.fd",
               "    d1, f1 = _central(f, x, j, h)\n", "KeyError", target=WRONG),
        _raise("interval_reference", "the certified reference's interval evaluation fails",
               "oracles.reference", "    args = [iv.mpf(x.numerator) / x.denominator for x in point]\n",
               "IndexError"),
        _raise("second_order_model", "the second-order oracle fails", "oracles.derivatives",
               "    eng = resolve_engine(engine)\n    n = len(graph.leaves)\n\n    def build()", "KeyError"),
        # strategies and checks
        _raise("graph_strategy", "the graph strategy fails while drawing", "strategies.examples",
               "        # in three graphs out of four a root op goes on top;", "AttributeError"),
        _raise("linearity_check", "a stray assert in the linearity property's own code", "checks.properties",
               "    fv, gv = _on_leaves(f, eng, leaves), _on_leaves(g, eng, leaves)\n", "AssertionError"),
        _raise("convention_model", "the backward-convention model fails", "checks.conventions",
               "    grads: list[Fraction] = []\n", "IndexError"),
        _raise("audit_run", "the checks' run of a graph fails after a correct pass", "checks.common",
               "    grads = [eng.grad(v) for v in values[: len(graph.leaves)]]\n    return out, grads\n",
               "ZeroDivisionError", "len(graph.nodes) > 4"),
        # probes
        _raise("out_of_domain", "the out-of-domain probe's classification fails", "probes.edges",
               "    spec = OPS[point.op]\n    try:\n        y = eng.data(", "KeyError"),
        _raise("bad_inputs", "the bad-inputs probe fails", "probes.bad_inputs", "    accepted = []\n",
               "TypeError"),
        _raise("conventions", "the conventions probe's wording fails", "probes.conventions",
               "    interior = _change(first[2], second[2])\n", "KeyError"),
        _raise("nested", "the nested probe's run fails", "probes.nested",
               "        below = self.derivative(k + 1) if k + 1 < self.nest.depth else None\n", "IndexError"),
        _raise("memory", "the memory probe's recipe fails", "probes.memory",
               "    values: list[Any] = []\n    blocks = []\n", "AttributeError"),
        _raise("support", "the support probe fails", "probes.support",
               "        usable = usable_consts(eng, spec) if spec.consts else ()\n", "ZeroDivisionError"),
        _raise("support_error", "the support probe fails reading a missing op's error", "probes.support",
               "    spec = OPS[op]\n    try:\n", "KeyError", target=MISSING),
        _raise("determinism", "the determinism probe's reading of a run fails", "probes.determinism",
               "    with contextlib.redirect_stdout(out):\n", "KeyError"),
        _raise("identify", "the search for extra ops fails", "identify",
               "    skip = _table_methods() | {eng.backward_method, eng.data_attr, eng.grad_attr}\n",
               "TypeError"),
        _raise("catalogue_match", "matching an extra op against the catalogue fails", "identify",
               "    rows = CATALOGUE if arity == 1 else tuple(OPS[n] for n in BINARY_KNOWN)\n", "IndexError",
               target=EXTRA),
        _raise("taylor", "the self-consistency check's Taylor test fails", "checks.extra_ops",
               "    hs = [h0 / 2**k for k in range(TAYLOR_HALVINGS)]\n", "TypeError", target=EXTRA),
        _raise("adapter_class", "the adapter's scalar class fails recording a result", "engines.adapter",
               "        out = self._wrap(result, tuple(parents))\n",
               "KeyError", target=ADAPTED),
        _raise("adapter_leaves", "the adapter's scalar class fails finding the leaves", "engines.adapter",
               "        found: dict[Any, None] = {}\n", "IndexError", "mark", ADAPTED),
        # verdicts, report, reproducers, the command line
        _raise("confirm", "the second vote's rule fails", "verdicts", "    if not first_rejects:\n",
               "ZeroDivisionError", "first_rejects", WRONG),
        _raise("where", "describing a failing graph fails", "checks.common",
               "    expr, point = graph.expression(), _point(graph)\n", "AttributeError", target=WRONG),
        # the runner, the registry and the checks' rooms
        _raise("trials", "the runner's tally of what was judged fails", "runner",
               "        for check in checks:\n", "KeyError", "sum(self.judged.values()) > 20"),
        _raise("registry", "the registry's run of the checks fails at the mlp check", "checks.registry",
               "        if run.wanted & set(entry.names):\n", "RuntimeError", 'entry.names[0] == "mlp"'),
        _raise("gradient_judge", "judging a wrong gradient fails", "checks.gradients",
               "    expected = numbers_source(r.oracle for r in report.rows)\n", "IndexError", target=WRONG),
        _raise("ops_check", "the ops check fails listing number types", "checks.per_op",
               "    for kind, example in (\n", "LookupError"),
        _raise("stateful_check", "the stateful check fails after observing the convention", "checks.stateful",
               '    run.observed["convention"] = observed\n', "ValueError"),
        _raise("second_order_check", "the second-order check fails judging a Hessian",
               "checks.second_order", "            higher.check_second_order(eng, graph, derivatives=got)\n",
               "TypeError"),
        _raise("auditor", "the audit fails gathering the probes' findings", "auditor",
               "    probe_kinds = {f.kind", "AttributeError"),
        _raise("verdict_rule", "the verdict rule fails on a check with findings", "findings",
               "    if any(f.kind in DEFECT_KINDS for f in findings):\n", "ZeroDivisionError", "findings"),
        _raise("merge", "merging findings fails", "verdicts",
               "    groups: dict[tuple[str, str | None], list[Finding]] = {}\n", "KeyError"),
        _raise("reproducer", "writing a reproducer fails", "reproducers", "    names = {\n",
               "AttributeError"),
        _raise("report", "rendering the report fails", "report",
               "        caps = self.capabilities\n        acc = self.accessors\n", "TypeError"),
        _raise("cli", "the command line's redirection of stdout fails", "__main__", "    saved = os.dup(1)\n",
               "IndexError"),
    ]
}  # fmt: skip


def run_planted(name: str) -> subprocess.CompletedProcess[str]:
    """The audit of our engine, run in a fresh interpreter with the fault ``name`` planted."""
    plant = FAULTS[name].plant
    plant.planted(plant.path.read_text(encoding="utf-8"))  # out of date: fail here, loudly
    command = [sys.executable, "-m", "regressions.fault_zoo", name]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def main(argv: Sequence[str]) -> int:
    if not argv:
        for fault in FAULTS.values():
            print(f"{fault.name}: {fault.plant.what} ({fault.plant.module}; raises {fault.raises})")
        return 0
    fault = FAULTS[argv[0]]
    install(fault.plant)
    from autograd.testing.__main__ import main as cli

    code = cli(["audit", *fault.target, *AUDIT_ARGS])
    for applied in APPLIED:
        print(f"{MARKER} {applied} in {fault.plant.module}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
