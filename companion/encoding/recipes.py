"""Common third-party recipes for the table, ported faithfully for comparison.

These are how widely read codebases build the table, kept to their
arithmetic (float32 throughout) so that the analysis, the benchmark and the
book can measure them against the companion.  They live with the encoding,
below ``companion.analysis`` and ``companion.book``, which both use them
(``companion.book.recipes`` re-exports them).  Each takes the positions it should encode (the originals use
``arange(max_len)``); each row depends only on its own position, so any
subset of rows is exactly what the original would compute for those rows.

- :func:`annotated_transformer_encoding`: exp/log form (Rush et al., 2018,
  "The Annotated Transformer").
- :func:`d2l_encoding`: pow form (Zhang et al., "Dive into Deep Learning",
  Sec. 11.6).
- :func:`fairseq_encoding`: fairseq's ``get_embedding`` (Ott et al., 2019),
  with tensor2tensor's frequency spacing (Vaswani et al., 2018) and the
  concatenated layout.
"""

from __future__ import annotations

import math

from .._environment import require

require("torch")

import torch  # noqa: E402

from .._checks import check_d_model  # noqa: E402

__all__ = ["annotated_transformer_encoding", "d2l_encoding", "fairseq_encoding"]


def _as_position_column(positions: object) -> torch.Tensor:
    positions = torch.as_tensor(positions)
    if positions.dim() != 1:
        raise ValueError(f"positions must be 1-D, got shape {tuple(positions.shape)}")
    return positions.unsqueeze(1)


def annotated_transformer_encoding(positions: object, d_model: int) -> torch.Tensor:
    r"""The Annotated Transformer's table: ``div_term = exp(2i * -(ln 10000 / d_model))``.

    Parameters
    ----------
    positions : Tensor or array_like, shape (seq_len,)
        Positions; the original uses ``torch.arange(0, max_len)`` (int64).
    d_model : int
        Encoding width; a positive even integer.

    Returns
    -------
    Tensor, shape (seq_len, d_model), dtype float32
        Interleaved layout; angles computed in float32.

    Raises
    ------
    ValueError
        If `positions` is not 1-D or `d_model` is not positive and even.

    Examples
    --------
    >>> annotated_transformer_encoding(torch.arange(2), 4)
    tensor([[0.0000, 1.0000, 0.0000, 1.0000],
            [0.8415, 0.5403, 0.0100, 0.9999]])
    """
    d_model = check_d_model(d_model)
    position = _as_position_column(positions)
    pe = torch.zeros(position.shape[0], d_model)
    div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def d2l_encoding(positions: object, d_model: int) -> torch.Tensor:
    r"""Dive into Deep Learning's table: ``X = pos / 10000 ** (2i / d_model)`` in float32.

    Parameters
    ----------
    positions : Tensor or array_like, shape (seq_len,)
        Positions; the original uses ``torch.arange(max_len, dtype=torch.float32)``.
    d_model : int
        Encoding width (``num_hiddens`` there); a positive even integer.

    Returns
    -------
    Tensor, shape (seq_len, d_model), dtype float32
        Interleaved layout; angles computed in float32.

    Raises
    ------
    ValueError
        If `positions` is not 1-D or `d_model` is not positive and even.

    Examples
    --------
    >>> d2l_encoding(torch.arange(2), 4)
    tensor([[0.0000, 1.0000, 0.0000, 1.0000],
            [0.8415, 0.5403, 0.0100, 0.9999]])
    """
    d_model = check_d_model(d_model)
    position = _as_position_column(positions).to(torch.float32)
    X = position / torch.pow(10000, torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    P = torch.zeros((position.shape[0], d_model))
    P[:, 0::2] = torch.sin(X)
    P[:, 1::2] = torch.cos(X)
    return P


def fairseq_encoding(positions: object, d_model: int) -> torch.Tensor:
    r"""fairseq's table: frequencies ``exp(-i ln(10000) / (d_model/2 - 1))``, layout ``[sin | cos]``.

    tensor2tensor's ``get_timing_signal_1d`` uses the same frequencies.  Its
    exponent runs over ``i / (d_model/2 - 1)`` rather than the paper's
    ``2i / d_model``, so the slowest frequency is exactly ``1/10000``, and the
    layout is concatenated, not interleaved.

    Parameters
    ----------
    positions : Tensor or array_like, shape (seq_len,)
        Positions; the original uses ``torch.arange(num_embeddings)``.
    d_model : int
        Encoding width (``embedding_dim`` there); even and at least 4.

    Returns
    -------
    Tensor, shape (seq_len, d_model), dtype float32
        Concatenated layout; angles computed in float32.

    Raises
    ------
    ValueError
        If `positions` is not 1-D or `d_model` is not even and at least 4.

    Examples
    --------
    >>> [round(value, 4) for value in fairseq_encoding(torch.arange(2), 4)[1].tolist()]
    [0.8415, 0.0001, 0.5403, 1.0]
    """
    d_model = check_d_model(d_model)
    if d_model < 4:
        raise ValueError(f"d_model must be at least 4 for fairseq's spacing, got {d_model}")
    half_dim = d_model // 2
    position = _as_position_column(positions).to(torch.float)
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = position * emb.unsqueeze(0)
    return torch.cat([torch.sin(emb), torch.cos(emb)], dim=1)
