"""The encoding as a PyTorch layer: scale the token embeddings, add the encoding of their positions."""

from __future__ import annotations

import math
import numbers

from .._environment import require

torch = require("torch")
from torch import nn  # noqa: E402

from .._checks import (  # noqa: E402
    check_base,
    check_count,
    check_d_model,
    check_last_dim,
    check_layout,
    check_probability,
    check_spacing,
)
from .torch_table import check_torch_dtype, torch_sinusoidal_encoding  # noqa: E402

__all__ = ["SinusoidalPositionalEncoding"]


def _check_flag(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r} of type {type(value).__name__}")
    return value


class SinusoidalPositionalEncoding(nn.Module):
    r"""Scale token embeddings by :math:`\sqrt{d_{model}}`, add the encoding of their positions, apply dropout.

    Sources: Vaswani et al. (2017), Sec. 3.4 (embeddings multiplied by
    :math:`\sqrt{d_{model}}`), Sec. 3.5 (the sinusoidal encoding, added to them) and
    Sec. 5.4 (dropout on the sum).

    Notation: ``b`` batch size, ``s`` sequence length, ``d`` = `d_model`.

    - ``x``: ``[b, s, d]``, or ``[s, b, d]`` with ``batch_first=False`` (the default
      layout of ``nn.Transformer*``).
    - ``positions``: None (``0 .. s - 1``), an int offset ``o`` (``o .. o + s - 1``, for
      decoding one token at a time with a key-value cache), or an integer tensor of
      position ids, ``[s]`` or ``[b, s]`` (packed sequences, left padding).
    - output: the shape of ``x``, ``dropout(x * sqrt(d) + PE[positions])``, without the
      factor when ``scale=False`` (for code that scales its embeddings itself).

    The encoding of positions ``0 .. max_len - 1`` is cached in the buffer ``pe``; `max_len`
    is the size of that cache, not a limit: other positions are computed when asked for,
    with the same accuracy.  The table is built in float64 and rounded once to the
    buffer's dtype, and rebuilt, not cast, when the module moves to another dtype or
    device (``.double()``, ``.half()``, ``.to("cuda")``), so its float64 values are always
    rounded once, never twice.
    When ``x`` has another dtype or device than the buffer (autocast, say), the rows are
    computed in ``x``'s dtype on ``x``'s device.  The buffer is not saved in
    ``state_dict()``: it is a function of the arguments, rebuilt exactly on
    construction, so checkpoints stay small and load into a module with another `max_len`.

    Built on the meta device, the module holds no values until it is materialised:
    ``module.to_empty(device=...)`` then ``module.reset_parameters()`` (or any move,
    which rebuilds the table).  TorchScript is refused (``torch.jit.script``); use
    ``torch.compile``, ``torch.export`` or ``torch.jit.trace``.

    Parameters
    ----------
    d_model : int
        Embedding width; a positive even integer.
    max_len : int, optional
        Positions ``0 .. max_len - 1`` are cached; None (the default) caches nothing.
    base : float, default 10000.0
        Finite and greater than 1.
    dropout : float, default 0.0
        Dropout probability in [0, 1), applied after the sum (the paper uses 0.1).
    scale : bool, default True
        Multiply ``x`` by :math:`\sqrt{d_{model}}` before adding.
    batch_first : bool, default True
        ``x`` is ``[b, s, d]`` (True) or ``[s, b, d]`` (False).
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Column layout, as in :func:`~companion.sinusoidal_encoding`.
    spacing : {"paper", "tensor2tensor"}, default "paper"
        Frequency spacing, as in :func:`~companion.angular_frequencies`; with
        ``layout="concatenated"``, ``"tensor2tensor"`` is fairseq's and M2M100's table.
    device : torch.device or str, optional
        Where the cached table lives (``"meta"`` for deferred construction).
    dtype : torch.dtype, optional
        The cached table's dtype; default ``torch.get_default_dtype()``.

    Raises
    ------
    TypeError
        If `d_model` or `max_len` is not an integer, `base` is not real, `scale` or
        `batch_first` is not a bool, `layout` or `spacing` is not a str, or `dtype` is
        not a float dtype.
    ValueError
        If `d_model` is not positive and even, `max_len` is not positive, `base` is not
        finite and > 1, `dropout` is not in [0, 1), or `layout` or `spacing` is unknown.

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

    Decoding one token at a time gives what the whole sequence gives:

    >>> x = torch.randn(1, 5, 8)
    >>> steps = [layer(x[:, t : t + 1], positions=t) for t in range(5)]
    >>> torch.equal(torch.cat(steps, dim=1), layer(x))
    True
    """

    pe: torch.Tensor

    def __init__(
        self,
        d_model: int,
        max_len: int | None = None,
        *,
        base: float = 10_000.0,
        dropout: float = 0.0,
        scale: bool = True,
        batch_first: bool = True,
        layout: str = "interleaved",
        spacing: str = "paper",
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.d_model = check_d_model(d_model)
        if max_len is not None and check_count(max_len, "max_len") == 0:
            raise ValueError("max_len must be a positive integer (or None for no cache), got 0")
        self.max_len = max_len
        self.base = check_base(base)
        self.scale = _check_flag(scale, "scale")
        self.batch_first = _check_flag(batch_first, "batch_first")
        self.layout = check_layout(layout)
        self.spacing = check_spacing(spacing)
        self.dropout = nn.Dropout(check_probability(dropout, "dropout"))
        dtype = check_torch_dtype(torch.get_default_dtype() if dtype is None else dtype)
        self.register_buffer("pe", torch.empty((max_len or 0, self.d_model), device=device, dtype=dtype),
                             persistent=False)
        self.reset_parameters()

    def encoding(self, positions, *, dtype=None, device=None) -> torch.Tensor:
        """The encoding of `positions` with this layer's settings (no scaling, no dropout).

        Parameters
        ----------
        positions : Tensor or array_like, shape (seq_len,)
            Positions, as for :func:`~companion.torch_sinusoidal_encoding`.
        dtype : torch.dtype, optional
            Default the cached table's dtype.
        device : torch.device or str, optional
            Default the cached table's device.

        Returns
        -------
        Tensor, shape (seq_len, d_model)
            Float64 values rounded once, to nearest, to `dtype`.

        Raises
        ------
        TypeError, ValueError
            On bad positions, as :func:`~companion.torch_sinusoidal_encoding`.
        """
        return torch_sinusoidal_encoding(
            positions, self.d_model, base=self.base, layout=self.layout, spacing=self.spacing,
            dtype=self.pe.dtype if dtype is None else dtype, device=self.pe.device if device is None else device)

    def reset_parameters(self) -> None:
        """Rebuild the cached table in place (after ``to_empty()``; a no-op on the meta device).

        Returns
        -------
        None
        """
        if self.pe.device.type == "meta" or self.pe.shape[0] == 0:
            return
        with torch.no_grad():
            self.pe.copy_(self.encoding(torch.arange(self.pe.shape[0], device=self.pe.device)))

    def _apply(self, fn, recurse=True):
        before = (self.pe.dtype, self.pe.device)
        super()._apply(fn, recurse)
        if (self.pe.dtype, self.pe.device) != before:  # moved or cast: rebuild, never cast, the table
            self.reset_parameters()
        return self

    def __prepare_scriptable__(self):
        raise TypeError(
            "SinusoidalPositionalEncoding does not support TorchScript (torch.jit.script): its forward takes "
            "an int offset or a tensor of positions. Use torch.compile, torch.export or torch.jit.trace"
        )

    def _rows(self, positions, seq_len: int, batch: int, x: torch.Tensor) -> torch.Tensor:
        """The encoding to add: shape (seq_len, d_model) or (batch, seq_len, d_model), x's dtype and device."""
        if positions is None:
            positions = 0
        if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
            offset = int(positions)
            cached = self.pe.shape[0]
            if 0 <= offset and offset + seq_len <= cached and (self.pe.dtype, self.pe.device) == (x.dtype, x.device):
                return self.pe[offset : offset + seq_len]
            return self.encoding(torch.arange(offset, offset + seq_len, device=x.device), dtype=x.dtype, device=x.device)
        if not isinstance(positions, torch.Tensor):
            raise TypeError(
                f"positions must be None, an int offset or an integer tensor of position ids, got "
                f"{type(positions).__name__}"
            )
        if positions.is_floating_point() or positions.is_complex() or positions.dtype == torch.bool:
            raise TypeError(f"positions must be an integer tensor of position ids, got dtype {positions.dtype}")
        if tuple(positions.shape) not in ((seq_len,), (batch, seq_len)):
            raise ValueError(
                f"positions must have shape (seq_len,) = ({seq_len},) or (batch, seq_len) = ({batch}, {seq_len}), "
                f"got {tuple(positions.shape)}"
            )
        rows = self.encoding(positions.reshape(-1), dtype=x.dtype, device=x.device)
        return rows.reshape(*positions.shape, self.d_model)

    def forward(self, x: torch.Tensor, positions=None) -> torch.Tensor:
        """Return ``dropout(x * sqrt(d_model) + PE[positions])`` (no factor when ``scale=False``).

        Parameters
        ----------
        x : Tensor, shape (batch, seq_len, d_model), or (seq_len, batch, d_model) if not batch_first
            Token embeddings, a real floating dtype.
        positions : None, int or Tensor of int, shape (seq_len,) or (batch, seq_len), optional
            None for ``0 .. seq_len - 1``; an int offset ``o`` for ``o .. o + seq_len - 1``;
            or each token's position.

        Returns
        -------
        Tensor, the shape, dtype and device of `x`
            The encoded embeddings.

        Raises
        ------
        TypeError
            If `x` is not a real floating tensor, or `positions` is not None, an int or an
            integer tensor.
        ValueError
            If `x` is not 3-D, its last dimension is not `d_model`, or `positions` has the
            wrong shape or values (see :func:`~companion.torch_sinusoidal_encoding`).
        """
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            raise TypeError(
                f"x must be a real floating tensor of token embeddings, got "
                f"{x.dtype if isinstance(x, torch.Tensor) else type(x).__name__}"
            )
        if x.dim() != 3:
            layout = "(batch, seq_len, d_model)" if self.batch_first else "(seq_len, batch, d_model)"
            raise ValueError(f"x must have shape {layout}, got shape {tuple(x.shape)}")
        check_last_dim(x.shape, self.d_model, "x")
        seq_len, batch = (x.shape[1], x.shape[0]) if self.batch_first else (x.shape[0], x.shape[1])
        rows = self._rows(positions, seq_len, batch, x)
        if rows.dim() == 2:
            rows = rows.unsqueeze(0 if self.batch_first else 1)
        elif not self.batch_first:
            rows = rows.transpose(0, 1)
        encoded = x * math.sqrt(self.d_model) + rows if self.scale else x + rows
        return self.dropout(encoded)

    def extra_repr(self) -> str:
        return (f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}, scale={self.scale}, "
                f"batch_first={self.batch_first}, layout={self.layout!r}, spacing={self.spacing!r}")
