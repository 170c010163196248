"""``python -m benchmarks [--quick] [--out DIR]``: run everything, print the table, write the results."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from autograd.datasets import make_moons
from benchmarks import timing
from benchmarks import workloads as w
from benchmarks.report import ChainRow, Results, Row, markdown, plot, seconds, table
from benchmarks.timing import Run, Spread, alternate, paired_ratios, phase, totals

HERE = Path(__file__).resolve().parent
PLOT_NAME = "chain_scaling.png"


def progress(text: str) -> None:
    print(f"... {text}", file=sys.stderr, flush=True)


def side_by_side(
    results: Results, label: str, runs: dict[str, Run], repeats: int, phases: Sequence[str] = ()
) -> None:
    """Time ``runs`` (ours and micrograd) alternately; add a row for the total and one per phase."""
    progress(f"{label}: {repeats} runs each")
    t = alternate(runs, repeats)
    ours, mg = t["ours"], t["micrograd"]
    results.rows.append(
        Row(
            label,
            Spread.of(totals(ours)),
            Spread.of(totals(mg)),
            Spread.of(paired_ratios(totals(mg), totals(ours))),
            "s",
        )
    )
    for i, name in enumerate(phases):
        results.rows.append(
            Row(
                f"  {name} only",
                Spread.of(phase(ours, i)),
                Spread.of(phase(mg, i)),
                Spread.of(paired_ratios(phase(mg, i), phase(ours, i))),
                "s",
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
    return row


def run(quick: bool) -> Results:
    results = Results(quick=quick)
    ours, mg = w.ours(), w.micrograd()
    points, labels = make_moons(200, noise=0.1, seed=0)
    our_model, mg_model = ours.make_model(), mg.make_model()
    w.copy_weights(our_model, mg_model)
    worst = w.same_function(ours, our_model, mg, mg_model, points, labels)
    if worst > 1e-9:
        raise SystemExit(f"benchmarks: the two networks differ by {worst!r}: they would not do the same work")
    results.notes.append(
        f"Same work: on the 200-point batch the two engines' losses and all 337 gradients "
        f"agree to within {worst:.1e}."
    )

    # 1, 2: one sample, then the whole batch
    x = points[0]
    side_by_side(
        results,
        "one-sample step (fwd+bwd)",
        {
            "ours": lambda: w.one_sample_step(our_model, x),
            "micrograd": lambda: w.one_sample_step(mg_model, x),
        },
        20 if quick else 300,
        ("forward", "backward"),
    )
    side_by_side(
        results,
        "batch step, 200 points (fwd+bwd)",
        {
            "ours": lambda: w.batch_step(ours, our_model, points, labels),
            "micrograd": lambda: w.batch_step(mg, mg_model, points, labels),
        },
        2 if quick else 7,
        ("forward", "backward"),
    )

    # 3: the chain
    progress("chain: micrograd's deepest chain at the default recursion limit")
    deepest = results.micrograd_deepest = w.deepest_chain(mg.Value)
    default_sizes = [100, max(100, deepest // 100 * 100)]
    raised_sizes = [1000, 10_000] if quick else [1000, 10_000, 100_000]
    repeats = {100: 50, 1000: 20, 10_000: 9, 100_000: 5, 1_000_000: 3}
    for n in dict.fromkeys(default_sizes):
        reps = 5 if quick else repeats[100]
        progress(f"chain N={n}: {reps} runs each")
        samples = alternate(
            {"ours": lambda n=n: w.chain(ours.Value, n), "micrograd": lambda n=n: w.chain(mg.Value, n)}, reps
        )
        results.chain.append(chain_row(n, samples))
    for n in raised_sizes:
        reps = 3 if quick else repeats[n]
        progress(f"chain N={n:,}: {reps} runs each (micrograd with a raised recursion limit)")
        runs = {"ours": lambda n=n: w.chain(ours.Value, n), "micrograd": lambda n=n: w.chain(mg.Value, n)}
        samples = w.with_deep_recursion(lambda runs=runs, reps=reps: alternate(runs, reps))
        results.chain.append(chain_row(n, samples, raised=True))
    if not quick:
        progress("chain N=1,000,000: 3 runs, ours only (at the default recursion limit)")
        results.chain.append(
            chain_row(1_000_000, alternate({"ours": lambda: w.chain(ours.Value, 1_000_000)}, 3))
        )
        progress("chain N=1,000,000: 1 run with the GC off, for reference")
        fwd, bwd = w.without_gc(lambda: w.chain(ours.Value, 1_000_000))
        results.notes.append(
            "Why our forward time per node grows with N: our nodes hold references, so the cyclic GC tracks "
            "them (though they never form cycles), and its full collections traverse the whole growing heap. "
            f"For reference only, one N = 1,000,000 run with the GC off: forward {seconds(fwd / 2e6)}, "
            f"backward {seconds(bwd / 2e6)} per node."
        )

    # 4: memory
    progress("memory (tracemalloc)")
    results.rows.append(
        Row(
            "memory per op node (chain of 20,000 nodes)",
            Spread.of([w.bytes_per_op_node(ours.Value)]),
            Spread.of([w.bytes_per_op_node(mg.Value)]),
            None,
            "B",
        )
    )
    peaks = [w.batch_step_peak(e, m, points, labels) for e, m in ((ours, our_model), (mg, mg_model))]
    results.rows.append(
        Row("peak memory of a batch step", Spread.of([peaks[0]]), Spread.of([peaks[1]]), None, "B")
    )
    for row in results.rows[-2:]:
        row.ratio = Spread.of([row.micrograd.median / row.ours.median])  # type: ignore[union-attr]

    # 5: training
    max_steps = 300
    progress("training ours to accuracy 1.000")
    steps, secs, acc = w.train_to_full_accuracy(ours, ours.make_model(), points, labels, max_steps)
    trained = [(steps, secs, acc)]
    if quick:
        results.notes.append("micrograd's training run is skipped by --quick.")
    else:
        progress("training micrograd to accuracy 1.000 (the long one)")
        model = mg.make_model()
        w.copy_weights(ours.make_model(), model)
        trained.append(w.train_to_full_accuracy(mg, model, points, labels, max_steps))
    names = ("ours", "micrograd")[: len(trained)]
    for (_, _, acc), name in zip(trained, names, strict=True):
        if acc != 1.0:
            results.notes.append(f"{name} did not reach accuracy 1.000 in {max_steps} steps (got {acc:.3f}).")
    results.rows.append(
        Row(
            "train moons to accuracy 1.000 (one run)",
            Spread.of([trained[0][1]]),
            Spread.of([trained[1][1]]) if len(trained) > 1 else None,
            Spread.of([trained[1][1] / trained[0][1]]) if len(trained) > 1 else None,
            "s",
            note="",
        )
    )
    results.notes.append(
        "Training: micrograd's demo recipe on both engines (whole batch of 200 points, max-margin loss "
        "+ 1e-4 L2, lr = 1 - 0.9 k / 100), from the same initial weights, until the accuracy is 1.000: "
        + ", ".join(f"{name} took {s} steps" for (s, _, _), name in zip(trained, names, strict=True))
        + ".  The time includes evaluating the final accuracy, and the GC on the way."
    )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="few repeats, small sizes, no micrograd training; writes nothing unless --out",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help=f"directory for RESULTS.md and {PLOT_NAME} (default: {HERE})"
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
    out = args.out if args.out is not None else (None if args.quick else HERE)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        plotted = plot(results, out / PLOT_NAME)
        if not plotted:
            print(f"benchmarks: matplotlib is not installed, so {PLOT_NAME} was not drawn", file=sys.stderr)
        (out / "RESULTS.md").write_text(markdown(results, PLOT_NAME if plotted else None), encoding="utf-8")
        print(f"wrote {out / 'RESULTS.md'}" + (f" and {out / PLOT_NAME}" if plotted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
