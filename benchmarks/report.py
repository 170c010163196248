"""The results as a printed table, as ``RESULTS.md``, and as a plot of the chain scaling."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks.timing import Spread


@dataclass
class Row:
    label: str
    ours: Spread | None
    micrograd: Spread | None
    ratio: Spread | None  # micrograd / ours, paired run by run
    unit: str  # "s" (shown as ns..s), "B", "ns/node", "steps"
    note: str = ""


@dataclass
class ChainRow:
    n: int
    ours_fwd: Spread
    ours_bwd: Spread
    ours: Spread  # per node, forward + backward, seconds
    micrograd: Spread | None = None
    ratio: Spread | None = None
    raised_limit: bool = False  # micrograd measured with the recursion limit raised


@dataclass
class Results:
    rows: list[Row] = field(default_factory=list)
    chain: list[ChainRow] = field(default_factory=list)
    micrograd_deepest: int = 0
    notes: list[str] = field(default_factory=list)
    quick: bool = False
    clock: str = "cpu"


# ---------------------------------------------------------------------- formatting
def seconds(x: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def quantity(x: float, unit: str) -> str:
    if unit == "s":
        return seconds(x)
    if unit == "B":
        return f"{x / 2**20:.1f} MiB" if x >= 2**20 else f"{x:.0f} B"
    if unit == "steps":
        return f"{x:.0f}"
    return f"{x:.3g} {unit}"


def spread(s: Spread | None, unit: str) -> str:
    if s is None:
        return "—"
    if s.n == 1 or s.low == s.high:
        return quantity(s.median, unit)
    return f"{quantity(s.median, unit)} ({quantity(s.low, unit)}–{quantity(s.high, unit)})"


def ratio(s: Spread | None) -> str:
    if s is None:
        return "—"
    if s.n == 1:
        return f"{s.median:.1f}×"
    return f"{s.median:.1f}× ({s.low:.1f}–{s.high:.1f})"


def machine() -> dict[str, str]:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        micrograd = metadata.version("micrograd")
    except metadata.PackageNotFoundError:
        micrograd = "not installed"
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "micrograd": micrograd,
    }


# ---------------------------------------------------------------------- text
def table(results: Results) -> str:
    head = ("benchmark", "ours: median (min–max)", "micrograd: median (min–max)", "micrograd / ours")
    lines = [
        [r.label, spread(r.ours, r.unit), spread(r.micrograd, r.unit), ratio(r.ratio)] for r in results.rows
    ]
    lines += [
        [
            f"chain N={c.n:,}: fwd+bwd per node" + (" [mg: raised limit]" if c.raised_limit else ""),
            spread(c.ours, "s"),
            spread(c.micrograd, "s"),
            ratio(c.ratio),
        ]
        for c in results.chain
    ]
    widths = [max(len(head[i]), *(len(line[i]) for line in lines)) for i in range(4)]
    out = [
        "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)),
        "  ".join("-" * w for w in widths),
    ]
    out += ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join(out)


def markdown(results: Results, plot_name: str | None) -> str:
    m = machine()
    deepest = results.micrograd_deepest
    md = [
        "# Benchmarks: this engine side by side with micrograd",
        "",
        "Written by `python -m benchmarks` (`tox -e bench`); do not edit by hand.",
        "",
        f"- Date: {m['date']}",
        f"- Machine: {m['machine']}",
        f"- Python: {m['python']}; micrograd {m['micrograd']}",
        "- Method: one process runs the same work on both engines, alternating runs; every timed run",
        "  starts from a collected heap (`gc.collect()`) and runs with the garbage collector on, as users",
        "  run; freeing the graph afterwards is not timed.  Times are medians with (min–max) over the",
        "  repeats; a ratio is micrograd's time over ours, taken run by run (each pair ran back to back),",
        "  then the median (min–max) of those ratios.",
        "- Clock: "
        + (
            "the process's CPU time (`time.process_time`), which counts the garbage collector but, "
            "unlike wall time, not the time the OS gives to other processes on this shared machine "
            "(`--clock wall` measures wall time)."
            if results.clock == "cpu"
            else "wall time (`time.perf_counter`)."
        ),
        "- The network on both sides: `MLP(2, [16, 16, 1])`, ReLU hidden layers, linear output, 337",
        "  parameters, the same weights (ours copied into micrograd's model).",
    ]
    if results.quick:
        md += ["", "**A `--quick` run: few repeats and small sizes; not the numbers to quote.**"]
    md += ["", "## Summary", "", "| benchmark | ours | micrograd | micrograd / ours |", "|---|---|---|---|"]
    md += [
        f"| {r.label} | {spread(r.ours, r.unit)} | {spread(r.micrograd, r.unit)} | {ratio(r.ratio)} |"
        for r in results.rows
    ]
    md += [
        "",
        "## The chain `y = y * w + b` (2N op nodes, each using the one before)",
        "",
        f"micrograd's recursive topological sort raises `RecursionError` at Python's default recursion "
        f"limit ({sys.getrecursionlimit()}) from N = {results.micrograd_deepest + 1:,} steps on (the deepest "
        f"chain it can differentiate here is N = {deepest:,}, {2 * deepest:,} nodes)."
        "  Rows marked *raised limit* measure micrograd with `sys.setrecursionlimit` raised, in a "
        "thread with a 1 GiB stack: that is not how it runs out of the box.",
        "",
        "| N | ours forward per node | ours backward per node | ours fwd+bwd per node "
        "| micrograd fwd+bwd per node | micrograd / ours |",
        "|---:|---|---|---|---|---|",
    ]
    for c in results.chain:
        mg = spread(c.micrograd, "s") + (" *raised limit*" if c.raised_limit else "")
        if c.micrograd is None:
            mg = "RecursionError at the default limit" if c.n > results.micrograd_deepest else "—"
        md.append(
            f"| {c.n:,} | {spread(c.ours_fwd, 's')} | {spread(c.ours_bwd, 's')} | {spread(c.ours, 's')} "
            f"| {mg} | {ratio(c.ratio)} |"
        )
    if plot_name:
        md += ["", f"![time per node against chain length, both engines]({plot_name})"]
    if results.notes:
        md += ["", "## Notes", ""] + [f"- {note}" for note in results.notes]
    md += [
        "",
        "What each change to the engine bought, and what was tried and dropped: [DESIGN.md](DESIGN.md).",
    ]
    return "\n".join(md) + "\n"


# ---------------------------------------------------------------------- plot
def plot(results: Results, path: Path) -> bool:
    """Time per node (forward + backward) against N for both engines; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(9.5, 4.5))

    def draw(rows: list[ChainRow], values: Any, **style: Any) -> None:
        xs = [c.n for c in rows]
        med = [values(c).median * 1e9 for c in rows]
        err = [
            [m - values(c).low * 1e9 for c, m in zip(rows, med, strict=True)],
            [values(c).high * 1e9 - m for c, m in zip(rows, med, strict=True)],
        ]
        ax.errorbar(xs, med, yerr=err, capsize=3, **style)

    draw(results.chain, lambda c: c.ours, marker="o", color="C0", label="ours (forward + backward)")
    for part, values, marker in (
        ("forward", lambda c: c.ours_fwd, "^"),
        ("backward", lambda c: c.ours_bwd, "v"),
    ):
        ax.plot(
            [c.n for c in results.chain],
            [values(c).median * 1e9 for c in results.chain],
            marker=marker,
            ls=":",
            color="C0",
            alpha=0.6,
            label=f"ours, {part} only",
        )
    default = [c for c in results.chain if c.micrograd is not None and not c.raised_limit]
    raised = [c for c in results.chain if c.micrograd is not None and c.raised_limit]
    if default:
        draw(
            default,
            lambda c: c.micrograd,
            marker="s",
            color="C3",
            label="micrograd (default recursion limit)",
        )
    if raised:
        draw(
            raised,
            lambda c: c.micrograd,
            marker="s",
            mfc="none",
            ls="--",
            color="C3",
            label="micrograd, recursion limit raised",
        )
    ax.axvline(results.micrograd_deepest, color="C3", ls=":", lw=1)
    ax.annotate(
        " micrograd: RecursionError\n beyond this line (default limit)",
        (results.micrograd_deepest, 0.97),
        xycoords=("data", "axes fraction"),
        ha="left",
        va="top",
        fontsize=8,
        color="C3",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chain length N (2N op nodes)")
    ax.set_ylabel("time per node (ns)")
    ax.set_title("y = y * w + b: time per node (flat = linear in N)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
