r"""A small Transformer built from torch, with six position schemes behind one switch.

Pre-norm blocks (layer norm, multi-head self-attention with
``torch.nn.functional.scaled_dot_product_attention``, residual; layer norm, a two-layer ReLU
network, residual), a final layer norm and a linear read-out per position: the encoder block of
Vaswani et al. (2017, Sec. 3.1), with the normalisation moved before each sub-layer as most
recent models do, and an optional causal mask (a decoder's self-attention). Small enough to
train on a CPU in seconds.

Notation: ``b`` batch size, ``s`` sequence length, ``d`` = `d_model`, ``h`` = `num_heads`,
``d_h = d / h`` the width of a head.
"""

from __future__ import annotations

import math

from .._environment import require

torch = require("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from .._checks import check_base, check_count, check_d_model  # noqa: E402
from ..encoding.layer import SinusoidalPositionalEncoding  # noqa: E402
from ..encoding.rotary import apply_rotary  # noqa: E402
from .positions import (  # noqa: E402
    LearnableFrequencyEncoding,
    RELATIVE_MAX_DISTANCE,
    LearnedPositionalEmbedding,
    alibi_bias,
    alibi_slopes,
    as_positions,
    check_scheme,
    relative_bias,
)

__all__ = ["SelfAttention", "SmallTransformer"]


def _positive(value, name: str) -> int:
    if check_count(value, name) == 0:
        raise ValueError(f"{name} must be a positive integer, got 0")
    return int(value)


class SelfAttention(nn.Module):
    r"""Multi-head self-attention whose logits carry the position scheme's part.

    ``"rotary"`` rotates each head's queries and keys with :func:`~companion.apply_rotary` (pairs
    interleaved, as in Su et al., 2024); ``"alibi"`` adds :func:`~companion.transformer.positions.alibi_bias` to the
    logits (Press et al., 2022); ``"relative"`` adds a learned number per head and clipped offset,
    :func:`~companion.transformer.positions.relative_bias` (offsets of
    :data:`~companion.transformer.positions.RELATIVE_MAX_DISTANCE` or more share one; the numbers start
    at 0); the other schemes leave attention as it is (their positions, if any, are in the input). Shapes: ``x`` ``[b, s, d]``, ``positions`` ``[s]``; output ``[b, s, d]``.

    Parameters
    ----------
    d_model : int
        Width; positive, even, and divisible by `num_heads` into even head widths.
    num_heads : int
        Number of heads.
    scheme : str
        One of :data:`~companion.transformer.positions.POSITION_SCHEMES`.
    causal : bool, default True
        Let position ``i`` attend only to ``j <= i``.
    base : float, default 10000.0
        The base of rotary's frequencies.

    Raises
    ------
    TypeError, ValueError
        On a bad width, head count, scheme or base (the message names the argument).

    Examples
    --------
    >>> attention = SelfAttention(8, 2, scheme="alibi")
    >>> weights = attention.weights(torch.randn(1, 5, 8), torch.arange(5))
    >>> weights.shape, bool(weights[0, :, 0, 1:].eq(0).all())  # causal: position 0 sees only itself
    (torch.Size([1, 2, 5, 5]), True)
    """

    def __init__(self, d_model: int, num_heads: int, *, scheme: str, causal: bool = True, base: float = 10_000.0):
        super().__init__()
        self.d_model, self.num_heads = check_d_model(d_model), _positive(num_heads, "num_heads")
        if self.d_model % self.num_heads or (self.d_model // self.num_heads) % 2:
            raise ValueError(
                f"d_model={d_model} must split into num_heads={num_heads} heads of even width "
                "(rotary turns pairs of coordinates)")
        self.head_dim = self.d_model // self.num_heads
        self.scheme, self.causal, self.base = check_scheme(scheme), bool(causal), check_base(base)
        self.qkv = nn.Linear(self.d_model, 3 * self.d_model)
        self.out = nn.Linear(self.d_model, self.d_model)
        if self.scheme == "alibi":
            self.register_buffer("slopes", alibi_slopes(self.num_heads), persistent=False)
        if self.scheme == "relative":
            self.relative = nn.Parameter(torch.zeros(self.num_heads, 2 * RELATIVE_MAX_DISTANCE + 1))

    def _project(self, x: torch.Tensor, positions: torch.Tensor):
        """Queries, keys and values, ``[b, h, s, d_h]`` each, queries and keys rotated for rotary."""
        b, s, _ = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        if self.scheme == "rotary":
            q, k = apply_rotary(q, positions, base=self.base), apply_rotary(k, positions, base=self.base)
        return q, k, v

    def _mask(self, positions: torch.Tensor, dtype: torch.dtype):
        """The additive mask ``[h, s, s]`` (ALiBi or the relative bias, causal included) or None."""
        if self.scheme == "alibi":
            return alibi_bias(positions, self.slopes.to(dtype), causal=self.causal)
        if self.scheme == "relative":
            return relative_bias(positions, self.relative.to(dtype), causal=self.causal)
        return None

    def logits(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        r"""The attention logits :math:`q_i \cdot k_j / \sqrt{d_h}` plus the scheme's bias, ``[b, h, s, s]``.

        Parameters
        ----------
        x : Tensor, shape (b, s, d)
            The block's input (after its layer norm).
        positions : Tensor of int, shape (s,)
            The tokens' positions.

        Returns
        -------
        Tensor, shape (b, h, s, s)
            ``-inf`` where the causal mask hides a key.
        """
        q, k, _ = self._project(x, positions)
        logits = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        mask = self._mask(positions, logits.dtype)
        if mask is not None:
            return logits + mask
        if self.causal:
            seq_len = positions.shape[0]
            hidden = torch.ones(seq_len, seq_len, dtype=torch.bool, device=x.device).triu(1)
            logits = logits.masked_fill(hidden, float("-inf"))
        return logits

    def weights(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """The attention weights, ``softmax(logits)``, ``[b, h, s, s]``.

        Parameters
        ----------
        x : Tensor, shape (b, s, d)
            The block's input (after its layer norm).
        positions : Tensor of int, shape (s,)
            The tokens' positions.

        Returns
        -------
        Tensor, shape (b, h, s, s)
            Each row sums to 1.
        """
        return self.logits(x, positions).softmax(dim=-1)

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """Attend, with ``torch.nn.functional.scaled_dot_product_attention``.

        Parameters
        ----------
        x : Tensor, shape (b, s, d)
            The block's input (after its layer norm).
        positions : Tensor of int, shape (s,)
            The tokens' positions.

        Returns
        -------
        Tensor, shape (b, s, d)
            The heads' outputs, concatenated and projected.
        """
        b, s, d = x.shape
        q, k, v = self._project(x, positions)
        mask = self._mask(positions, q.dtype)
        if mask is None:
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        else:
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(heads.transpose(1, 2).reshape(b, s, d))


class _Block(nn.Module):
    def __init__(self, d_model: int, num_heads: int, d_ff: int, **attention_options):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attention = SelfAttention(d_model, num_heads, **attention_options)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))

    def forward(self, x, positions):
        x = x + self.attention(self.norm1(x), positions)
        return x + self.feed_forward(self.norm2(x))


class SmallTransformer(nn.Module):
    r"""Token embeddings, a position scheme, a few Transformer blocks, and a class per position.

    The position scheme is one switch, `scheme`:

    - ``"none"``: no positions (NoPE);
    - ``"sinusoidal"``: the companion's :class:`~companion.SinusoidalPositionalEncoding` added to
      the token embeddings (``scale=False``: the embeddings are not multiplied by
      :math:`\sqrt{d}`, both have entries of order 1); with ``learn_frequencies=True``, a
      :class:`~companion.transformer.positions.LearnableFrequencyEncoding` instead;
    - ``"learned"``: a :class:`~companion.transformer.positions.LearnedPositionalEmbedding` of `max_len` rows, added;
    - ``"rotary"``: queries and keys rotated in every block (:func:`~companion.apply_rotary`);
    - ``"alibi"``: linear biases on every block's logits (:func:`~companion.transformer.positions.alibi_bias`);
    - ``"relative"``: a learned bias per clipped offset on every block's logits
      (:func:`~companion.transformer.positions.relative_bias`).

    Shapes: ``tokens`` ``[b, s]`` (int64); output logits ``[b, s, num_classes]``.

    Parameters
    ----------
    vocab_size : int
        Number of token ids.
    num_classes : int
        Number of output classes at each position.
    scheme : str, default "sinusoidal"
        The position scheme.
    d_model : int, default 32
        Width.
    num_heads : int, default 4
        Heads per block.
    num_layers : int, default 1
        Number of blocks.
    d_ff : int, default 64
        Width of the feed-forward network.
    max_len : int, default 64
        Rows of the learned table (and of the sinusoidal layer's cache, which is not a limit).
    base : float, default 10000.0
        Base of the sinusoidal and rotary frequencies.
    causal : bool, default True
        Causal self-attention (a decoder's); False for an encoder's.
    learn_frequencies : bool, default False
        Train the sinusoidal frequencies (only with ``scheme="sinusoidal"``).

    Raises
    ------
    TypeError, ValueError
        On a bad size, scheme or base (the message names the argument), or `learn_frequencies`
        with a scheme other than ``"sinusoidal"``.

    Examples
    --------
    >>> model = SmallTransformer(vocab_size=10, num_classes=3, scheme="rotary")
    >>> model(torch.randint(0, 10, (2, 7))).shape
    torch.Size([2, 7, 3])
    >>> SmallTransformer(10, 3, scheme="learned", max_len=8)(torch.zeros(1, 9, dtype=torch.long))
    Traceback (most recent call last):
    ...
    ValueError: position 8 is beyond the learned table of max_len=8 rows (positions 0 to 7): a learned positional embedding has no row for it
    """

    def __init__(self, vocab_size: int, num_classes: int, *, scheme: str = "sinusoidal", d_model: int = 32,
                 num_heads: int = 4, num_layers: int = 1, d_ff: int = 64, max_len: int = 64,
                 base: float = 10_000.0, causal: bool = True, learn_frequencies: bool = False):
        super().__init__()
        self.scheme = check_scheme(scheme)
        if learn_frequencies and self.scheme != "sinusoidal":
            raise ValueError(f"learn_frequencies=True needs scheme='sinusoidal', got scheme={scheme!r}")
        self.learn_frequencies = bool(learn_frequencies)
        d_model = check_d_model(d_model)
        self.embedding = nn.Embedding(_positive(vocab_size, "vocab_size"), d_model)
        self.positional: nn.Module | None = None
        if self.scheme == "sinusoidal":
            self.positional = (LearnableFrequencyEncoding(d_model, base) if learn_frequencies
                               else SinusoidalPositionalEncoding(d_model, _positive(max_len, "max_len"), base=base,
                                                                 scale=False))
        elif self.scheme == "learned":
            self.positional = LearnedPositionalEmbedding(_positive(max_len, "max_len"), d_model)
        self.blocks = nn.ModuleList(
            _Block(d_model, num_heads, _positive(d_ff, "d_ff"), scheme=self.scheme, causal=causal, base=base)
            for _ in range(_positive(num_layers, "num_layers")))
        self.norm = nn.LayerNorm(d_model)
        self.readout = nn.Linear(d_model, _positive(num_classes, "num_classes"))

    def _embed(self, tokens: torch.Tensor, positions) -> tuple[torch.Tensor, torch.Tensor]:
        if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2:
            raise ValueError(f"tokens must be an integer tensor of shape (batch, seq_len), got {tokens!r}")
        positions = as_positions(positions, tokens.shape[1], tokens.device)
        x = self.embedding(tokens)
        if isinstance(self.positional, SinusoidalPositionalEncoding):
            x = self.positional(x, positions=positions)
        elif self.positional is not None:
            x = x + self.positional(positions)
        return x, positions

    def forward(self, tokens: torch.Tensor, positions=None) -> torch.Tensor:
        """Class logits at every position.

        Parameters
        ----------
        tokens : Tensor of int, shape (b, s)
            Token ids.
        positions : None, int or Tensor of int, shape (s,), optional
            None for ``0 .. s - 1``; an int offset ``o`` for ``o .. o + s - 1``; or each token's position.

        Returns
        -------
        Tensor, shape (b, s, num_classes)
            Unnormalised log-probabilities.

        Raises
        ------
        ValueError
            If `tokens` is not 2-D, `positions` has the wrong shape, or (learned scheme) a position
            is beyond the table.
        """
        x, positions = self._embed(tokens, positions)
        for block in self.blocks:
            x = block(x, positions)
        return self.readout(self.norm(x))

    @torch.no_grad()
    def attention_logits(self, tokens: torch.Tensor, positions=None) -> torch.Tensor:
        """Every block's attention logits, ``[num_layers, b, h, s, s]``.

        Parameters
        ----------
        tokens : Tensor of int, shape (b, s)
            Token ids.
        positions : None, int or Tensor of int, shape (s,), optional
            As in :meth:`forward`.

        Returns
        -------
        Tensor, shape (num_layers, b, h, s, s)
            Scaled logits plus the scheme's bias; ``-inf`` where a causal mask hides a key.

        Raises
        ------
        ValueError
            As :meth:`forward`.
        """
        return torch.stack(self._collect(tokens, positions, "logits"))

    @torch.no_grad()
    def attention_maps(self, tokens: torch.Tensor, positions=None) -> torch.Tensor:
        """Every block's attention weights, ``[num_layers, b, h, s, s]``.

        Parameters
        ----------
        tokens : Tensor of int, shape (b, s)
            Token ids.
        positions : None, int or Tensor of int, shape (s,), optional
            As in :meth:`forward`.

        Returns
        -------
        Tensor, shape (num_layers, b, h, s, s)
            Row ``i`` of head ``h``: how much position ``i`` attends to each position.

        Raises
        ------
        ValueError
            As :meth:`forward`.
        """
        return torch.stack(self._collect(tokens, positions, "weights"))

    @torch.no_grad()
    def residual_stream(self, tokens: torch.Tensor, positions=None) -> torch.Tensor:
        """The residual stream: the input of the first block (embeddings and any added positions), then each block's output.

        What a linear probe reads (``companion.transformer.probe``): entry 0 is what the
        first block receives, entry ``i`` what block ``i`` writes back (before the final layer norm).

        Parameters
        ----------
        tokens : Tensor of int, shape (b, s)
            Token ids.
        positions : None, int or Tensor of int, shape (s,), optional
            As in :meth:`forward`.

        Returns
        -------
        Tensor, shape (num_layers + 1, b, s, d)

        Raises
        ------
        ValueError
            As :meth:`forward`.

        Examples
        --------
        >>> model = SmallTransformer(10, 3, scheme="sinusoidal", num_layers=2)
        >>> model.residual_stream(torch.zeros(1, 5, dtype=torch.long)).shape
        torch.Size([3, 1, 5, 32])
        """
        x, positions = self._embed(tokens, positions)
        stream = [x]
        for block in self.blocks:
            x = block(x, positions)
            stream.append(x)
        return torch.stack(stream)

    def _collect(self, tokens, positions, what: str) -> list[torch.Tensor]:
        x, positions = self._embed(tokens, positions)
        collected = []
        for block in self.blocks:
            collected.append(getattr(block.attention, what)(block.norm1(x), positions))
            x = block(x, positions)
        return collected
