"""The results as a printed table, as ``RESULTS.md``, and as a plot of the chain scaling."""

from __future__ import annotations

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
    plain: Spread | None = None  # the plain-float reference (benchmarks/reference.py)
    vs_plain: Spread | None = None  # ours / plain, paired run by run
    key: str = ""  # the stable name of its figures in results.json ("" for none)


@dataclass
class ChainRow:
    n: int
    ours_fwd: Spread
    ours_bwd: Spread
    ours: Spread  # per node, forward + backward, seconds
    micrograd: Spread | None = None
    ratio: Spread | None = None
    raised_limit: bool = False  # micrograd measured with the recursion limit raised
    plain: Spread | None = None
    vs_plain: Spread | None = None


@dataclass
class MethodRow:
    """One workload's ratios under one way of timing (the GC collected before each run or not; clock)."""

    label: str
    collected: bool
    clock: str
    pairs: int
    ratio: Spread  # micrograd / ours
    vs_plain: Spread  # ours / plain


@dataclass
class Target:
    name: str
    met: bool | None  # None: not measured in this run
    measured: str
    vs_plain: str = ""
    key: str = ""  # its figures in results.json: target.KEY (the verdict), target.KEY.name


@dataclass
class Section:
    """A titled block of Markdown: a paragraph, then a table given as a header and rows."""

    title: str
    text: str
    header: list[str]
    rows: list[list[str]]
    figures: dict[str, str] = field(default_factory=dict)  # stable name -> formatted figure


@dataclass
class Results:
    rows: list[Row] = field(default_factory=list)
    chain: list[ChainRow] = field(default_factory=list)
    micrograd_deepest: int = 0
    notes: list[str] = field(default_factory=list)
    quick: bool = False
    clock: str = "cpu"
    targets: list[Target] = field(default_factory=list)
    methods: list[MethodRow] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    figures: dict[str, str] = field(default_factory=dict)  # figures not in a row: name -> formatted


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


def times(x: float) -> str:
    """A ratio as a figure: one decimal below 10, none from 10 on."""
    return f"{x:.1f}×" if x < 10 else f"{x:.0f}×"


def figures(results: Results) -> dict[str, str]:
    """Every figure a document may quote, by stable name: the rows' medians, the chain's, the
    sections' and the others the run recorded (``results.figures``)."""
    out: dict[str, str] = {}
    for r in results.rows:
        if not r.key:
            continue
        for name, s in (("ours", r.ours), ("micrograd", r.micrograd), ("plain", r.plain)):
            if s is not None:
                out[f"{r.key}.{name}"] = quantity(s.median, r.unit)
        for name, s in (("micrograd_over_ours", r.ratio), ("ours_over_plain", r.vs_plain)):
            if s is not None:
                out[f"{r.key}.{name}"] = times(s.median)
    for c in results.chain:
        key = f"chain.{c.n}"
        out[f"{key}.ours"] = seconds(c.ours.median)
        out[f"{key}.ours_forward"] = seconds(c.ours_fwd.median)
        out[f"{key}.ours_backward"] = seconds(c.ours_bwd.median)
        out[f"{key}.ours_total"] = seconds(c.ours.median * 2 * c.n)
        for name, s in (("micrograd", c.micrograd), ("plain", c.plain)):
            if s is not None:
                out[f"{key}.{name}"] = seconds(s.median)
        for name, s in (("micrograd_over_ours", c.ratio), ("ours_over_plain", c.vs_plain)):
            if s is not None:
                out[f"{key}.{name}"] = times(s.median)
    if results.micrograd_deepest:
        out["chain.micrograd_deepest"] = f"{results.micrograd_deepest:,}"
    for t in results.targets:
        if t.key:
            out[f"target.{t.key}"] = verdict(t)
            out[f"target.{t.key}.name"] = t.name
    for section in results.sections:
        out.update(section.figures)
    out.update(results.figures)
    return dict(sorted(out.items()))


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
        "machine": f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "micrograd": micrograd,
    }


# ---------------------------------------------------------------------- text
def verdict(t: Target) -> str:
    return "not measured" if t.met is None else "met" if t.met else "NOT met"


def columns(head: list[str], lines: list[list[str]]) -> str:
    widths = [max([len(head[i]), *(len(line[i]) for line in lines)]) for i in range(len(head))]
    out = [
        "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)),
        "  ".join("-" * w for w in widths),
    ]
    out += ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join(out)


def row_cells(r: Row, label: str) -> list[str]:
    return [
        label,
        spread(r.ours, r.unit),
        spread(r.micrograd, r.unit),
        spread(r.plain, r.unit),
        ratio(r.ratio),
        ratio(r.vs_plain),
    ]


METHOD_HEAD = [
    "workload",
    "heap collected before each run",
    "clock",
    "pairs",
    "micrograd / ours",
    "ours / plain",
]


def method_cells(m: MethodRow) -> list[str]:
    return [m.label, "yes" if m.collected else "no", m.clock, str(m.pairs), ratio(m.ratio), ratio(m.vs_plain)]


def table(results: Results) -> str:
    head = [
        "benchmark",
        "ours: median (min–max)",
        "micrograd",
        "plain float",
        "micrograd / ours",
        "ours / plain",
    ]
    lines = [row_cells(r, r.label) for r in results.rows]
    lines += [
        [
            f"chain N={c.n:,}: fwd+bwd per node" + (" [mg: raised limit]" if c.raised_limit else ""),
            spread(c.ours, "s"),
            spread(c.micrograd, "s"),
            spread(c.plain, "s"),
            ratio(c.ratio),
            ratio(c.vs_plain),
        ]
        for c in results.chain
    ]
    out = [columns(head, lines)]
    if results.methods:
        out += ["", "micrograd / ours and ours / plain float, timed four ways (medians of paired ratios):"]
        out.append(columns(METHOD_HEAD, [method_cells(m) for m in results.methods]))
    for section in results.sections:
        out += ["", f"{section.title}:"]
        out += [columns(section.header, section.rows)] if section.rows else [section.text]
    return "\n".join(out)


def targets_text(results: Results) -> str:
    out = ["", "Targets:"]
    out += [
        f"  [{verdict(t)}] {t.name}: {t.measured}"
        + (f"; ours / plain float {t.vs_plain}" if t.vs_plain else "")
        for t in results.targets
    ]
    return "\n".join(out)


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def markdown(results: Results, plot_name: str | None) -> str:
    m = machine()
    deepest = results.micrograd_deepest
    clock = (
        "the process's CPU time (`time.process_time`), which counts the garbage collector but, "
        "unlike wall time, not the time the OS gives to other processes on this shared machine"
        if results.clock == "cpu"
        else "wall time (`time.perf_counter`)"
    )
    md = [
        "# Benchmarks: this engine side by side with micrograd and with plain floats",
        "",
        "Written by `python -m benchmarks` (`tox -e bench`) with `results.json`, which holds every figure",
        "the documents quote (`python -m benchmarks.figures` copies them into the documents); do not edit",
        "by hand.",
        "",
        f"- Machine: {m['machine']}",
        f"- Python: {m['python']}; micrograd {m['micrograd']}",
        "- Three lines side by side: ours, micrograd 0.1.0, and **plain float**, the same arithmetic",
        "  written by hand on lists of floats in the same order, no graph (`benchmarks/reference.py`; it",
        "  computes the same losses and gradients as ours bit for bit, which",
        "  `tests/test_benchmarks_reference.py` checks).  Plain float is the physical-limit line: what a",
        "  scalar engine in CPython cannot go below.",
        "- How the ratios in the main tables are taken: one process runs the same work on all three,",
        "  alternating runs (ours, micrograd, plain, ours, ...); **before every timed run the heap is",
        "  collected (`gc.collect()`)**, and the run goes with the garbage collector on, as users run;",
        "  freeing the graph afterwards is not timed.  Each run is timed by **" + clock + "**.",
        "  Times are medians with (min–max) over the repeats; a ratio is taken pair by pair (runs made",
        "  back to back), then the median (min–max) of those ratios.  The section *The same ratios,",
        "  timed four ways* gives them with and without the collection and by CPU and by wall time.",
        "- The network everywhere: `MLP(2, [16, 16, 1])`, ReLU hidden layers, linear output, 337",
        "  parameters, the same weights (ours copied into micrograd's model and into the plain lists).",
        "- The one-sample step is a training step's work on one input: `zero_grad()`, forward, backward.",
    ]
    if results.quick:
        md += ["", "**A `--quick` run: few repeats and small sizes; not the numbers to quote.**"]
    if results.targets:
        md += ["", "## Targets", ""]
        md += md_table(
            ["target", "verdict", "measured", "ours / plain float"],
            [[t.name, verdict(t), t.measured, t.vs_plain or "—"] for t in results.targets],
        )
    md += ["", "## Summary", ""]
    md += md_table(
        ["benchmark", "ours", "micrograd", "plain float", "micrograd / ours", "ours / plain float"],
        [row_cells(r, r.label.replace("  ", "&nbsp;&nbsp;", 1)) for r in results.rows],
    )
    if results.methods:
        md += [
            "",
            "## The same ratios, timed four ways",
            "",
            "Each row is its own alternation of the three lines (ours, micrograd, plain float) in the same",
            "process.  *Collected*: `gc.collect()` before every timed run, so no run pays for another's",
            "garbage.  *Not collected*: runs follow each other with only the GC's own collections, as in",
            "a training loop; micrograd's graphs are cyclic garbage, which its later runs then pay for.",
            "*CPU*: `time.process_time`; *wall*: `time.perf_counter` (counts time given to other processes",
            "on this shared machine).  Ratios are medians (min–max) of the pair-by-pair ratios.",
            "",
        ]
        md += md_table(METHOD_HEAD, [method_cells(m) for m in results.methods])

    md += [
        "",
        "## The chain `y = y * w + b` (2N op nodes, each using the one before)",
        "",
        f"micrograd's recursive topological sort raises `RecursionError` at Python's default recursion "
        f"limit ({sys.getrecursionlimit()}) from N = {results.micrograd_deepest + 1:,} steps on (the deepest "
        f"chain it can differentiate here is N = {deepest:,}, {2 * deepest:,} nodes)."
        "  Rows marked *raised limit* measure micrograd with `sys.setrecursionlimit` raised, in a "
        "thread with a 1 GiB stack (ours and plain float run in that thread too): that is not how "
        "micrograd runs out of the box.  Plain float keeps one float per step for its backward pass.",
        "",
    ]
    chain_rows = []
    for c in results.chain:
        mg = spread(c.micrograd, "s") + (" *raised limit*" if c.raised_limit else "")
        if c.micrograd is None:
            mg = "RecursionError at the default limit" if c.n > results.micrograd_deepest else "—"
        chain_rows.append(
            [
                f"{c.n:,}",
                spread(c.ours_fwd, "s"),
                spread(c.ours_bwd, "s"),
                spread(c.ours, "s"),
                mg,
                spread(c.plain, "s"),
                ratio(c.ratio),
                ratio(c.vs_plain),
            ]
        )
    md += md_table(
        [
            "N",
            "ours forward per node",
            "ours backward per node",
            "ours fwd+bwd per node",
            "micrograd fwd+bwd per node",
            "plain float per node",
            "micrograd / ours",
            "ours / plain float",
        ],
        chain_rows,
    )
    if plot_name:
        md += ["", f"![time per node against chain length, both engines]({plot_name})"]
    for section in results.sections:
        md += ["", f"## {section.title}", "", section.text]
        if section.rows:
            md += ["", *md_table(section.header, section.rows)]
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
    with_plain = [c for c in results.chain if c.plain is not None]
    if with_plain:
        draw(with_plain, lambda c: c.plain, marker="D", color="C2", label="plain float (the limit line)")
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
