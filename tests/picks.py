"""Driving a state machine by hand: a rule's ``data`` that draws given values, and a whole run
of the machine, deterministic, with the scripts it wrote."""

from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test


class Picks:
    """A stateful rule's ``data``: draws these values in order, whatever the strategy."""

    def __init__(self, *values):
        self.values = list(values)

    def draw(self, strategy):
        value = self.values.pop(0)
        # a value a sampled_from could not give is a test's error, not a draw
        choices = getattr(strategy, "elements", None)
        assert choices is None or value in choices, f"{value!r} is not one of {choices!r}"
        return value


def run_machine(machine, examples):
    """``machine`` (a class) after ``examples`` runs, derandomized, no database, no deadline
    (raises what the run raises)."""
    run_state_machine_as_test(
        machine, settings=settings(max_examples=examples, derandomize=True, database=None, deadline=None)
    )
    return machine


def scripts_of(machine, examples):
    """The script of each run of ``machine`` (as :func:`run_machine` runs it)."""
    scripts = []

    class Recording(machine):
        def teardown(self):
            scripts.append(self.script)

    run_machine(Recording, examples)
    return scripts
