r"""The six position schemes of the small Transformer, and the learnable-frequency variant.

A Transformer learns where its tokens stand in one of two places:

- **added to the token embeddings** before the first block (absolute schemes): the sinusoidal
  encoding of Vaswani et al. (2017, Sec. 3.5), here the companion's
  :class:`~companion.SinusoidalPositionalEncoding`; a learned table, one trainable row per position
  (:class:`LearnedPositionalEmbedding`); or the sinusoidal encoding with trainable frequencies
  (:class:`LearnableFrequencyEncoding`);
- **inside attention** (relative schemes): rotary position embedding (Su et al., 2024), which
  rotates queries and keys with :func:`~companion.apply_rotary`; ALiBi (Press et al., 2022),
  which adds :math:`-m_h (i - j)` to the logit of query :math:`i` and key :math:`j` in head
  :math:`h` (:func:`alibi_slopes`, :func:`alibi_bias`); or a learned relative bias, one trainable
  number per head and clipped offset added to the logit (Shaw et al., 2018, clip their offsets so;
  T5, Raffel et al., 2020, learns one number per bucket of offsets: :func:`relative_bias`).

``"none"`` uses no positions at all (NoPE, Kazemnejad et al., 2023).
"""

from __future__ import annotations

import math
import numbers

from .._environment import require

torch = require("torch")
from torch import nn  # noqa: E402

from .._checks import check_base, check_count, check_d_model  # noqa: E402

__all__ = [
    "POSITION_SCHEMES",
    "LearnableFrequencyEncoding",
    "LearnedPositionalEmbedding",
    "alibi_bias",
    "alibi_slopes",
    "check_scheme",
    "relative_bias",
    "RELATIVE_MAX_DISTANCE",
]

#: The switch of :class:`~companion.transformer.model.SmallTransformer`: no positions (NoPE), the
#: sinusoidal encoding added to the embeddings, a learned table added to them, rotary position
#: embedding on queries and keys, ALiBi's linear biases on the attention logits, a learned bias per
#: clipped offset on the logits.
POSITION_SCHEMES = ("none", "sinusoidal", "learned", "rotary", "alibi", "relative")

#: The learned relative bias's clipping: keys this many positions away or farther share one bias.
RELATIVE_MAX_DISTANCE = 8


def check_scheme(scheme) -> str:
    """Return `scheme` if it is one of :data:`POSITION_SCHEMES`.

    Parameters
    ----------
    scheme : str
        The name of a position scheme.

    Returns
    -------
    str
        `scheme`, unchanged.

    Raises
    ------
    TypeError
        If `scheme` is not a str.
    ValueError
        If `scheme` is not one of :data:`POSITION_SCHEMES`.

    Examples
    --------
    >>> check_scheme("alibi")
    'alibi'
    """
    if not isinstance(scheme, str):
        raise TypeError(f"scheme must be one of {POSITION_SCHEMES} (a str), got {scheme!r}")
    if scheme not in POSITION_SCHEMES:
        raise ValueError(f"scheme must be one of {POSITION_SCHEMES}, got {scheme!r}")
    return scheme


def _check_positions_tensor(positions, name: str = "positions") -> torch.Tensor:
    if not isinstance(positions, torch.Tensor) or positions.dim() != 1:
        raise TypeError(f"{name} must be a 1-D integer tensor of positions, got {positions!r}")
    if positions.is_floating_point() or positions.is_complex() or positions.dtype == torch.bool:
        raise TypeError(f"{name} must be a 1-D integer tensor of positions, got dtype {positions.dtype}")
    return positions


class LearnedPositionalEmbedding(nn.Module):
    r"""A learned table of absolute positions: one trainable vector per position, added to the tokens.

    The alternative the paper tried in Table 3, row (E) (Vaswani et al., 2017, Sec. 3.5, after
    Gehring et al., 2017). The table has `max_len` rows, for positions ``0 .. max_len - 1``; a row
    is trained only if training sequences reach its position. A position beyond the table has no
    row at all, and is refused.

    Notation: ``s`` sequence length, ``d`` = `d_model`. ``forward(positions)``: positions ``[s]``,
    integers in ``[0, max_len)``; returns ``[s, d]``.

    Parameters
    ----------
    max_len : int
        Number of rows: positions ``0 .. max_len - 1``.
    d_model : int
        Width of each row.

    Raises
    ------
    TypeError
        If `max_len` or `d_model` is not an integer.
    ValueError
        If `max_len` is not positive, or `d_model` is not positive and even.

    Examples
    --------
    >>> table = LearnedPositionalEmbedding(max_len=8, d_model=4)
    >>> table(torch.arange(8)).shape
    torch.Size([8, 4])
    >>> table(torch.arange(9))
    Traceback (most recent call last):
    ...
    ValueError: position 8 is beyond the learned table of max_len=8 rows (positions 0 to 7): a learned positional embedding has no row for it
    """

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        if check_count(max_len, "max_len") == 0:
            raise ValueError("max_len must be a positive integer, got 0")
        self.max_len, self.d_model = int(max_len), check_d_model(d_model)
        self.table = nn.Embedding(self.max_len, self.d_model)

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        """The rows of `positions`.

        Parameters
        ----------
        positions : Tensor of int, shape (seq_len,)
            Positions in ``[0, max_len)``.

        Returns
        -------
        Tensor, shape (seq_len, d_model)
            The learned rows (float32 unless the module was cast).

        Raises
        ------
        TypeError
            If `positions` is not a 1-D integer tensor.
        ValueError
            If a position is negative or not below `max_len`, naming the position and the table size.
        """
        positions = _check_positions_tensor(positions)
        if positions.numel():
            largest, smallest = int(positions.max()), int(positions.min())
            if largest >= self.max_len:
                raise ValueError(
                    f"position {largest} is beyond the learned table of max_len={self.max_len} rows "
                    f"(positions 0 to {self.max_len - 1}): a learned positional embedding has no row for it")
            if smallest < 0:
                raise ValueError(f"positions must be non-negative, got {smallest}")
        return self.table(positions)


class LearnableFrequencyEncoding(nn.Module):
    r"""The sinusoidal encoding with trainable angular frequencies :math:`\omega_i`.

    The notes *Positional Encoding* remark that the frequencies "can be learnable". Here each
    :math:`\omega_i` starts at the paper's value ``base ** (-2i / d_model)`` and is trained through
    its logarithm (so it stays positive and every frequency moves by a similar relative step).
    The encoding keeps the paper's interleaved layout: column ``2i`` is
    :math:`\sin(\omega_i p)`, column ``2i + 1`` is :math:`\cos(\omega_i p)`.

    Notation: ``s`` sequence length, ``d`` = `d_model`. ``forward(positions)``: positions ``[s]``;
    returns ``[s, d]`` in the dtype of the parameters.

    Parameters
    ----------
    d_model : int
        Encoding width; positive and even.
    base : float, default 10000.0
        Sets the initial frequencies; finite and greater than 1.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `base` is not a real number.
    ValueError
        If `d_model` is not positive and even, or `base` is not finite and > 1.

    Examples
    --------
    >>> encoding = LearnableFrequencyEncoding(d_model=4)
    >>> encoding.frequencies().tolist()  # the paper's, until trained
    [1.0, 0.009999999776482582]
    >>> [round(value, 4) for value in encoding(torch.arange(2))[1].tolist()]  # float32: cos(0.01) is 0.99994999
    [0.8415, 0.5403, 0.01, 0.9999]
    """

    def __init__(self, d_model: int, base: float = 10_000.0):
        super().__init__()
        self.d_model, self.base = check_d_model(d_model), check_base(base)
        self.log_frequencies = nn.Parameter(torch.empty(self.d_model // 2))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Set the frequencies back to the paper's, ``base ** (-2i / d_model)``.

        Returns
        -------
        None
        """
        exponents = torch.arange(0, self.d_model, 2, dtype=torch.float64) / self.d_model
        with torch.no_grad():
            self.log_frequencies.copy_(-exponents * math.log(self.base))

    def frequencies(self) -> torch.Tensor:
        r"""The current angular frequencies :math:`\omega_i`, radians per position.

        Returns
        -------
        Tensor, shape (d_model // 2,)
            Positive; with gradient.
        """
        return self.log_frequencies.exp()

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        """The encoding of `positions` with the current frequencies.

        Parameters
        ----------
        positions : Tensor of int, shape (seq_len,)
            Positions (any integers).

        Returns
        -------
        Tensor, shape (seq_len, d_model)
            Interleaved sines and cosines, the dtype of the parameters.

        Raises
        ------
        TypeError
            If `positions` is not a 1-D integer tensor.
        """
        positions = _check_positions_tensor(positions)
        angles = positions.to(self.log_frequencies.dtype)[:, None] * self.frequencies()
        return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)


def alibi_slopes(num_heads: int) -> torch.Tensor:
    r"""ALiBi's head-specific slopes :math:`m_h` (Press et al., 2022, Sec. 3).

    For :math:`n` heads, :math:`n` a power of 2, the geometric sequence that starts at
    :math:`2^{-8/n}` with that same ratio: for 8 heads ``1/2, 1/4, ..., 1/256``. For other
    :math:`n`, the rule of the authors' code: the slopes of the nearest lower power of 2, then every
    other slope of the next power of 2.

    Parameters
    ----------
    num_heads : int
        Number of attention heads; positive.

    Returns
    -------
    Tensor, shape (num_heads,), dtype float32
        Slopes in (0, 1), steepest first.

    Raises
    ------
    TypeError
        If `num_heads` is not an integer.
    ValueError
        If `num_heads` is not positive.

    Examples
    --------
    >>> alibi_slopes(4).tolist()
    [0.25, 0.0625, 0.015625, 0.00390625]
    >>> alibi_slopes(8)[0].item(), alibi_slopes(8)[-1].item()
    (0.5, 0.00390625)
    """
    if check_count(num_heads, "num_heads") == 0:
        raise ValueError("num_heads must be a positive integer, got 0")

    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]

    lower = 2 ** int(math.floor(math.log2(num_heads)))
    slopes = power_of_two(lower) + power_of_two(2 * lower)[0::2][: num_heads - lower]
    return torch.tensor(slopes, dtype=torch.float32)


def alibi_bias(positions: torch.Tensor, slopes: torch.Tensor, *, causal: bool = True) -> torch.Tensor:
    r"""ALiBi's additive attention bias, :math:`-m_h\,(i - j)` for query position :math:`i`, key :math:`j`.

    Press et al. (2022, Sec. 3) add it to the logits of a causal model, where :math:`j \le i`; the
    keys after the query are masked (``-inf``) when `causal`. Without a causal mask the bias here is
    :math:`-m_h\,|i - j|`, the symmetric form used by bidirectional encoders: it cannot tell the
    token :math:`k` places before from the one :math:`k` places after. Either way the bias depends
    on the positions only through :math:`i - j`.

    Parameters
    ----------
    positions : Tensor of int, shape (seq_len,)
        Positions of the tokens (queries and keys alike).
    slopes : Tensor, shape (num_heads,)
        One slope per head, e.g. :func:`alibi_slopes`.
    causal : bool, default True
        Mask the keys after each query with ``-inf``.

    Returns
    -------
    Tensor, shape (num_heads, seq_len, seq_len), dtype of `slopes`
        ``bias[h, i, j]``, to be added to the logits of head ``h``.

    Raises
    ------
    TypeError
        If `positions` is not a 1-D integer tensor or `slopes` not a 1-D floating tensor.

    Examples
    --------
    >>> alibi_bias(torch.arange(3), torch.tensor([0.5]))[0]
    tensor([[ 0.0000,    -inf,    -inf],
            [-0.5000,  0.0000,    -inf],
            [-1.0000, -0.5000,  0.0000]])
    """
    positions = _check_positions_tensor(positions)
    if not isinstance(slopes, torch.Tensor) or slopes.dim() != 1 or not slopes.is_floating_point():
        raise TypeError(f"slopes must be a 1-D floating tensor, one slope per head, got {slopes!r}")
    behind = positions[None, :] - positions[:, None]  # j - i, integers (no -0.0 on the diagonal)
    bias = slopes[:, None, None] * (behind if causal else -behind.abs()).to(slopes.dtype)
    if causal:
        bias = bias.masked_fill(behind > 0, float("-inf"))
    return bias


def relative_bias(positions: torch.Tensor, table: torch.Tensor, *, causal: bool = True) -> torch.Tensor:
    r"""A learned relative bias: one number per head and clipped offset, added to the attention logits.

    Query position :math:`i` and key :math:`j` of head :math:`h` get
    ``table[h, clip(j - i, -D, D) + D]``, :math:`D` = ``(table.shape[1] - 1) // 2``: every offset of
    :math:`D` or more positions shares one number, as Shaw et al. (2018) clip their relative positions
    (T5, Raffel et al., 2020, shares one number per bucket of offsets instead). The keys after the query
    are masked (``-inf``) when `causal`. The bias depends on the positions only through :math:`j - i`, and
    beyond :math:`D` on nothing: a model trained on sequences longer than :math:`D` has seen every value
    it can take.

    Parameters
    ----------
    positions : Tensor of int, shape (seq_len,)
        Positions of the tokens (queries and keys alike).
    table : Tensor, shape (num_heads, 2 * D + 1)
        The learned numbers, for offsets ``-D .. D``; floating.
    causal : bool, default True
        Mask the keys after each query with ``-inf``.

    Returns
    -------
    Tensor, shape (num_heads, seq_len, seq_len), dtype of `table`
        ``bias[h, i, j]``, to be added to the logits of head ``h``.

    Raises
    ------
    TypeError
        If `positions` is not a 1-D integer tensor or `table` not a 2-D floating tensor with an odd
        number of columns.

    Examples
    --------
    >>> table = torch.tensor([[-2.0, -1.0, 0.0, 1.0, 2.0]])  # D = 2: offsets -2 .. 2
    >>> relative_bias(torch.arange(4), table)[0]
    tensor([[ 0., -inf, -inf, -inf],
            [-1.,  0., -inf, -inf],
            [-2., -1.,  0., -inf],
            [-2., -2., -1.,  0.]])
    """
    positions = _check_positions_tensor(positions)
    if (not isinstance(table, torch.Tensor) or table.dim() != 2 or not table.is_floating_point()
            or table.shape[1] % 2 == 0):
        raise TypeError(f"table must be a 2-D floating tensor (num_heads, 2 * max_distance + 1), got {table!r}")
    reach = (table.shape[1] - 1) // 2
    behind = positions[None, :] - positions[:, None]  # j - i
    bias = table[:, behind.clamp(-reach, reach) + reach]
    if causal:
        bias = bias.masked_fill(behind > 0, float("-inf"))
    return bias


def as_positions(positions, seq_len: int, device=None) -> torch.Tensor:
    """Positions of a sequence: None for ``0 .. seq_len - 1``, an int offset, or a 1-D integer tensor."""
    if positions is None:
        positions = 0
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        return torch.arange(int(positions), int(positions) + seq_len, device=device)
    positions = _check_positions_tensor(positions)
    if positions.shape[0] != seq_len:
        raise ValueError(f"positions must have shape (seq_len,) = ({seq_len},), got {tuple(positions.shape)}")
    return positions
