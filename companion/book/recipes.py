"""The third-party recipes for the table, as the chapters import them.

They live in :mod:`companion.encoding.recipes`, below the analysis that measures them;
this module re-exports them under the name the book has always used.
"""

from ..encoding.recipes import annotated_transformer_encoding, d2l_encoding, fairseq_encoding

__all__ = ["annotated_transformer_encoding", "d2l_encoding", "fairseq_encoding"]
