"""Explorable figures: the ideas that move, moved by the reader, in the book, Colab and JupyterLab.

Each function returns an :class:`~companion.book.explorables.Explorable`: a Vega-Lite chart
whose data the companion computed, with controls labelled in the reader's terms, plus a still
image of one state for the PDF, GitHub and readers without JavaScript. Displayed as a cell's last
value, it is one notebook output (see ``companion.book.explorables.figure`` for where each reader
meets it).

- :func:`clocks`: a position slider turns the hand of every pair; :math:`PE(p)` beside them.
- :func:`table`: d_model and base controls redraw the table and four of its columns.
- :func:`similarity_by_offset`: d_model and base controls redraw the similarity against the offset,
  with its trend law.
- :func:`rotation`: an offset slider applies :math:`R(k)` to :math:`PE(p)`, landing on :math:`PE(p + k)`.
- :func:`look_back`: an offset slider redraws the attention map of the head that looks :math:`k` back.
"""

from .attention import look_back
from .clocks import clocks
from .figure import Explorable
from .rotation import rotation
from .similarity import similarity_by_offset
from .table import table

__all__ = ["Explorable", "clocks", "look_back", "rotation", "similarity_by_offset", "table"]
