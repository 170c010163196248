"""Driving a state machine's rules by hand: a rule's ``data`` that draws given values."""


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
