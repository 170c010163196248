"""Prints the bug-zoo table at the end of a run (with or without pytest-xdist)."""


def pytest_runtest_logreport(report):
    """Each bug's row of the table, from its test's report: under pytest-xdist the tests run in
    worker processes, and only their reports reach the process that prints the summary."""
    from regressions.test_bug_zoo import CAUGHT, CAUGHT_PROPERTY

    for name, value in report.user_properties:
        if name == CAUGHT_PROPERTY:
            bug, checks = value
            CAUGHT[bug] = list(checks)


def pytest_terminal_summary(terminalreporter):
    from regressions.test_bug_zoo import CAUGHT

    if CAUGHT:
        from regressions.bug_zoo import format_table

        terminalreporter.write_sep("-", "bug zoo: which checks caught each bug")
        terminalreporter.write_line(format_table(CAUGHT))
