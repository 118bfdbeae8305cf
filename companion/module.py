"""The encoding as a PyTorch layer that scales embeddings and adds positions."""

from __future__ import annotations

import math

import torch
from torch import nn

from ._checks import check_base, check_count, check_d_model, check_last_dim
from .torch_encoding import torch_sinusoidal_encoding

__all__ = ["SinusoidalPositionalEncoding"]


class SinusoidalPositionalEncoding(nn.Module):
    r"""Scale token embeddings by :math:`\sqrt{d_{model}}`, add the encoding, apply dropout.

    Sources: Vaswani et al. (2017), Sec. 3.4 (embeddings multiplied by
    :math:`\sqrt{d_{model}}`) and Sec. 3.5 (sinusoidal encoding added to them;
    dropout on the sum, Sec. 5.4).

    The table is precomputed for positions ``0 .. max_len - 1`` and held in
    the buffer ``pe``, so it follows the module through ``.to(device)`` and
    ``.to(dtype)``.  It is a *non-persistent* buffer: it is **not** saved in
    ``state_dict()``, because it is a pure function of ``(d_model, max_len,
    base)`` and is rebuilt exactly on construction; checkpoints stay small and
    load into a module built with another ``max_len``.

    Parameters
    ----------
    d_model : int
        Embedding width; a positive even integer.
    max_len : int
        Longest sequence the module accepts; a positive integer.
    base : float, default 10000.0
        Finite and greater than 1.
    dropout : float, default 0.0
        Dropout probability in [0, 1), applied after the sum (the paper uses 0.1).

    Raises
    ------
    TypeError, ValueError
        If an argument is outside the ranges above.

    Examples
    --------
    >>> layer = SinusoidalPositionalEncoding(d_model=8, max_len=16)
    >>> x = torch.zeros(2, 5, 8)
    >>> layer(x).shape
    torch.Size([2, 5, 8])
    >>> torch.equal(layer(x)[1], layer.pe[:5])
    True
    >>> "pe" in layer.state_dict()
    False
    """

    pe: torch.Tensor

    def __init__(self, d_model: int, max_len: int, *, base: float = 10_000.0, dropout: float = 0.0):
        super().__init__()
        self.d_model = check_d_model(d_model)
        self.max_len = check_count(max_len, "max_len")
        if self.max_len == 0:
            raise ValueError("max_len must be a positive integer, got 0")
        self.base = check_base(base)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
        self.scale = math.sqrt(self.d_model)
        self.dropout = nn.Dropout(dropout)
        table = torch_sinusoidal_encoding(
            torch.arange(self.max_len), self.d_model, base=self.base, dtype=torch.get_default_dtype()
        )
        self.register_buffer("pe", table, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return ``dropout(x * sqrt(d_model) + PE[:seq_len])``.

        Parameters
        ----------
        x : Tensor, shape (batch, seq_len, d_model)
            Token embeddings; ``seq_len <= max_len``.

        Returns
        -------
        Tensor, shape (batch, seq_len, d_model), dtype of `x`
            The encoded embeddings.

        Raises
        ------
        ValueError
            If `x` is not 3-D, its last dimension is not `d_model`, or its
            sequence is longer than `max_len`.
        """
        if x.dim() != 3:
            raise ValueError(
                f"x must have shape (batch, seq_len, d_model), got shape {tuple(x.shape)}"
            )
        check_last_dim(x.shape, self.d_model, "x")
        seq_len = x.shape[1]
        if seq_len > self.max_len:
            raise ValueError(
                f"x has seq_len={seq_len} positions but this module holds a table for "
                f"max_len={self.max_len}; build it with max_len >= {seq_len}"
            )
        return self.dropout(x * self.scale + self.pe[:seq_len].to(dtype=x.dtype))

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}"
