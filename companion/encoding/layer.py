"""The encoding as a PyTorch layer: scale the token embeddings, add the encoding of their positions."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any

from .._environment import require

require("torch")

import torch  # noqa: E402
from torch import nn  # noqa: E402

from .._checks import (  # noqa: E402
    MAX_EXACT_POSITION,
    MAX_TABLE_ENTRIES,
    Layout,
    Spacing,
    check_base,
    check_count,
    check_d_model,
    check_last_dim,
    check_layout,
    check_probability,
    check_spacing,
    too_large,
)
from .torch_table import (  # noqa: E402
    anchored_rows,
    check_torch_dtype,
    consecutive_table,
    frequencies,
    pairs_to_table,
    tracing,
)

__all__ = ["GROWN_CACHE_ENTRIES", "SinusoidalPositionalEncoding", "TableMismatchError"]

#: With ``max_len=None`` the cache grows to cover the positions asked for, up to this many entries
#: (positions x d_model: 128 MiB in float32); rows beyond it are computed on each call.
GROWN_CACHE_ENTRIES = 2**25

# What a checkpoint records about the table (get_extra_state): the settings that change its values.
_TABLE_SETTINGS = ("d_model", "base", "layout", "spacing", "scale")


class TableMismatchError(ValueError):
    """A checkpoint was saved from a layer whose table differs from this one's.

    Raised by ``load_state_dict`` (through
    ``set_extra_state``); a ValueError, so code that catches
    those catches it too.

    Examples
    --------
    >>> saved = SinusoidalPositionalEncoding(8, layout="concatenated").state_dict()
    >>> try:
    ...     SinusoidalPositionalEncoding(8).load_state_dict(saved)
    ... except TableMismatchError as error:
    ...     print(str(error).split(". ")[0])
    the checkpoint was saved from a SinusoidalPositionalEncoding with another table: checkpoint d_model=8, base=10000.0, layout='concatenated', spacing='paper', scale=True; this layer d_model=8, base=10000.0, layout='interleaved', spacing='paper', scale=True
    """


def _check_flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r} of type {type(value).__name__}")
    return value


def _describe(settings: dict[str, Any]) -> str:
    return ", ".join(f"{name}={settings[name]!r}" for name in _TABLE_SETTINGS if name in settings)


class SinusoidalPositionalEncoding(nn.Module):
    r"""Scale token embeddings by :math:`\sqrt{d_{model}}`, add the encoding of their positions, apply dropout.

    Sources: Vaswani et al. (2017), Sec. 3.4 (embeddings multiplied by
    :math:`\sqrt{d_{model}}`), Sec. 3.5 (the sinusoidal encoding, added to them) and
    Sec. 5.4 (dropout on the sum).

    Notation: ``b`` batch size, ``s`` sequence length, ``d`` = `d_model`.

    - ``x``: ``[b, s, d]``, or ``[s, b, d]`` with ``batch_first=False`` (the default
      layout of ``nn.Transformer*``).
    - ``positions``: None (``0 .. s - 1``), an int offset ``o`` (``o .. o + s - 1``, for
      decoding one token at a time with a key-value cache; a 0-d integer tensor too), or an
      integer tensor of position ids, ``[s]`` or ``[b, s]`` (packed sequences, left padding).
    - output: the shape of ``x``, ``dropout(x * sqrt(d) + PE[positions])``, without the
      factor when ``scale=False`` (for code that scales its embeddings itself).

    The encoding of positions ``0 .. max_len - 1`` is cached in the buffer ``pe``; `max_len`
    is the size of that cache, not a limit: other positions are computed when asked for,
    with the same accuracy.  With ``max_len=None`` (the default) the cache starts empty and
    grows to cover the positions asked for (doubling, up to :data:`~companion.encoding.layer.GROWN_CACHE_ENTRIES`
    entries), as fairseq's table does, so after the first call the layer costs what a cached
    one does.  Every row is the float64 value rounded once to the buffer's dtype
    (:func:`~companion.encoding.torch_table.consecutive_table`), and the buffer is rebuilt,
    not cast, when the module moves to another dtype or device (``.double()``, ``.half()``,
    ``.to("cuda")``).  When ``x`` has another dtype or device than the buffer (autocast, say),
    the rows are computed in ``x``'s dtype on ``x``'s device.

    The buffer is not saved in ``state_dict()``: it is a function of the arguments, rebuilt
    exactly on construction, so checkpoints stay small and load into a module with another
    `max_len`.  What the checkpoint records instead is the table's settings (`d_model`,
    `base`, `layout`, `spacing`, `scale`, as ``<prefix>_extra_state``): loading a checkpoint
    saved with other settings raises :class:`~companion.encoding.layer.TableMismatchError`, naming both; a checkpoint
    from before this record loads with a warning.

    ``torch.compile(fullgraph=True, dynamic=True)`` and ``torch.export`` trace every path
    (sequence lengths and offsets stay symbolic, past `max_len` too; the choice between the
    cache and computed rows is a ``torch.cond``); under them the cache does not grow and the
    values of position ids are not checked.  ``torch.func.vmap`` over position ids computes
    the rows.  Built on the meta device, the module holds no values until it is
    materialised: ``module.to_empty(device=...)`` then ``module.reset_parameters()`` (or any
    move, which rebuilds the table).  TorchScript is refused (``torch.jit.script``).

    Parameters
    ----------
    d_model : int
        Embedding width; a positive even integer.
    max_len : int, optional
        Positions ``0 .. max_len - 1`` are cached; None (the default): a cache that grows.
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
        `batch_first` is not a bool, `layout` or `spacing` is not a str, or `dtype` is not
        a float dtype.
    ValueError
        If `d_model` is not positive and even, `max_len` is not positive or the cache is
        too large to allocate, `base` is not finite and > 1, `dropout` is not in [0, 1), or
        `layout` or `spacing` is unknown.

    Examples
    --------
    >>> layer = SinusoidalPositionalEncoding(d_model=8, max_len=16)
    >>> x = torch.zeros(2, 5, 8)
    >>> layer(x).shape
    torch.Size([2, 5, 8])
    >>> torch.equal(layer(x)[1], layer.pe[:5])
    True
    >>> sorted(layer.state_dict())  # the table's settings, not the table
    ['_extra_state']

    Decoding one token at a time gives what the whole sequence gives:

    >>> x = torch.randn(1, 5, 8)
    >>> steps = [layer(x[:, t : t + 1], positions=t) for t in range(5)]
    >>> torch.equal(torch.cat(steps, dim=1), layer(x))
    True
    """

    pe: torch.Tensor
    angular_frequencies: torch.Tensor
    d_model: int
    max_len: int | None
    base: float
    scale: bool
    batch_first: bool
    layout: Layout
    spacing: Spacing

    def __init__(
        self,
        d_model: int,
        max_len: int | None = None,
        *,
        base: float = 10_000.0,
        dropout: float = 0.0,
        scale: bool = True,
        batch_first: bool = True,
        layout: Layout = "interleaved",
        spacing: Spacing = "paper",
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.d_model = check_d_model(d_model)
        if max_len is not None and check_count(max_len, "max_len") == 0:
            raise ValueError("max_len must be a positive integer (or None for a cache that grows), got 0")
        self.max_len = None if max_len is None else int(max_len)
        self.base = check_base(base)
        self.scale = _check_flag(scale, "scale")
        self.batch_first = _check_flag(batch_first, "batch_first")
        self.layout = check_layout(layout)  # type: ignore[assignment]  # checked: one of the Literal's values
        self.spacing = check_spacing(spacing)  # type: ignore[assignment]
        self.dropout = nn.Dropout(check_probability(dropout, "dropout"))
        self._factor = math.sqrt(self.d_model)
        dtype = check_torch_dtype(torch.get_default_dtype() if dtype is None else dtype)
        rows = self.max_len or 0
        if rows * self.d_model > MAX_TABLE_ENTRIES or rows > MAX_EXACT_POSITION:
            raise too_large(rows, self.d_model, torch.finfo(dtype).bits // 8)
        try:
            table = torch.empty((rows, self.d_model), device=device, dtype=dtype)
        except RuntimeError as error:  # torch reports a failed allocation as a RuntimeError
            raise too_large(rows, self.d_model, torch.finfo(dtype).bits // 8) from error
        self.register_buffer("pe", table, persistent=False)
        self.register_buffer("angular_frequencies", frequencies(self.d_model, self.base, self.spacing, device),
                             persistent=False)
        self.reset_parameters()

    # ---- the table

    def _frequencies(self, device: torch.device) -> torch.Tensor:
        # a float64 buffer rather than a computation from `base`: torch.compile makes float attributes symbolic
        return self.angular_frequencies if self.angular_frequencies.device == device else self.angular_frequencies.to(device)

    def encoding(
        self, positions: torch.Tensor | object, *, dtype: torch.dtype | None = None,
        device: torch.device | str | None = None,
    ) -> torch.Tensor:
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
        from .torch_table import torch_sinusoidal_encoding

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
            self.pe.copy_(consecutive_table(0, self.pe.shape[0], self._frequencies(self.pe.device),
                                            layout=self.layout, dtype=self.pe.dtype))

    def _apply(self, fn, recurse=True):  # type: ignore[no-untyped-def]  # nn.Module's signature
        before = (self.pe.dtype, self.pe.device)
        super()._apply(fn, recurse)
        if (self.pe.dtype, self.pe.device) != before or self.angular_frequencies.dtype != torch.float64:
            # moved or cast: rebuild, never cast, the frequencies (float64 always) and the table
            self.angular_frequencies = frequencies(self.d_model, self.base, self.spacing, self.pe.device)
            self.reset_parameters()
        return self

    def _grow(self, end: int) -> bool:
        """With ``max_len=None``, extend the cache to hold positions below `end`; False if it may not."""
        cached = self.pe.shape[0]
        limit = GROWN_CACHE_ENTRIES // self.d_model
        if self.max_len is not None or end > limit or self.pe.device.type == "meta":
            return False
        size = min(max(end, 2 * cached), limit)
        with torch.no_grad():
            rows = consecutive_table(cached, size - cached, self._frequencies(self.pe.device), layout=self.layout,
                                     dtype=self.pe.dtype)
            self.pe = torch.cat([self.pe, rows])
        return True

    # ---- checkpoints

    def get_extra_state(self) -> dict[str, Any]:
        """The table's settings, saved in ``state_dict()`` (the table itself is not).

        Returns
        -------
        dict
            ``d_model`` (int), ``base`` (float), ``layout`` (str), ``spacing`` (str), ``scale`` (bool).
        """
        return {name: getattr(self, name) for name in _TABLE_SETTINGS}

    def set_extra_state(self, state: Any) -> None:
        """Check a checkpoint's table settings against this layer's.

        Parameters
        ----------
        state : dict
            As returned by :meth:`get_extra_state`.

        Raises
        ------
        TableMismatchError
            If any setting differs: the message names the checkpoint's and this layer's.
        """
        mine = self.get_extra_state()
        if not isinstance(state, dict) or any(state.get(name) != mine[name] for name in _TABLE_SETTINGS):
            saved = _describe(state) if isinstance(state, dict) else repr(state)
            raise TableMismatchError(
                f"the checkpoint was saved from a SinusoidalPositionalEncoding with another table: checkpoint "
                f"{saved}; this layer {_describe(mine)}. Build the layer with the checkpoint's settings")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,  # type: ignore[no-untyped-def]
                              unexpected_keys, error_msgs):
        key = prefix + "_extra_state"
        recorded = key in state_dict
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        if not recorded:
            if key in missing_keys:
                missing_keys.remove(key)
            warnings.warn(
                f"the checkpoint has no record of the positional table ({key!r}: saved before the companion "
                f"recorded it); loading it as a table with {_describe(self.get_extra_state())}. Save the "
                f"checkpoint again to record them", UserWarning, stacklevel=3)

    def __prepare_scriptable__(self):  # type: ignore[no-untyped-def]
        raise TypeError(
            "SinusoidalPositionalEncoding does not support TorchScript (torch.jit.script): its forward takes "
            "an int offset or a tensor of positions. Use torch.compile, torch.export or torch.jit.trace"
        )

    # ---- forward

    def _computed(self, positions: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """Rows for integer `positions` (any shape) computed in x's dtype on x's device."""
        sines, cosines = anchored_rows(positions.reshape(-1), self._frequencies(x.device))
        return pairs_to_table(sines, cosines, self.layout, x.dtype).reshape(*positions.shape, self.d_model)

    def _cache_usable(self, x: torch.Tensor) -> bool:
        return self.pe.shape[0] > 0 and self.pe.dtype == x.dtype and self.pe.device == x.device

    def _run(self, offset: int, seq_len: int, x: torch.Tensor) -> torch.Tensor:
        """Rows of positions ``offset .. offset + seq_len - 1``, shape (seq_len, d_model)."""
        if torch.compiler.is_compiling():
            return self._traced_run(offset, seq_len, x)
        if abs(offset) > MAX_EXACT_POSITION - seq_len:
            raise ValueError(
                f"positions (an offset) must keep every position within magnitude 2**53 = {MAX_EXACT_POSITION}, so "
                f"that float64 holds them exactly, got offset {offset} for {seq_len} positions")
        end = offset + seq_len
        if offset >= 0 and x.device == self.pe.device and x.dtype == self.pe.dtype and (
                end <= self.pe.shape[0] or self._grow(end)):
            return self.pe[offset:end]
        return consecutive_table(offset, seq_len, self._frequencies(x.device), layout=self.layout, dtype=x.dtype)

    def _traced_run(self, offset: int, seq_len: int, x: torch.Tensor) -> torch.Tensor:
        """:meth:`_run` under torch.compile/export: `offset` and `seq_len` may be symbolic, so no guard on them."""
        positions = offset + torch.arange(seq_len, device=x.device)
        if not self._cache_usable(x):
            return self._computed(positions, x)
        # inside the cache iff offset >= 0 and offset + seq_len <= cached, as a tensor (a bool would be
        # specialised on, and sizes may be symbolic): torch.cond traces both branches, no guard on the sizes
        zero = torch.zeros((), dtype=torch.int64, device=x.device)
        inside = torch.minimum(zero + offset, self.pe.shape[0] - (zero + offset + seq_len)) >= 0
        return torch.cond(inside, self._gathered, self._computed, (positions, x))

    def _gathered(self, positions: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """Cached rows of `positions` (clamped into the cache: the other branch of ``torch.cond`` takes the rest)."""
        return self.pe[positions.clamp(0, self.pe.shape[0] - 1)]

    def _ids(self, ids: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """Rows of position ids, shape ``ids.shape + (d_model,)``."""
        if torch.compiler.is_compiling():
            if not self._cache_usable(x):
                return self._computed(ids, x)
            inside = (ids.min() >= 0) & (ids.max() < self.pe.shape[0])
            return torch.cond(inside, self._gathered, self._computed, (ids, x))
        if tracing(ids, x):  # vmap, grad: no values to look at
            return self._computed(ids, x)
        if ids.device != x.device:
            if ids.device.type == "meta" or x.device.type == "meta":
                raise ValueError(f"positions is on the {ids.device} device and x on the {x.device} device: pass "
                                 f"position ids with values, on x's device")
            ids = ids.to(x.device)
        if ids.numel() == 0 or ids.device.type == "meta":
            return self._computed(ids, x)
        low, high = (value.item() for value in torch.aminmax(ids))
        if max(-low, high) > MAX_EXACT_POSITION:
            raise ValueError(f"positions must have magnitude at most 2**53 = {MAX_EXACT_POSITION} so that float64 "
                             f"holds them exactly, got values in [{low}, {high}]")
        if low >= 0 and x.device == self.pe.device and x.dtype == self.pe.dtype and (
                high < self.pe.shape[0] or self._grow(high + 1)):
            return self.pe[ids]
        return self._computed(ids, x)

    def _rows(self, positions: int | torch.Tensor | None, seq_len: int, batch: int, x: torch.Tensor) -> torch.Tensor:
        """The encoding to add: shape (seq_len, d_model) or (batch, seq_len, d_model), x's dtype and device."""
        if positions is None:
            return self._run(0, seq_len, x)
        if isinstance(positions, torch.SymInt):
            return self._run(positions, seq_len, x)  # type: ignore[arg-type]  # a symbolic int under tracing
        if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
            return self._run(int(positions), seq_len, x)
        if not isinstance(positions, torch.Tensor):
            raise TypeError(
                f"positions must be None, an int offset or an integer tensor of position ids, got "
                f"{type(positions).__name__}"
            )
        if positions.is_floating_point() or positions.is_complex() or positions.dtype == torch.bool:
            raise TypeError(f"positions must be an integer tensor of position ids, got dtype {positions.dtype}")
        if positions.dim() == 0:  # an offset held in a tensor (no synchronisation: it becomes position ids)
            return self._ids(positions + torch.arange(seq_len, device=positions.device), x)
        if positions.dim() == 1:
            matches = [positions.shape[0] == seq_len]
        elif positions.dim() == 2:
            matches = [positions.shape[0] == batch, positions.shape[1] == seq_len]
        else:
            raise ValueError(self._shape_message(positions, seq_len, batch))
        if torch.compiler.is_compiling():  # sizes may be symbolic: assert them, without a guard per value
            for match in matches:
                torch._check(match)
        elif not all(matches):
            raise ValueError(self._shape_message(positions, seq_len, batch))
        return self._ids(positions, x)

    @staticmethod
    def _shape_message(positions: torch.Tensor, seq_len: int, batch: int) -> str:
        return (f"positions must have shape (seq_len,) = ({seq_len},) or (batch, seq_len) = ({batch}, {seq_len}), "
                f"got {tuple(positions.shape)}")

    def forward(self, x: torch.Tensor, positions: int | torch.Tensor | None = None) -> torch.Tensor:
        """Return ``dropout(x * sqrt(d_model) + PE[positions])`` (no factor when ``scale=False``).

        Parameters
        ----------
        x : Tensor, shape (batch, seq_len, d_model), or (seq_len, batch, d_model) if not batch_first
            Token embeddings, a real floating dtype.
        positions : None, int, or Tensor of int, shape (), (seq_len,) or (batch, seq_len), optional
            None for ``0 .. seq_len - 1``; an int offset ``o`` (or a 0-d tensor holding it) for
            ``o .. o + seq_len - 1``; or each token's position.

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
            If `x` is not 3-D, its last dimension is not `d_model`, `positions` has the wrong
            shape, is on the meta device while `x` is not, or reaches beyond magnitude 2**53.
        """
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            raise TypeError(
                f"x must be a real floating tensor of token embeddings, got "
                f"{x.dtype if isinstance(x, torch.Tensor) else type(x).__name__}"
            )
        shape = x.shape
        if len(shape) != 3:
            layout = "(batch, seq_len, d_model)" if self.batch_first else "(seq_len, batch, d_model)"
            raise ValueError(f"x must have shape {layout}, got shape {tuple(shape)}")
        if shape[2] != self.d_model:
            check_last_dim(shape, self.d_model, "x")
        seq_len, batch = (shape[1], shape[0]) if self.batch_first else (shape[0], shape[1])
        pe = self.pe
        # The common case first, in as few Python steps as a hand-written table add: a slice of the cache.
        if (positions is None or type(positions) is int) and not torch.compiler.is_compiling():
            offset = positions or 0
            if (0 <= offset and offset + seq_len <= pe.shape[0] and x.dtype is pe.dtype
                    and ((x.is_cpu and pe.is_cpu) or x.device == pe.device)):
                rows = pe[offset : offset + seq_len]
            else:
                rows = self._run(offset, seq_len, x)
        else:
            rows = self._rows(positions, seq_len, batch, x)
        if not self.batch_first:
            rows = rows.unsqueeze(1) if rows.ndim == 2 else rows.transpose(0, 1)
        if self.scale:
            encoded = x * self._factor
            encoded += rows  # x * sqrt(d) + rows, rounded the same, without a second new tensor
        else:
            encoded = x + rows
        if self.training and self.dropout.p > 0:
            encoded = self.dropout(encoded)
        return encoded

    if TYPE_CHECKING:  # nn.Module types every call as returning Any; checkers see forward's signature instead
        def __call__(self, x: torch.Tensor, positions: int | torch.Tensor | None = None) -> torch.Tensor: ...

    def extra_repr(self) -> str:
        return (f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}, scale={self.scale}, "
                f"batch_first={self.batch_first}, layout={self.layout!r}, spacing={self.spacing!r}")
