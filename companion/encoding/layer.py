"""The encoding as a PyTorch layer: scale the token embeddings, add the encoding of their positions."""

from __future__ import annotations

import json
import math
import numbers
import threading
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
    check_d_model,
    check_last_dim,
    check_layout,
    check_probability,
    check_spacing,
    too_large,
)
from .torch_table import (  # noqa: E402
    anchored_rows,
    check_device,
    check_torch_dtype,
    consecutive_table,
    frequencies,
    pairs_to_table,
    reads_values,
    tracing,
)

__all__ = ["GROWN_CACHE_ENTRIES", "SinusoidalPositionalEncoding", "TableMismatchError"]

#: With ``max_len=None`` the cache grows to cover the positions asked for, up to this many entries
#: (positions x d_model: 128 MiB in float32); rows beyond it are computed on each call.
GROWN_CACHE_ENTRIES = 2**25

# What a checkpoint records about the table (get_extra_state): the settings that change its values.
_TABLE_SETTINGS = ("d_model", "base", "layout", "spacing", "scale")

# The dtypes of position ids (bool, a mask, is refused)
_INTEGER_DTYPES = frozenset({torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16,
                             torch.uint32, torch.uint64})

# The messages of the checks in a graph traced by torch.compile/export: constants, as dynamo cannot format a symbolic
# size into a string (and converts a torch._check message closure only if it holds constants)
_TRACED_OFFSET_MESSAGE = (
    "SinusoidalPositionalEncoding: positions (an offset) must keep every position within magnitude 2**53, so that "
    "float64 holds them exactly: offset >= -2**53 and offset + seq_len - 1 <= 2**53")
_TRACED_NEGATIVE_OFFSET_MESSAGE = (
    "SinusoidalPositionalEncoding: positions (an offset) must be non-negative (build the layer with "
    "allow_negative_positions=True to encode negative positions) and offset + seq_len - 1 at most 2**53, so that "
    "float64 holds every position exactly")
_TRACED_SHAPE_MESSAGE = (
    "positions must have shape (seq_len,), (batch, seq_len) or (1, seq_len), with x's sequence length and batch "
    "size (position ids are batch first, whatever batch_first says)")

# Held while a cache of max_len=None grows, so that two threads calling forward do not both extend it.
_GROWTH_LOCK = threading.Lock()


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


def _check_max_len(max_len: object) -> int | None:
    """`max_len` as an int if it is a positive integer, or None (a cache that grows)."""
    if max_len is None:
        return None
    allowed = "max_len must be a positive integer (or None for a cache that grows)"
    if isinstance(max_len, bool) or not isinstance(max_len, numbers.Integral):
        raise TypeError(f"{allowed}, got {max_len!r} of type {type(max_len).__name__}")
    if max_len <= 0:
        raise ValueError(f"{allowed}, got {max_len}")
    return int(max_len)


def _describe(settings: dict[str, Any]) -> str:
    return ", ".join(f"{name}={settings[name]!r}" for name in _TABLE_SETTINGS if name in settings)


def _settings_record(settings: dict[str, Any]) -> torch.Tensor:
    """`settings` as a checkpoint holds them: their canonical JSON's bytes in a uint8 tensor.

    A tensor, not a dict, because safetensors (and so ``save_pretrained``) stores tensors only.
    """
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return torch.tensor(list(text.encode()), dtype=torch.uint8)


def _read_settings(state: object) -> dict[str, Any] | None:
    """The settings a checkpoint recorded: a uint8 tensor of JSON, or a dict (as the first 0.2.0 builds saved)."""
    if isinstance(state, dict):
        return state
    if not (isinstance(state, torch.Tensor) and state.dtype == torch.uint8 and state.dim() == 1
            and state.device.type != "meta"):
        return None
    try:
        settings = json.loads(bytes(state.tolist()).decode("utf-8"))
    except ValueError:  # not UTF-8, or not JSON
        return None
    return settings if isinstance(settings, dict) else None


def _describe_state(state: object) -> str:
    """A checkpoint's record of the table, as the mismatch message names it."""
    settings = _read_settings(state)
    if settings is not None:
        return _describe(settings)
    if isinstance(state, torch.Tensor):
        return f"a {state.dtype} tensor of shape {tuple(state.shape)} that is not a record of the settings"
    return repr(state)


def _int64_ids(positions: torch.Tensor) -> torch.Tensor:
    """Integer position ids as int64, for indexing: torch reads uint8 indices as a mask, and int8 or int16 not at all.

    uint64 values of 2**63 or more wrap to negative ids here; the callers' checks refuse them
    (:meth:`SinusoidalPositionalEncoding._check_read` names them, the device-side assertion counts them negative).
    """
    return positions if positions.dtype == torch.int64 else positions.to(torch.int64)


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
      integer tensor of position ids (any integer dtype, bool refused), ``[s]``, ``[b, s]``
      (packed sequences, left padding) or ``[1, s]`` (one row for the whole batch, as
      Hugging Face models pass ``position_ids``).  Ids are batch-first even with
      ``batch_first=False``: ``[b, s]``, never ``[s, b]``.  Negative positions are refused
      unless ``allow_negative_positions=True``.
    - output: the shape of ``x``, ``dropout(x * sqrt(d) + PE[positions])``, without the
      factor when ``scale=False`` (for code that scales its embeddings itself).

    The encoding of positions ``0 .. max_len - 1`` is cached in the buffer ``pe``; `max_len`
    is the size of that cache, not a limit: other positions are computed when asked for,
    with the same accuracy.  With ``max_len=None`` (the default) the cache starts empty and
    grows to cover the positions asked for (doubling, up to :data:`~companion.encoding.layer.GROWN_CACHE_ENTRIES`
    entries), as fairseq's table does, so after the first call the layer costs what a cached
    one does.  That cache is ``pe`` too, but a plain tensor attribute rather than a buffer, so
    that ``DistributedDataParallel``, which broadcasts rank 0's buffers on every forward,
    never sees caches grown to other lengths on other ranks; it moves with the module all
    the same.  It grows under a lock, so threads may share the layer.  The table is rebuilt,
    not cast, when the module moves to another dtype or device (``.double()``, ``.half()``,
    ``.to("cuda")``).  When ``x`` has another dtype or device than the table (autocast, say),
    the rows are computed in ``x``'s dtype on ``x``'s device.

    Accuracy: every value is computed in float64 (the angle ``p * omega_i`` rounded once,
    its sine and cosine a few float64 ulps from exact, see
    :func:`~companion.encoding.torch_table.consecutive_table`) and rounded once to the
    table's dtype.  So a float16 or bfloat16 table carries that dtype's rounding (up to
    2**-12 or 2**-9 for values near 1), a float32 table float32's; the float64 angle's own
    error, about ``p * 2**-53`` radians, matters only for huge positions (it reaches a
    float32 half-ulp near ``p = 2**28``).  Positions beyond ``2**53`` in magnitude, which
    float64 cannot hold exactly, are refused.

    The table is not saved in ``state_dict()``: it is a function of the arguments, rebuilt
    exactly on construction, so checkpoints stay small and load into a module with another
    `max_len`.  What the checkpoint records instead is the table's settings (`d_model`,
    `base`, `layout`, `spacing`, `scale`, as ``<prefix>_extra_state``, a uint8 tensor of
    their JSON, which safetensors and Hugging Face's ``save_pretrained`` store): loading a
    checkpoint saved with other settings raises :class:`~companion.encoding.layer.TableMismatchError`, naming both; a
    state dict without the record (saved by 0.1.0, or partial) loads with a warning, whether
    or not the load is strict (torch does not tell a module which it is).  Hugging Face's
    ``from_pretrained`` allocates non-persistent buffers without values: the layer remembers
    which tensors it filled and fills any others before use (when the record loads, on
    ``train()``/``eval()``, which ``from_pretrained`` calls last, or at the first call).

    Tensor offsets and position ids on an accelerator are never read on the host (no
    synchronisation): they are checked by a device-side assertion, and cached and computed
    rows are blended on the device.  On the CPU their values are read, as an int's.

    ``torch.compile(fullgraph=True, dynamic=True)`` and ``torch.export`` trace every path
    (sequence lengths and offsets stay symbolic, past `max_len` too; the choice between the
    cache and computed rows is a ``torch.cond``); under them the cache does not grow and the
    values of position ids and offsets are checked by an assertion in the graph (a
    ``RuntimeError`` that names the argument).  An int offset given to ``torch.export`` is
    specialised unless declared dynamic (``Dim.AUTO``): the program holds that offset and
    refuses another; a 0-d tensor offset stays an input.  ``torch.export`` does not check the
    dtype of its inputs: give the exported program position ids of the dtype they had when
    it was exported (int64, say).  ``torch.func.vmap`` over position
    ids computes the rows.  Built on the meta device, the module holds no values until it is
    materialised: by ``module.to_empty(device=...)`` or any move, which fill the table, or at
    its first call with a tensor on another device, which builds the table on that tensor's
    device (a model built on the meta device and loaded with ``load_state_dict(..., assign=True)``
    leaves this layer's buffers, in no state dict, on the meta device until then).
    TorchScript (``torch.jit.script``) and ``torch.jit.trace`` are refused with a ``TypeError``.

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
    allow_negative_positions : bool, default False
        Encode negative positions (``sin`` and ``cos`` of negative angles) instead of refusing
        them: Hugging Face pads some position ids with -1, which are then refused unless allowed.
    device : torch.device or str, optional
        Where the cached table lives (``"meta"`` for deferred construction).
    dtype : torch.dtype, optional
        The cached table's dtype; default ``torch.get_default_dtype()``.

    Raises
    ------
    TypeError
        If `d_model` or `max_len` is not an integer, `base` is not real, `scale`,
        `batch_first` or `allow_negative_positions` is not a bool, `layout` or `spacing` is
        not a str, or `dtype` is not a float dtype.
    ValueError
        If `d_model` is not positive and even, `max_len` is not positive or the cache is
        too large to allocate, `base` is not finite and > 1, `dropout` is not in [0, 1),
        `layout` or `spacing` is unknown, or `device` is unknown or absent here.

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
        allow_negative_positions: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.d_model = check_d_model(d_model)
        self.max_len = _check_max_len(max_len)
        self.base = check_base(base)
        self.scale = _check_flag(scale, "scale")
        self.batch_first = _check_flag(batch_first, "batch_first")
        self.allow_negative_positions = _check_flag(allow_negative_positions, "allow_negative_positions")
        self.layout = check_layout(layout)  # type: ignore[assignment]  # checked: one of the Literal's values
        self.spacing = check_spacing(spacing)  # type: ignore[assignment]
        self.dropout = nn.Dropout(check_probability(dropout, "dropout"))
        self._factor = math.sqrt(self.d_model)
        # The (table, frequencies) that hold values, as reset_parameters last filled them: a loader that swaps
        # in buffers without values (Hugging Face's from_pretrained) leaves other tensors in their place
        self._filled: tuple[torch.Tensor, torch.Tensor] | None = None
        dtype = check_torch_dtype(torch.get_default_dtype() if dtype is None else dtype)
        device = check_device(device)
        rows = self.max_len or 0
        if rows * self.d_model > MAX_TABLE_ENTRIES or rows > MAX_EXACT_POSITION:
            raise too_large(rows, self.d_model, torch.finfo(dtype).bits // 8)
        try:
            table = torch.empty((rows, self.d_model), device=device, dtype=dtype)
        except RuntimeError as error:  # torch reports a failed allocation as a RuntimeError (the device is checked)
            raise too_large(rows, self.d_model, torch.finfo(dtype).bits // 8) from error
        if self.max_len is None:
            # A cache that grows is a plain attribute, not a buffer: DDP broadcasts every buffer from rank 0
            # on each forward, and caches grown to other lengths on other ranks would break the broadcast.
            self.pe = table
        else:
            self.register_buffer("pe", table, persistent=False)
        # float64 always; its values, as the table's, are set by reset_parameters
        self.register_buffer("angular_frequencies", torch.empty(self.d_model // 2, dtype=torch.float64, device=device),
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
        """Rebuild the frequencies and the cached table in place (a no-op on the meta device).

        For modules whose buffers were allocated without their values: after
        ``to_empty()``, or in the ``_init_weights`` of a Hugging Face ``PreTrainedModel``.
        The layer also does it by itself when it finds buffers it did not fill (see
        :meth:`set_extra_state` and :meth:`forward`), so a model that forgets it still computes
        on the right table.

        Returns
        -------
        None
        """
        device = self.angular_frequencies.device
        with torch.no_grad():  # not inference_mode(False): a layer built in inference mode holds inference tensors
            self.angular_frequencies = frequencies(self.d_model, self.base, self.spacing, device)
            if device.type == "meta":
                self._filled = None
                return
            if "pe" not in self._buffers and self.pe.device != device:
                # the cache of max_len=None is no buffer: a loader that allocates buffers left it on the meta device
                self.pe = torch.empty((0, self.d_model), dtype=self.pe.dtype, device=device)
            if self.pe.device.type == "meta":
                self._filled = None
                return
            if self.pe.shape[0] > 0:
                self.pe.copy_(consecutive_table(0, self.pe.shape[0], self._frequencies(self.pe.device),
                                                layout=self.layout, dtype=self.pe.dtype))
            self._filled = (self.pe, self.angular_frequencies)

    def _unfilled(self) -> bool:
        """Whether the table or the frequencies are not the tensors :meth:`reset_parameters` last filled."""
        filled = self._filled
        return filled is None or filled[0] is not self.pe or filled[1] is not self.angular_frequencies

    def _fill_if_swapped(self) -> None:
        """Refill the table and the frequencies if a loader swapped in tensors without values (eager mode only).

        Hugging Face's ``from_pretrained`` builds the model on the meta device, then allocates its
        non-persistent buffers without values and leaves them to ``_init_weights``; a layer whose
        buffers are not the ones it filled computes them again here, before any use.  On the meta
        device there is nothing to fill.
        """
        if self._unfilled():
            with _GROWTH_LOCK:
                if self._unfilled():
                    self.reset_parameters()

    def train(self, mode: bool = True) -> SinusoidalPositionalEncoding:
        """``nn.Module.train``, which also fills a table that a loader swapped in without values.

        Hugging Face's ``from_pretrained`` ends with ``model.eval()``, after it has allocated the
        non-persistent buffers: the table holds its values from then on, before any forward.
        """
        super().train(mode)
        if not tracing():
            self._fill_if_swapped()
        return self

    def _apply(self, fn, recurse=True):  # type: ignore[no-untyped-def]  # nn.Module's signature
        before = (self.pe.dtype, self.pe.device)
        super()._apply(fn, recurse)
        if "pe" not in self._buffers:  # the cache of max_len=None: not a buffer, so moved here
            target = fn(self.pe.new_empty((0, self.d_model)))  # where and in what dtype, without a copy
            if (target.dtype, target.device) != before:
                self.pe = torch.empty(self.pe.shape, dtype=target.dtype, device=target.device)
        if ((self.pe.dtype, self.pe.device) != before or self.angular_frequencies.dtype != torch.float64
                or self._unfilled()):
            # moved, cast, or new tensors without values (to_empty on the same device): rebuild, never cast,
            # the frequencies (float64 always) and the table
            self.reset_parameters()
        return self

    def _grown(self, end: int) -> torch.Tensor | None:
        """With ``max_len=None``, the cache extended to hold positions below `end`; None if it may not grow.

        Callers index the table returned, not ``self.pe``: another thread may replace ``self.pe`` meanwhile
        (with a longer table only: growth holds a lock and never shrinks the cache).
        """
        limit = GROWN_CACHE_ENTRIES // self.d_model
        if self.max_len is not None or end > limit or self.pe.device.type == "meta":
            return None
        with _GROWTH_LOCK, torch.no_grad(), torch.inference_mode(False):  # a normal tensor, even if called in one
            table = self.pe
            cached = table.shape[0]
            if end <= cached:  # grown by another thread
                return table
            size = min(max(end, 2 * cached), limit)
            rows = consecutive_table(cached, size - cached, self._frequencies(table.device), layout=self.layout,
                                     dtype=table.dtype)
            self.pe = torch.cat([table, rows])
            self._filled = (self.pe, self.angular_frequencies)
            return self.pe

    # ---- checkpoints

    def _settings(self) -> dict[str, Any]:
        """The settings that change the table's values, by name (what a checkpoint records)."""
        return {name: getattr(self, name) for name in _TABLE_SETTINGS}

    def get_extra_state(self) -> torch.Tensor:
        """The table's settings, saved in ``state_dict()`` (the table itself is not).

        A tensor, so that safetensors (``safetensors.torch.save_file``, and Hugging Face's
        ``save_pretrained``) can store it, as it stores tensors only; ``torch.load`` reads it
        with ``weights_only=True``.

        Returns
        -------
        Tensor, shape (n,), dtype uint8, on the CPU
            The UTF-8 bytes of the settings' canonical JSON (sorted keys, no spaces):
            ``d_model`` (int), ``base`` (float), ``layout`` (str), ``spacing`` (str), ``scale`` (bool).

        Examples
        --------
        >>> record = SinusoidalPositionalEncoding(8).get_extra_state()
        >>> record.dtype, bytes(record.tolist()).decode()
        (torch.uint8, '{"base":10000.0,"d_model":8,"layout":"interleaved","scale":true,"spacing":"paper"}')
        """
        return _settings_record(self._settings())

    def set_extra_state(self, state: Any) -> None:
        """Check a checkpoint's table settings against this layer's.

        Parameters
        ----------
        state : Tensor or dict
            As returned by :meth:`get_extra_state` (a uint8 tensor of JSON), or the dict of
            settings that the first builds of 0.2.0 saved.

        A loader that allocated the buffers without values before loading (as Hugging Face's
        ``from_pretrained`` does) finds them filled afterwards: the table is computed here if its
        buffers are not the ones the layer filled.

        Raises
        ------
        TableMismatchError
            If `state` is not a record of settings, or any setting differs: the message names
            the checkpoint's and this layer's.
        """
        mine = self._settings()
        saved = _read_settings(state)
        if saved is None or any(saved.get(name) != mine[name] for name in _TABLE_SETTINGS):
            raise TableMismatchError(
                f"the checkpoint was saved from a SinusoidalPositionalEncoding with another table: checkpoint "
                f"{_describe_state(state)}; this layer {_describe(mine)}. Build the layer with the checkpoint's "
                f"settings")
        if not tracing():
            self._fill_if_swapped()  # a loader may have allocated the buffers without values just before

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,  # type: ignore[no-untyped-def]
                              unexpected_keys, error_msgs):
        # torch passes strict=True here whatever the caller asked (load_state_dict applies its own `strict`
        # afterwards), so a missing record is treated the same in both modes: a warning, and not a missing key
        key = prefix + "_extra_state"
        recorded = key in state_dict
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        if not recorded:
            if key in missing_keys:
                missing_keys.remove(key)
            warnings.warn(
                f"the state dict has no record of the positional table ({key!r}): a checkpoint saved before "
                f"the companion recorded it (0.1.0), or a partial state dict; the layer keeps its table, with "
                f"{_describe(self._settings())}. Save the checkpoint again to record them", UserWarning, stacklevel=3)

    def __prepare_scriptable__(self):  # type: ignore[no-untyped-def]
        raise TypeError(
            "SinusoidalPositionalEncoding does not support TorchScript (torch.jit.script): its forward takes "
            "an int offset or a tensor of positions. Use torch.compile or torch.export"
        )

    @staticmethod
    def _refuse_jit_trace() -> None:
        raise TypeError(
            "SinusoidalPositionalEncoding does not support torch.jit.trace (deprecated by torch): a trace would "
            "freeze the sequence length and the choice between cached and computed rows that it saw, so other "
            "lengths, offsets or position ids would crash or index the wrong rows. Use torch.compile or "
            "torch.export (and torch.onnx.export(..., dynamo=True), which exports through torch.export)")

    # ---- forward

    def _computed(self, positions: torch.Tensor, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        """Rows for integer `positions` (any shape, kept: no reshape) computed in `dtype` on `device`."""
        sines, cosines = anchored_rows(positions, self._frequencies(device))
        return pairs_to_table(sines, cosines, self.layout, dtype)

    def _cache_usable(self, dtype: torch.dtype, device: torch.device) -> bool:
        return self.pe.shape[0] > 0 and self.pe.dtype == dtype and self.pe.device == device

    def _negative_message(self, got: str) -> str:
        return (f"positions must be non-negative, got {got}; Hugging Face pads some position ids with -1: mask "
                f"them, or build the layer with allow_negative_positions=True to encode negative positions")

    def _check_offset(self, offset: int, seq_len: int) -> None:
        """Refuse an offset whose positions ``offset .. offset + seq_len - 1`` leave ``[-2**53, 2**53]`` (the bound
        of position ids too), or go negative on a layer that refuses negative positions."""
        if offset < -MAX_EXACT_POSITION or offset + seq_len - 1 > MAX_EXACT_POSITION:
            raise ValueError(
                f"positions (an offset) must keep every position within magnitude 2**53 = {MAX_EXACT_POSITION}, so "
                f"that float64 holds them exactly (offset >= -2**53 and offset + seq_len - 1 <= 2**53), got offset "
                f"{offset} for {seq_len} positions")
        if offset < 0 and not self.allow_negative_positions:
            raise ValueError(self._negative_message(f"offset {offset}"))

    def _run(self, offset: int, seq_len: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        """Rows of positions ``offset .. offset + seq_len - 1``, shape (seq_len, d_model)."""
        if torch.compiler.is_compiling():
            return self._traced_run(offset, seq_len, dtype, device)
        self._check_offset(offset, seq_len)
        end, table = offset + seq_len, self.pe
        if offset >= 0 and device == table.device and dtype == table.dtype:
            table = table if end <= table.shape[0] else self._grown(end)
            if table is not None:
                return table[offset:end]
        return consecutive_table(offset, seq_len, self._frequencies(device), layout=self.layout, dtype=dtype)

    def _traced_run(self, offset: int, seq_len: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        """:meth:`_run` under torch.compile/export: `offset` and `seq_len` may be symbolic, so no guard on them."""
        # Checked as a tensor, in the graph, whether the offset is symbolic or not: a guard on a symbolic size would
        # narrow an exported program's dimensions (torch.export refuses a named Dim whose range a guard narrows),
        # and dynamo cannot format a symbolic int into an error message.  The last position is compared as
        # 2**53 + 1 - seq_len, which cannot wrap around as offset + seq_len can in int64
        zero = torch.zeros((), dtype=torch.int64, device=device)
        lowest = -MAX_EXACT_POSITION if self.allow_negative_positions else 0
        first = zero + offset
        torch._assert_async((first >= lowest) & (first <= MAX_EXACT_POSITION + 1 - seq_len),
                            _TRACED_OFFSET_MESSAGE if lowest else _TRACED_NEGATIVE_OFFSET_MESSAGE)
        positions = offset + torch.arange(seq_len, device=device)
        if not self._cache_usable(dtype, device):
            return self._computed(positions, dtype, device)
        # inside the cache iff offset >= 0 and offset + seq_len <= cached, as a tensor (a bool would be
        # specialised on, and sizes may be symbolic): torch.cond traces both branches, no guard on the sizes
        inside = torch.minimum(zero + offset, self.pe.shape[0] - (zero + offset + seq_len)) >= 0
        return torch.cond(inside, self._gathered, self._computed_like_cache, (positions,))

    def _gathered(self, positions: torch.Tensor) -> torch.Tensor:
        """Cached rows of `positions` (clamped into the cache: the other branch of ``torch.cond`` takes the rest)."""
        return self.pe[positions.clamp(0, self.pe.shape[0] - 1)]

    def _gathered_flat(self, positions: torch.Tensor) -> torch.Tensor:
        """:meth:`_gathered`, as (n, d_model) for n positions of any shape."""
        return self._gathered(positions.reshape(-1))

    def _computed_flat(self, positions: torch.Tensor) -> torch.Tensor:
        """:meth:`_computed_like_cache`, as (n, d_model) for n positions of any shape."""
        return self._computed_like_cache(positions.reshape(-1))

    def _computed_like_cache(self, positions: torch.Tensor) -> torch.Tensor:
        """Computed rows in the cache's dtype, on its device (the other branch of ``torch.cond``)."""
        return self._computed(positions, self.pe.dtype, self.pe.device)

    def _assert_on_device(self, ids: torch.Tensor, low: torch.Tensor, high: torch.Tensor) -> None:
        """Refuse bad ids without reading them: an assertion the device checks (``torch._assert_async``).

        On the CPU it raises at once; on an accelerator it fails the stream (a device-side assert), as
        an out-of-range ``nn.Embedding`` index does, rather than wait for the values.
        """
        lowest = -MAX_EXACT_POSITION if self.allow_negative_positions else 0
        torch._assert_async((low >= lowest) & (high <= MAX_EXACT_POSITION),
                            "SinusoidalPositionalEncoding: position ids must be non-negative (unless the layer "
                            "allows negative positions) and of magnitude at most 2**53")

    def _ids_on_device(self, ids: torch.Tensor, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        """Rows of `ids` without reading them on the host: no synchronisation with the device, and a
        program that ``torch.jit.trace`` can record (no branch on values).

        Checked by a device-side assertion; cached rows where the ids fall inside the cache, computed
        rows elsewhere, blended by ``torch.where`` (both are computed: the price of not looking).
        """
        if ids.numel() > 0:
            low, high = torch.aminmax(ids)
            self._assert_on_device(ids, low, high)
        if not self._cache_usable(dtype, device):
            return self._computed(ids, dtype, device)
        cached = self.pe.shape[0]
        inside = (ids >= 0) & (ids < cached)
        # embedding, not pe[ids]: indexing with a 0-d tensor would read it as an int
        gathered = torch.nn.functional.embedding(ids.clamp(0, cached - 1), self.pe)
        return torch.where(inside[..., None], gathered, self._computed(ids, dtype, device))

    def _ids(self, ids: torch.Tensor, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        """Rows of int64 position ids (any shape), shape ``ids.shape + (d_model,)``, in `dtype` on `device`."""
        if torch.compiler.is_compiling():
            if ids.device != device:
                ids = ids.to(device)
            low, high = ids.min(), ids.max()
            self._assert_on_device(ids, low, high)
            if not self._cache_usable(dtype, device):
                return self._computed(ids, dtype, device)
            inside = (low >= 0) & (high < self.pe.shape[0])
            # torch.cond wants outputs whose strides are plain products of their sizes; rows of ids whose length
            # may be 0 to the shape environment (an arange of an int argument) have strides max(1, s) d_model. So
            # both branches return (n, d_model), strides (d_model, 1), and the rows take the ids' shape afterwards
            flat = torch.cond(inside, self._gathered_flat, self._computed_flat, (ids,))
            return flat.reshape(*ids.shape, self.d_model)
        if torch._C._functorch.is_functorch_wrapped_tensor(ids):  # vmap, grad: no values to look at
            return self._computed(ids, dtype, device)
        if ids.device != device:
            if ids.device.type == "meta" or device.type == "meta":
                raise ValueError(f"positions is on the {ids.device} device and x on the {device} device: pass "
                                 f"position ids with values, on x's device")
            if not reads_values(ids):
                ids = ids.to(device)
        if ids.device.type == "meta":
            return self._computed(ids, dtype, device)
        if not reads_values(ids):
            return self._ids_on_device(ids, dtype, device)
        if ids.numel() == 0:
            return self._computed(ids.to(device), dtype, device)
        low, high = (value.item() for value in torch.aminmax(ids))  # host memory: no synchronisation
        if low < 0 and not self.allow_negative_positions:
            raise ValueError(self._negative_message(f"values in [{low}, {high}]"))
        if max(-low, high) > MAX_EXACT_POSITION:
            raise ValueError(f"positions must have magnitude at most 2**53 = {MAX_EXACT_POSITION} so that float64 "
                             f"holds them exactly, got values in [{low}, {high}]")
        ids = ids.to(device)  # x on an accelerator: the ids follow, once read
        table = self.pe
        if low >= 0 and device == table.device and dtype == table.dtype:
            table = table if high < table.shape[0] else self._grown(high + 1)
            if table is not None:
                return table[ids]
        return self._computed(ids, dtype, device)

    def _position_ids(self, positions: torch.Tensor) -> torch.Tensor:
        """Checked integer position ids as int64 (bool, floats and uint64 values from 2**63 refused)."""
        if positions.is_floating_point() or positions.is_complex() or positions.dtype == torch.bool:
            raise TypeError(f"positions must be an integer tensor of position ids (any integer dtype; bool is a mask, "
                            f"not positions), got dtype {positions.dtype}")
        ids = _int64_ids(positions)
        if positions.dtype == torch.uint64 and reads_values(positions) and bool((ids < 0).any()):
            raise ValueError(f"positions must have magnitude at most 2**53 = {MAX_EXACT_POSITION} so that float64 "
                             f"holds them exactly, got torch.uint64 values of 2**63 or more")
        return ids

    def _rows(self, positions: int | torch.Tensor | None, seq_len: int, batch: int, dtype: torch.dtype,
              device: torch.device) -> torch.Tensor:
        """The encoding to add: shape (seq_len, d_model) or (batch, seq_len, d_model), in `dtype` on `device`."""
        if positions is None:
            return self._run(0, seq_len, dtype, device)
        if isinstance(positions, torch.SymInt):
            return self._run(positions, seq_len, dtype, device)  # type: ignore[arg-type]  # symbolic under tracing
        if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
            return self._run(int(positions), seq_len, dtype, device)
        if not isinstance(positions, torch.Tensor):
            raise TypeError(
                f"positions must be None, an int offset or an integer tensor of position ids, got "
                f"{type(positions).__name__}"
            )
        positions = self._position_ids(positions)
        if positions.dim() == 0:  # an offset held in a tensor
            if reads_values(positions):  # in host memory: read it, then the offset's path (the cache's slice)
                return self._run(int(positions), seq_len, dtype, device)
            # on an accelerator (or traced): never read, so no synchronisation; it becomes position ids
            return self._ids(positions + torch.arange(seq_len, device=positions.device), dtype, device)
        if positions.dim() == 1:
            matches = [positions.shape[0] == seq_len]
        elif positions.dim() == 2:  # (batch, seq_len), or (1, seq_len) for the whole batch, as Hugging Face passes
            matches = [positions.shape[1] == seq_len]
            if positions.shape[0] != 1:
                matches.append(positions.shape[0] == batch)
        else:
            raise ValueError(self._shape_message(positions, seq_len, batch))
        if torch.compiler.is_compiling():  # sizes may be symbolic: assert them, without a guard per value
            for match in matches:  # a constant message: dynamo cannot format symbolic sizes into a string
                torch._check(match, lambda: _TRACED_SHAPE_MESSAGE)
        elif not all(matches):
            raise ValueError(self._shape_message(positions, seq_len, batch))
        return self._ids(positions, dtype, device)

    @staticmethod
    def _shape_message(positions: torch.Tensor, seq_len: int, batch: int) -> str:
        return (f"positions must have shape (seq_len,) = ({seq_len},) or (batch, seq_len) = ({batch}, {seq_len}) "
                f"(or (1, {seq_len}), the same ids for the whole batch), got {tuple(positions.shape)}")

    def _ready(self, device: torch.device) -> None:
        """Fill a table that a loader swapped in without values, or that is still on the meta device.

        A model built on the meta device whose weights were then loaded with ``assign=True`` has its
        parameters on a real device and this layer's buffers (in no state dict) still on the meta
        device: the table, a function of the settings alone, is built on the device of the input.
        """
        if self.angular_frequencies.device.type == "meta" and device.type != "meta":
            with _GROWTH_LOCK:
                if self.angular_frequencies.device.type == "meta":
                    self._buffers["angular_frequencies"] = torch.empty_like(self.angular_frequencies, device=device)
                    table = torch.empty_like(self.pe, device=device)
                    if "pe" in self._buffers:
                        self._buffers["pe"] = table
                    else:
                        self.pe = table
                    self.reset_parameters()
        self._fill_if_swapped()

    def rows(
        self, positions: torch.Tensor, *, padding_idx: int | None = None, dtype: torch.dtype | None = None
    ) -> torch.Tensor:
        """The table's rows for position ids alone: no scaling, no addition, no dropout.

        For models that scale and add the encoding themselves, as Hugging Face's do
        (``inputs_embeds * embed_scale + embed_positions(...)``): the rows come from the cache
        or are computed, as in :meth:`forward`, with the same checks, under ``torch.compile``
        and ``torch.export`` too.  A layer still on the meta device builds its table on the
        device of `positions` at this call.

        Parameters
        ----------
        positions : Tensor of int, any shape ``(...)``
            Position ids, any integer dtype (bool refused), such as
            :func:`~companion.position_ids_from_input_ids` returns.
        padding_idx : int, optional
            Ids equal to it get a zero row, as fairseq's table (and M2M100's, FSMT's,
            Speech2Text's) keeps the row of its padding index zero.
        dtype : torch.dtype, optional
            Default the cached table's dtype.

        Returns
        -------
        Tensor, shape ``(..., d_model)``, dtype `dtype`, on the device of `positions`

        Raises
        ------
        TypeError
            If `positions` is not an integer tensor, `padding_idx` is not an int, or `dtype`
            is not a float dtype.
        ValueError
            If `positions` holds negative values (unless ``allow_negative_positions=True``) or
            magnitudes beyond 2**53 (under ``torch.compile`` and ``torch.export``, a
            ``RuntimeError`` from the assertion in the graph; on an accelerator, the device's
            assertion).

        Examples
        --------
        >>> layer = SinusoidalPositionalEncoding(4, 8)
        >>> layer.rows(torch.tensor([[1, 2, 3]]), padding_idx=1)
        tensor([[[ 0.0000,  0.0000,  0.0000,  0.0000],
                 [ 0.9093, -0.4161,  0.0200,  0.9998],
                 [ 0.1411, -0.9900,  0.0300,  0.9996]]])
        """
        if not isinstance(positions, torch.Tensor):
            raise TypeError(f"positions must be an integer tensor of position ids, got {type(positions).__name__}")
        if padding_idx is not None and (isinstance(padding_idx, bool) or not isinstance(padding_idx, numbers.Integral)):
            raise TypeError(f"padding_idx must be an int or None, got {padding_idx!r} of type "
                            f"{type(padding_idx).__name__}")
        dtype = self.pe.dtype if dtype is None else check_torch_dtype(dtype)
        if not torch.compiler.is_compiling():
            if torch.jit.is_tracing():
                self._refuse_jit_trace()
            self._ready(positions.device)
        ids = self._position_ids(positions)
        rows = self._ids(ids, dtype, ids.device)
        if padding_idx is not None:
            rows = rows.masked_fill((ids == padding_idx)[..., None], 0.0)
        return rows

    def forward(self, x: torch.Tensor, positions: int | torch.Tensor | None = None) -> torch.Tensor:
        """Return ``dropout(x * sqrt(d_model) + PE[positions])`` (no factor when ``scale=False``).

        Parameters
        ----------
        x : Tensor, shape (batch, seq_len, d_model), or (seq_len, batch, d_model) if not batch_first
            Token embeddings, a real floating dtype.  A layer still on the meta device builds
            its table on `x`'s device at this call.
        positions : None, int, or Tensor of int, shape (), (seq_len,), (batch, seq_len) or (1, seq_len), optional
            None for ``0 .. seq_len - 1``; an int offset ``o`` (or a 0-d tensor holding it) for
            ``o .. o + seq_len - 1``; or each token's position, any integer dtype (int8 to
            int64, uint8 to uint64).  Batch first whatever `batch_first` says.  Negative
            positions are refused unless the layer was built with ``allow_negative_positions=True``.

        Returns
        -------
        Tensor, the shape, dtype and device of `x`
            The encoded embeddings.

        Raises
        ------
        TypeError
            If `x` is not a real floating tensor, or `positions` is not None, an int or an
            integer tensor (a bool tensor, a mask, is refused).
        ValueError
            If `x` is not 3-D, its last dimension is not `d_model`, `positions` has the wrong
            shape, is on the meta device while `x` is not (or the reverse), holds a negative
            position (unless allowed) or one beyond magnitude 2**53 (for an offset ``o``:
            ``o + seq_len - 1`` above 2**53).  Position ids on an accelerator are checked by
            the device (``torch._assert_async``), without waiting for it: a bad id fails the
            device's stream.
        RuntimeError
            Under ``torch.compile`` and ``torch.export``, for the checks that the graph makes
            (the values of position ids or of an offset; under ``torch.compile``, the ids'
            shape): the message names `positions` and what is allowed.  (An eager
            ``ValueError`` or ``TypeError`` raised while
            ``torch.compile(fullgraph=True)`` traces reaches the caller as dynamo's
            ``Unsupported: Observed exception``, a ``RuntimeError``, with the layer's message
            under "Developer debug context".)
        """
        compiling = torch.compiler.is_compiling()
        # torch.jit.is_tracing() without its Python layer, as a decoding step is short (dynamo cannot trace it)
        if not compiling and torch._C._is_tracing():
            self._refuse_jit_trace()
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
        if compiling:
            rows = self._rows(positions, seq_len, batch, x.dtype, x.device)
        else:
            # a buffer (max_len given), read from _buffers: nn.Module.__getattr__ would slow a decoding step by a fifth
            buffers = self._buffers
            pe = buffers.get("pe")
            if pe is None:  # the cache of max_len=None, a plain attribute
                pe = self.pe
            filled = self._filled
            if filled is None or filled[0] is not pe or filled[1] is not buffers["angular_frequencies"]:
                self._ready(x.device)
                pe = self.pe
            # The common case first, in as few Python steps as a hand-written table add: a slice of the cache,
            # for an int offset or one held in a CPU tensor (host memory: reading it waits for no device)
            if positions is None or type(positions) is int:
                offset = positions or 0
            elif (type(positions) is torch.Tensor and positions.ndim == 0 and positions.is_cpu
                    and positions.dtype in _INTEGER_DTYPES):
                try:
                    offset = positions.item()
                except RuntimeError:  # a vmap wrapper, which has no single value: the general path
                    offset = -1
            else:
                offset = -1
            if (0 <= offset and offset + seq_len <= pe.shape[0] and x.dtype is pe.dtype
                    and ((x.is_cpu and pe.is_cpu) or x.device == pe.device)):
                rows = pe[offset : offset + seq_len]
            else:
                rows = self._rows(positions, seq_len, batch, x.dtype, x.device)
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
