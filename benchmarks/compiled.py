"""The compiler's figures: ``autograd.compile`` side by side with the interpreter, micrograd and plain floats.

* One-sample step: the network's output for one input and its gradient with respect to the 337
  parameters (and the 2 inputs), compiled once as a function of the parameters and the input
  (``compiled(weights + x)``, the weights kept as a list of floats, as the plain-float
  reference keeps them), against the three lines of the main table.
* Batch step: the 200-point moons loss and its gradient (``autograd.cli.compiled_moons_loss``:
  what ``train --compile`` runs: one function for a block of 8 points, compiled once, called
  for each block of the batch, carrying the gradient from block to block), plus the update.
* Training to accuracy 1.000 with micrograd's recipe, compiled, the compilation included.
* What compiling costs: trace + code generation + ``compile()``, the size of the generated
  code, and after how many calls it has paid for itself.

``python -m benchmarks.compiled [--quick] [--micrograd-training]`` prints this section alone
(with ``--micrograd-training`` it trains micrograd too, in the same run, for the training ratio).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import autograd
from autograd import cli
from autograd.cli import _parameters, compiled_moons_loss
from autograd.datasets import make_moons
from autograd.engine import Value
from autograd.nn import MLP
from benchmarks import figures as figure_file
from benchmarks import reference, timing
from benchmarks import workloads as w
from benchmarks.report import Section, md_table, seconds, times
from benchmarks.timing import Run, Spread, alternate, paired_ratios, totals

TITLE = "Compiled: `autograd.compile` against the interpreter, micrograd and plain floats"


def one_sample_function(model: MLP) -> tuple[Callable[..., Value], list[float]]:
    """``f(*params, x0, x1)``: the model's output, and the model's current weights."""
    params = model.parameters()
    n = len(params)

    def f(*xs: Value) -> Value:
        with _parameters(model, xs[:n]):
            out = model(list(xs[n:]))
        assert isinstance(out, Value)
        return out

    return f, [p.data for p in params]


def timed_compile(build: Callable[[], Any]) -> tuple[Any, float]:
    t0 = timing.clock()
    compiled = build()
    return compiled, timing.clock() - t0


def compiled_train(
    model: MLP, points: Sequence[Sequence[float]], labels: Sequence[int], max_steps: int
) -> tuple[int, float, float, float]:
    """``workloads.train_to_full_accuracy`` run compiled: (steps, seconds, accuracy, seconds compiling)."""
    params = model.parameters()
    t0 = timing.clock()
    step_of = compiled_moons_loss(model, points, labels)
    t1 = timing.clock()
    accuracy = 0.0
    step = 0
    for step in range(max_steps + 1):
        _, accuracy, grads = step_of()
        if accuracy == 1.0 or step == max_steps:
            break
        lr = 1.0 - 0.9 * step / 100
        for p, g in zip(params, grads, strict=True):
            p.data -= lr * g
    return step, timing.clock() - t0, accuracy, t1 - t0


def micrograd_training_seconds(progress: Callable[[str], None], max_steps: int = 300) -> float:
    """micrograd trained to accuracy 1.000 as ``python -m benchmarks`` trains it (same weights, recipe)."""
    progress("training micrograd to accuracy 1.000 (the long one)")
    ours, mg = w.ours(), w.micrograd()
    points, labels = make_moons(200, noise=0.1, seed=0)
    model = mg.make_model()
    w.copy_weights(ours.make_model(), model)
    steps, secs, acc = w.train_to_full_accuracy(mg, model, points, labels, max_steps)
    progress(f"micrograd: {secs:.0f} s, {steps} steps, accuracy {acc:.3f}")
    return secs


def _ratio(slow: list[float], fast: list[float]) -> str:
    s = Spread.of(paired_ratios(slow, fast))
    return f"{s.median:.1f}× ({s.low:.1f}–{s.high:.1f})"


def _median(samples: list[float]) -> str:
    return seconds(statistics.median(samples))


def section(
    quick: bool, progress: Callable[[str], None], micrograd_train_seconds: float | None = None
) -> Section:
    ours, mg = w.ours(), w.micrograd()
    points, labels = make_moons(200, noise=0.1, seed=0)
    our_model, mg_model = ours.make_model(), mg.make_model()
    w.copy_weights(our_model, mg_model)
    plain = reference.FloatMLP.of(our_model)
    x = points[0]

    progress("compiled: tracing and compiling the one-sample function and the batch loss")
    f, weights = one_sample_function(our_model)
    one, one_compile = timed_compile(lambda: autograd.compile(f, [*weights, *x]))
    batch_step_of, batch_compile = timed_compile(lambda: compiled_moons_loss(our_model, points, labels))
    inputs = [*weights, *x]
    value, grads = one(inputs)
    our_model.zero_grad()
    out = our_model(x)
    assert isinstance(out, Value)
    out.backward()
    if value != out.data or grads[:-2] != [p.grad for p in our_model.parameters()]:
        raise SystemExit("benchmarks: the compiled one-sample step differs from the interpreter")
    our_model.zero_grad()

    def compiled_one() -> tuple[tuple[float, ...], Any]:
        t0 = timing.clock()
        result = one(inputs)
        return (timing.clock() - t0,), result

    def compiled_batch() -> tuple[tuple[float, ...], Any]:
        t0 = timing.clock()
        result = batch_step_of()
        return (timing.clock() - t0,), result

    one_runs: dict[str, Run] = {
        "compiled": compiled_one,
        "ours": lambda: w.one_sample_step(our_model, x),
        "micrograd": lambda: w.one_sample_step(mg_model, x),
        "plain": lambda: reference.one_sample_step(plain, x),
    }
    reps = 20 if quick else 300
    progress(f"compiled: one-sample step, {reps} runs each")
    t_one = {name: totals(s) for name, s in alternate(one_runs, reps).items()}
    batch_runs: dict[str, Run] = {
        "compiled": compiled_batch,
        "ours": lambda: w.batch_step(ours, our_model, points, labels),
        "micrograd": lambda: w.batch_step(mg, mg_model, points, labels),
        "plain": lambda: reference.batch_step(plain, points, labels),
    }
    reps = 2 if quick else 7
    progress(f"compiled: batch step, {reps} runs each")
    t_batch = {name: totals(s) for name, s in alternate(batch_runs, reps).items()}
    our_model.zero_grad()

    progress("compiled: training to accuracy 1.000, compiled and interpreted")
    steps_c, secs_c, _acc_c, compile_c = compiled_train(ours.make_model(), points, labels, 300)
    steps_i, secs_i, _acc_i = w.train_to_full_accuracy(ours, ours.make_model(), points, labels, 300)

    rows = []
    figures: dict[str, str] = {}
    for key, label, t in (
        ("one_sample", "one-sample step (fwd+bwd)", t_one),
        ("batch", "batch step, 200 points (fwd+bwd)", t_batch),
    ):
        figures[f"compiled.{key}.compiled"] = _median(t["compiled"])
        for name, slow, fast in (
            ("interpreted_over_compiled", "ours", "compiled"),
            ("micrograd_over_compiled", "micrograd", "compiled"),
            ("compiled_over_plain", "compiled", "plain"),
        ):
            figures[f"compiled.{key}.{name}"] = times(statistics.median(paired_ratios(t[slow], t[fast])))
        rows.append(
            [
                label,
                _median(t["compiled"]),
                _median(t["ours"]),
                _median(t["micrograd"]),
                _median(t["plain"]),
                _ratio(t["ours"], t["compiled"]),
                _ratio(t["micrograd"], t["compiled"]),
                _ratio(t["compiled"], t["plain"]),
            ]
        )
    mg_train = f"{micrograd_train_seconds:.0f} s" if micrograd_train_seconds else "not run"
    rows.append(
        [
            "train moons to accuracy 1.000 (one run, compiling included)",
            f"{secs_c:.2f} s ({steps_c} steps, {compile_c:.2f} s of it compiling)",
            f"{secs_i:.2f} s ({steps_i} steps)",
            mg_train,
            "",
            f"{secs_i / secs_c:.1f}×",
            f"{micrograd_train_seconds / secs_c:.0f}×" if micrograd_train_seconds else "",
            "",
        ]
    )

    one_c, one_i = statistics.median(t_one["compiled"]), statistics.median(t_one["ours"])
    batch_c = statistics.median(t_batch["compiled"])
    batch_i = statistics.median(t_batch["ours"])
    paid_one = one_compile / (one_i - one_c)
    paid_batch = batch_compile / (batch_i - batch_c)
    one_vs_plain = statistics.median(paired_ratios(t_one["compiled"], t_one["plain"]))
    one_vs_mg = statistics.median(paired_ratios(t_one["micrograd"], t_one["compiled"]))
    batch_vs_mg = statistics.median(paired_ratios(t_batch["micrograd"], t_batch["compiled"]))
    train_vs_mg = micrograd_train_seconds / secs_c if micrograd_train_seconds else None
    train_no_compile = micrograd_train_seconds / (secs_c - compile_c) if micrograd_train_seconds else None

    figures |= {
        "compiled.train.compiled": f"{secs_c:.2f} s",
        "compiled.train.compiling": f"{compile_c:.2f} s",
        "compiled.train.steps": str(steps_c),
        "compiled.train.interpreted": f"{secs_i:.2f} s",
        "compiled.train.interpreted_over_compiled": times(secs_i / secs_c),
        "compiled.one_sample.compile_time": f"{one_compile * 1e3:.0f} ms",
        "compiled.one_sample.lines": f"{one.source.count(chr(10)):,}",
        "compiled.one_sample.paid_after": f"{paid_one:.0f}",
        "compiled.batch.compile_time": f"{batch_compile:.2f} s",
        "compiled.batch.paid_after": f"{paid_batch:.1f}",
    }
    if micrograd_train_seconds and train_vs_mg and train_no_compile:
        figures["compiled.train.micrograd"] = f"{micrograd_train_seconds:.0f} s"
        figures["compiled.train.micrograd_over_compiled"] = times(train_vs_mg)
        figures["compiled.train.micrograd_over_compiled_without_compiling"] = times(train_no_compile)

    def verdict(met: bool | None) -> str:
        return "not measured" if met is None else "met" if met else "NOT met"

    targets = [
        (
            "one-sample step ≤ 1.0× plain float and ≥ 12× micrograd",
            verdict(one_vs_plain <= 1.0 and one_vs_mg >= 12),
            f"{one_vs_plain:.2f}× plain float, {one_vs_mg:.1f}× micrograd ({seconds(one_c)} compiled)",
        ),
        (
            "batch step ≥ 150× micrograd",
            verdict(batch_vs_mg >= 150),
            f"{batch_vs_mg:.0f}× micrograd ({seconds(batch_c)} compiled)",
        ),
        (
            "train to accuracy 1.000 ≥ 300× micrograd's demo loop",
            verdict(None if train_vs_mg is None else train_vs_mg >= 300),
            "micrograd not run (--quick)"
            if train_vs_mg is None
            else f"{train_vs_mg:.0f}× with the compiling, {train_no_compile:.0f}× without it",
        ),
        (
            "compiling pays for itself within 200 calls",
            verdict(paid_one <= 200),
            f"one-sample function: {one_compile * 1e3:.0f} ms to trace, generate and compile "
            f"({one.source.count(chr(10))} lines, {len(one.source) / 1024:.0f} KiB), paid after "
            f"{paid_one:.0f} calls; the batch loss (blocks of {cli.BLOCK} points): "
            f"{batch_compile:.2f} s, paid after {paid_batch:.1f} batch steps",
        ),
    ]
    for key, (name, met, measured) in zip(
        ("one_sample", "batch", "train", "compiling"), targets, strict=True
    ):
        figures[f"compiled.target.{key}"] = met
        figures[f"compiled.target.{key}.name"] = name
        print(f"target (compiled): {name}: {met}: {measured}")
        rows.append([f"**target:** {name}", met, measured, "", "", "", "", ""])
    text = (
        "One process, the four lines taking turns (compiled, interpreted, micrograd, plain float), each run "
        "from a collected heap with the GC on, timed by CPU time; medians, ratios pair by pair (median, "
        "min–max).  The compiled function is traced once and called with numbers: the one-sample function "
        "takes the 337 weights and the input as one list of floats (kept between calls, as the plain-float "
        "reference keeps its lists) and returns the output and its gradient; the batch function is "
        "`train --compile`'s (`autograd.cli.compiled_moons_loss`: one function for a block of "
        f"{cli.BLOCK} points, called for each block, carrying the gradient from block to block), reading "
        "the weights from the model at each step.  Both give the interpreter's numbers bit for bit "
        "(checked before timing, and by "
        "tests/test_compile.py).  The interpreter's own speed is unchanged: `autograd/engine.py` is not "
        "touched by the compiler, whose trace patches `Value` only while `f` runs."
    )
    header = [
        "workload",
        "compiled",
        "interpreted (ours)",
        "micrograd",
        "plain float",
        "interpreted / compiled",
        "micrograd / compiled",
        "compiled / plain float",
    ]
    return Section(TITLE, text, header, rows, figures)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compiled", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few repeats")
    parser.add_argument(
        "--write",
        type=Path,
        default=None,
        help="replace this section of that RESULTS.md (written by python -m benchmarks) with this run's, "
        "and its figures in the results.json beside it",
    )
    parser.add_argument(
        "--micrograd-training",
        action="store_true",
        help="also train micrograd to accuracy 1.000 (minutes), for the training target's ratio",
    )
    args = parser.parse_args(argv)

    def progress(text: str) -> None:
        print(f"... {text}", file=sys.stderr, flush=True)

    mg_seconds = micrograd_training_seconds(progress) if args.micrograd_training else None
    result = section(args.quick, progress, mg_seconds)
    text = section_markdown(result)
    print(text)
    if args.write is not None:
        args.write.write_text(replace_section(args.write.read_text(encoding="utf-8"), text), encoding="utf-8")
        results_json = args.write.parent / figure_file.RESULTS_JSON.name
        figure_file.update(result.figures, "compiled.", results_json)
        print(f"wrote the section into {args.write} and its figures into {results_json}")
    return 0


def section_markdown(result: Section) -> str:
    return "\n".join(
        [
            f"## {result.title}",
            "",
            "`python -m benchmarks.compiled --micrograd-training --write benchmarks/RESULTS.md` measures "
            "this section alone and writes it here, and its figures into `results.json`.",
            "",
            result.text,
            "",
            *md_table(result.header, result.rows),
        ]
    )


def replace_section(document: str, text: str) -> str:
    """``document`` with its section ``TITLE`` (up to the next ``## `` heading) replaced by ``text``."""
    start = document.index(f"## {TITLE}")
    end = document.find("\n## ", start + 1)
    return document[:start] + text + ("\n" + document[end:] if end != -1 else "\n")


if __name__ == "__main__":
    sys.exit(main())
