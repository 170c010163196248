"""Benchmarks of this engine side by side with micrograd 0.1.0.

Run ``python -m benchmarks`` (or ``tox -e bench``, which installs micrograd and
matplotlib).  One process runs the same work on both engines, alternating
runs; each timed run starts from a collected heap with the garbage collector
on, as users run.  It prints a table with medians, spreads and ratios, and
writes ``benchmarks/RESULTS.md`` and ``benchmarks/chain_scaling.png``.

``workloads`` holds the work (the same on both engines), ``timing`` the
measuring, ``report`` the table, the Markdown and the plot.
"""
