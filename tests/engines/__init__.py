"""Small engines for the harness's own tests, each one change away from ``sound.Value``.

Each module reproduces one thing an audit must adapt to or find on real engines
(see the module docstrings); ``tests/test_testing_probes.py`` checks that the
probes find exactly that.  Vendored so that no test needs the network.
"""
