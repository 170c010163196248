"""Benchmarks of this engine side by side with micrograd 0.1.0 and with plain floats.

Run ``python -m benchmarks`` (or ``tox -e bench``, which installs micrograd and
matplotlib).  One process runs the same work on both engines and on the
hand-written plain-float reference, alternating runs; each timed run starts
from a collected heap with the garbage collector on, as users run (the ratios
are also given without the collection, and by wall time).  It prints a table
with medians, spreads and ratios and the targets, met or not, and writes
``benchmarks/RESULTS.md``, ``benchmarks/results.json`` (every figure the documents
quote, by name; ``figures`` copies them into the documents and checks them) and
``benchmarks/chain_scaling.png``.

``workloads`` holds the work (the same on both engines), ``reference`` the
plain-float line, ``timing`` the measuring, ``report`` the table, the Markdown
and the plot, ``ab`` two versions of the engine side by side, ``higher_order``
the second-order figures (and first order before/after create_graph), ``compiled``
``autograd.compile``'s.
"""
