"""Shared test configuration.

Hypothesis runs derandomized by default so that every CI run checks the
same examples; ``--hypothesis-profile=explore`` searches afresh.
"""

import matplotlib
from hypothesis import settings

matplotlib.use("Agg")

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile("ci")
