"""Registers the ``slow`` marker and prints the bug-zoo table at the end of a run."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: takes seconds (training runs); left out of the mutation run (see [tool.mutmut])"
    )


def pytest_terminal_summary(terminalreporter):
    from regressions.test_bug_zoo import CAUGHT

    if CAUGHT:
        from regressions.bug_zoo import format_table

        terminalreporter.write_sep("-", "bug zoo: which checks caught each bug")
        terminalreporter.write_line(format_table(CAUGHT))
