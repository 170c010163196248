"""A backward() pass frees the graph it went through, and a later pass over any node of it passes
no gradient on (MyGrad's other answer to such a pass, beside raising): a convention, not a defect.
Unlike ``frees_graph`` nothing raises, so a program making such a pass runs to its end."""

from tests.engines import frees_graph


class Value(frees_graph.Value):
    freed = staticmethod(lambda: None)
