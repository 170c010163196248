"""``python -m benchmarks [--quick] [--out DIR]``: run everything, print the table, write the results."""

from __future__ import annotations

import argparse
import datetime
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from autograd.datasets import make_moons
from benchmarks import figures, reference, timing
from benchmarks import workloads as w
from benchmarks.report import (
    ChainRow,
    MethodRow,
    Results,
    Row,
    Target,
    machine,
    markdown,
    plot,
    ratio,
    seconds,
    table,
    targets_text,
)
from benchmarks.report import figures as all_figures
from benchmarks.timing import Run, Spread, alternate, paired_ratios, phase, totals

HERE = Path(__file__).resolve().parent
PLOT_NAME = "chain_scaling.png"


def progress(text: str) -> None:
    print(f"... {text}", file=sys.stderr, flush=True)


ONE_SAMPLE = "one-sample step (zero_grad+fwd+bwd)"
BATCH = "batch step, 200 points (fwd+bwd)"


def side_by_side(
    results: Results, label: str, key: str, runs: dict[str, Run], repeats: int, phases: Sequence[str] = ()
) -> None:
    """Time ``runs`` (ours, micrograd, plain) alternately; add a row for the total and one per phase
    (their figures named ``key`` and ``key.PHASE``)."""
    progress(f"{label}: {repeats} runs each")
    t = alternate(runs, repeats)
    ours, mg, plain = t["ours"], t["micrograd"], t["plain"]
    parts: list[tuple[str, str, Callable[[list[tuple[float, ...]]], list[float]]]] = [(label, key, totals)]
    parts += [
        (f"  {name} only", f"{key}.{name}", lambda s, i=i: phase(s, i)) for i, name in enumerate(phases)
    ]
    for name, part_key, part in parts:
        results.rows.append(
            Row(
                name,
                Spread.of(part(ours)),
                Spread.of(part(mg)),
                Spread.of(paired_ratios(part(mg), part(ours))),
                "s",
                plain=Spread.of(part(plain)),
                vs_plain=Spread.of(paired_ratios(part(ours), part(plain))),
                key=part_key,
            )
        )


def chain_row(n: int, samples: dict[str, list[tuple[float, ...]]], raised: bool = False) -> ChainRow:
    per_node = 1 / (2 * n)
    ours = samples["ours"]
    row = ChainRow(
        n,
        Spread.of(phase(ours, 0)).scaled(per_node),
        Spread.of(phase(ours, 1)).scaled(per_node),
        Spread.of(totals(ours)).scaled(per_node),
        raised_limit=raised,
    )
    if "micrograd" in samples:
        mg = samples["micrograd"]
        row.micrograd = Spread.of(totals(mg)).scaled(per_node)
        row.ratio = Spread.of(paired_ratios(totals(mg), totals(ours)))
    if "plain" in samples:
        plain = samples["plain"]
        row.plain = Spread.of(totals(plain)).scaled(per_node)
        row.vs_plain = Spread.of(paired_ratios(totals(ours), totals(plain)))
    return row


def timed_four_ways(results: Results, workloads: dict[str, tuple[dict[str, Run], int]]) -> None:
    """The micrograd and plain-float ratios with and without ``gc.collect()`` before each run, by CPU
    and by wall time, each way its own alternation of the three lines."""
    chosen = timing.clock
    try:
        for label, (runs, repeats) in workloads.items():
            for collected in (True, False):
                for clock in ("cpu", "wall"):
                    progress(
                        f"{label}: timed with {clock} time, heap collected {collected}: {repeats} runs each"
                    )
                    timing.clock = timing.CLOCKS[clock]
                    t = alternate(runs, repeats, collect=collected)
                    ours, mg, plain = (totals(t[name]) for name in ("ours", "micrograd", "plain"))
                    results.methods.append(
                        MethodRow(
                            label,
                            collected,
                            clock,
                            repeats,
                            Spread.of(paired_ratios(mg, ours)),
                            Spread.of(paired_ratios(ours, plain)),
                        )
                    )
    finally:
        timing.clock = chosen


def row(results: Results, label: str) -> Row:
    return next(r for r in results.rows if r.label == label)


def growth_exponent(rows: list[ChainRow]) -> float:
    """k in time ~ N**k between the two largest N measured (1 = linear: constant time per node)."""
    small, large = rows[-2], rows[-1]
    return 1 + math.log(large.ours.median / small.ours.median) / math.log(large.n / small.n)


def targets(results: Results, largest_chain: int) -> list[Target]:
    one, batch = row(results, ONE_SAMPLE), row(results, BATCH)
    assert one.ours and one.ratio and one.vs_plain and batch.ours and batch.ratio and batch.vs_plain
    with_mg = [c for c in results.chain if c.ratio is not None]
    deepest = with_mg[-1]
    assert deepest.ratio and deepest.vs_plain
    ours_only = sorted(results.chain, key=lambda c: c.n)
    linear: bool | None = None
    exponent_text = f"not measured up to N = {largest_chain:,} (--quick)"
    if ours_only[-1].n >= largest_chain:
        k = growth_exponent(ours_only)
        linear = k <= 1.05
        exponent_text = (
            f"time ~ N^{k:.3f} between N = {ours_only[-2].n:,} and {ours_only[-1].n:,} "
            f"({seconds(ours_only[-2].ours.median)} → {seconds(ours_only[-1].ours.median)} per node; "
            "linear: exponent ≤ 1.05)"
        )
    memory = row(results, MEMORY)
    assert memory.ours and memory.plain
    chain_met = deepest.ratio.median >= 6
    return [
        Target(
            "one-sample step ≤ 2× plain float and ≥ 8× micrograd",
            one.vs_plain.median <= 2 and one.ratio.median >= 8,
            f"{one.vs_plain.median:.2f}× plain float, {one.ratio.median:.1f}× micrograd "
            f"({seconds(one.ours.median)} ours)",
            ratio(one.vs_plain),
            key="one_sample",
        ),
        Target(
            "whole-batch step, 200 moons points, ≥ 60× micrograd",
            batch.ratio.median >= 60,
            f"{batch.ratio.median:.1f}× micrograd ({seconds(batch.ours.median)} ours)",
            ratio(batch.vs_plain),
            key="batch",
        ),
        Target(
            "chain per node ≥ 6× micrograd, linear in N up to 1,000,000",
            None if linear is None else chain_met and linear,
            f"{deepest.ratio.median:.1f}× micrograd at N = {deepest.n:,} (the largest N micrograd ran; "
            + ", ".join(f"{c.ratio.median:.1f}× at N = {c.n:,}" for c in with_mg[:-1] if c.ratio)
            + f"); {exponent_text}",
            ratio(deepest.vs_plain),
            key="chain",
        ),
        Target(
            "memory ≤ 100 B per op node",
            memory.ours.median <= 100,
            f"{memory.ours.median:.0f} B per op node (tracemalloc; see the notes for the allocator's blocks)",
            f"{memory.ours.median / memory.plain.median:.1f}× "
            f"(plain float keeps {memory.plain.median:.0f} B per op node's worth)",
            key="memory",
        ),
    ]


MEMORY = "memory per op node (chain of 20,000 nodes)"
LARGEST_CHAIN = 1_000_000


def run(quick: bool, sections: bool = True) -> Results:
    results = Results(quick=quick)
    ours, mg = w.ours(), w.micrograd()
    points, labels = make_moons(200, noise=0.1, seed=0)
    our_model, mg_model = ours.make_model(), mg.make_model()
    w.copy_weights(our_model, mg_model)
    worst = w.same_function(ours, our_model, mg, mg_model, points, labels)
    if worst > 1e-9:
        raise SystemExit(f"benchmarks: the two networks differ by {worst!r}: they would not do the same work")
    plain = reference.FloatMLP.of(our_model)
    differ = reference.differences(plain, our_model, points, labels)
    if differ:
        raise SystemExit(f"benchmarks: the plain-float reference differs from ours: {differ}")
    results.notes.append(
        f"Same work: on the 200-point batch the two engines' losses and all 337 gradients "
        f"agree to within {worst:.1e}; the plain-float reference's loss and gradients equal ours bit for bit."
    )

    # 1, 2: one sample, then the whole batch
    x = points[0]
    one_sample: dict[str, Run] = {
        "ours": lambda: w.one_sample_step(our_model, x),
        "micrograd": lambda: w.one_sample_step(mg_model, x),
        "plain": lambda: reference.one_sample_step(plain, x),
    }
    side_by_side(
        results,
        ONE_SAMPLE,
        "one_sample",
        one_sample,
        20 if quick else 300,
        ("zero_grad", "forward", "backward"),
    )
    batch: dict[str, Run] = {
        "ours": lambda: w.batch_step(ours, our_model, points, labels),
        "micrograd": lambda: w.batch_step(mg, mg_model, points, labels),
        "plain": lambda: reference.batch_step(plain, points, labels),
    }
    side_by_side(results, BATCH, "batch", batch, 2 if quick else 7, ("forward", "backward"))

    # 3: the chain
    progress("chain: micrograd's deepest chain at the default recursion limit")
    deepest = results.micrograd_deepest = w.deepest_chain(mg.Value)
    default_sizes = [100, max(100, deepest // 100 * 100)]
    raised_sizes = [1000, 10_000] if quick else [1000, 10_000, 100_000]
    repeats = {100: 50, 1000: 20, 10_000: 9, 100_000: 5, 1_000_000: 3}

    def chain_runs(n: int, with_micrograd: bool = True) -> dict[str, Run]:
        runs: dict[str, Run] = {"ours": lambda: w.chain(ours.Value, n), "plain": lambda: reference.chain(n)}
        if with_micrograd:
            runs["micrograd"] = lambda: w.chain(mg.Value, n)
        return runs

    for n in dict.fromkeys(default_sizes):
        reps = 5 if quick else repeats[100]
        progress(f"chain N={n}: {reps} runs each")
        results.chain.append(chain_row(n, alternate(chain_runs(n), reps)))
    for n in raised_sizes:
        reps = 3 if quick else repeats[n]
        progress(f"chain N={n:,}: {reps} runs each (micrograd with a raised recursion limit)")
        runs = chain_runs(n)
        samples = w.with_deep_recursion(lambda runs=runs, reps=reps: alternate(runs, reps))
        results.chain.append(chain_row(n, samples, raised=True))
    if not quick:
        progress(f"chain N={LARGEST_CHAIN:,}: 3 runs, ours and plain (at the default recursion limit)")
        results.chain.append(chain_row(LARGEST_CHAIN, alternate(chain_runs(LARGEST_CHAIN, False), 3)))
        progress(f"chain N={LARGEST_CHAIN:,}: 1 run with the GC off, for reference")
        fwd, bwd = w.without_gc(lambda: w.chain(ours.Value, LARGEST_CHAIN))
        results.notes.append(
            "Why our forward time per node grows with N: our nodes hold references, so the cyclic GC tracks "
            "them (though they never form cycles), and its full collections traverse the whole growing heap. "
            f"For reference only, one N = {LARGEST_CHAIN:,} run with the GC off: forward "
            f"{seconds(fwd / (2 * LARGEST_CHAIN))}, backward {seconds(bwd / (2 * LARGEST_CHAIN))} per node."
        )

    # 4: memory
    progress("memory (tracemalloc)")
    plain_bytes, plain_blocks = w.reference_bytes_per_op_node()
    our_bytes, our_blocks = w.bytes_per_op_node(ours.Value)
    mg_bytes, mg_blocks = w.bytes_per_op_node(mg.Value)
    results.rows.append(
        Row(
            MEMORY,
            Spread.of([our_bytes]),
            Spread.of([mg_bytes]),
            None,
            "B",
            plain=Spread.of([plain_bytes]),
            key="memory",
        )
    )
    results.notes.append(
        f"Memory per op node as tracemalloc counts it (bytes requested): ours {our_bytes:.0f} B, micrograd "
        f"{mg_bytes:.0f} B, plain float {plain_bytes:.0f} B; in the allocator's 16-byte blocks, which is "
        f"what the process really holds: ours {our_blocks:.0f} B, micrograd {mg_blocks:.0f} B, plain float "
        f"{plain_blocks:.0f} B.  A Value with 6 slots is an 80-byte object, with 5 slots a 72-byte one "
        "that still takes an 80-byte block: only every second slot removed saves memory."
    )
    peaks = [w.peak_memory(batch[name]) for name in ("ours", "micrograd", "plain")]
    our_model.zero_grad()
    mg_model.zero_grad()
    results.rows.append(
        Row(
            "peak memory of a batch step",
            Spread.of([peaks[0]]),
            Spread.of([peaks[1]]),
            None,
            "B",
            plain=Spread.of([peaks[2]]),
            key="peak_memory",
        )
    )
    for r in results.rows[-2:]:
        assert r.ours and r.micrograd and r.plain
        r.ratio = Spread.of([r.micrograd.median / r.ours.median])
        r.vs_plain = Spread.of([r.ours.median / r.plain.median])

    # 5: the ratios timed four ways
    timed_four_ways(
        results,
        {
            ONE_SAMPLE: (one_sample, 20 if quick else 300),
            BATCH: (batch, 1 if quick else 5),
            f"chain N={default_sizes[-1]}, fwd+bwd": (chain_runs(default_sizes[-1]), 5 if quick else 50),
        },
    )

    # 6: training
    max_steps = 300
    progress("training ours to accuracy 1.000")
    trained = {"ours": w.train_to_full_accuracy(ours, ours.make_model(), points, labels, max_steps)}
    progress("training plain float to accuracy 1.000")
    trained["plain"] = reference.train_to_full_accuracy(
        reference.FloatMLP.of(ours.make_model()), points, labels, max_steps
    )
    if quick:
        results.notes.append("micrograd's training run is skipped by --quick.")
    else:
        progress("training micrograd to accuracy 1.000 (the long one)")
        model = mg.make_model()
        w.copy_weights(ours.make_model(), model)
        trained["micrograd"] = w.train_to_full_accuracy(mg, model, points, labels, max_steps)
    for name, (_, _, acc) in trained.items():
        if acc != 1.0:
            results.notes.append(f"{name} did not reach accuracy 1.000 in {max_steps} steps (got {acc:.3f}).")
    secs = {name: t[1] for name, t in trained.items()}
    results.rows.append(
        Row(
            "train moons to accuracy 1.000 (one run)",
            Spread.of([secs["ours"]]),
            Spread.of([secs["micrograd"]]) if "micrograd" in secs else None,
            Spread.of([secs["micrograd"] / secs["ours"]]) if "micrograd" in secs else None,
            "s",
            plain=Spread.of([secs["plain"]]),
            vs_plain=Spread.of([secs["ours"] / secs["plain"]]),
            key="train",
        )
    )
    for name, (steps, _, _) in trained.items():
        results.figures[f"train.{name}_steps"] = str(steps)
    results.notes.append(
        "Training: micrograd's demo recipe (whole batch of 200 points, max-margin loss "
        "+ 1e-4 L2, lr = 1 - 0.9 k / 100), from the same initial weights, until the accuracy is 1.000: "
        + ", ".join(f"{name} took {s} steps" for name, (s, _, _) in trained.items())
        + ".  The time includes evaluating the final accuracy, and the GC on the way."
    )
    results.targets = targets(results, LARGEST_CHAIN)
    if sections:
        from benchmarks import compiled, higher_order

        results.sections.append(compiled.section(quick, progress, secs.get("micrograd")))
        results.sections += higher_order.sections(quick, progress)
    return results


def run_stamp() -> str:
    """When the run ended (kept in results.json only: the documents say what is, not when)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="few repeats, small sizes, no micrograd training; writes nothing unless --out",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"directory for RESULTS.md, results.json and {PLOT_NAME} (default: {HERE})",
    )
    parser.add_argument(
        "--clock",
        choices=sorted(timing.CLOCKS),
        default="cpu",
        help="cpu: the process's CPU time (default, steadier on a shared machine); wall: wall time",
    )
    args = parser.parse_args(argv)
    timing.clock = timing.CLOCKS[args.clock]
    results_clock = args.clock
    results = run(args.quick)
    results.clock = results_clock
    print(table(results))
    for note in results.notes:
        print(f"note: {note}")
    print(targets_text(results))
    out = args.out if args.out is not None else (None if args.quick else HERE)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        plotted = plot(results, out / PLOT_NAME)
        if not plotted:
            print(f"benchmarks: matplotlib is not installed, so {PLOT_NAME} was not drawn", file=sys.stderr)
        (out / "RESULTS.md").write_text(markdown(results, PLOT_NAME if plotted else None), encoding="utf-8")
        about = {**machine(), "clock": results.clock, "quick": results.quick, "run": run_stamp()}
        quoted = all_figures(results) | {"machine": about["machine"], "python": about["python"]}
        figures.save(quoted, about, out / figures.RESULTS_JSON.name)
        print(
            f"wrote {out / 'RESULTS.md'}, {out / figures.RESULTS_JSON.name}"
            + (f" and {out / PLOT_NAME}" if plotted else "")
        )
        print("python -m benchmarks.figures copies the figures into README.md and docs/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
