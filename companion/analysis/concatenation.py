r"""Adding the encoding to the embeddings, or concatenating it: what each costs, and how much the sum mixes.

Vaswani et al. (2017), Sec. 3.5, *add* :math:`PE(pos)` to the token's scaled embedding :math:`x`.
Setting it beside the embedding instead, :math:`[x;\ PE]`, keeps content and position apart, but the
residual stream is then wider, and with it every matrix that reads or writes the stream, in every
layer: :func:`stack_size` counts the paper's encoder-decoder stack at any stream width. For one linear
map, adding *is* concatenating with tied weights, :math:`W (x + PE) = [W\ \ W]\,[x;\ PE]`.

What the sum gives up is the separation, in part. :func:`encoding_directions` finds the directions of
:math:`\mathbb{R}^{d_{\text{model}}}` in the order of how much of a table's squared norm each holds (its
right singular vectors); the encoding of a few hundred positions keeps nearly all of it in a fraction
of the width. :func:`energy_share` measures how much of a content vector falls in such a subspace: the
squared cosine of the vector's angle to it, about :math:`k / d_{\text{model}}` for a random direction
and a subspace of dimension :math:`k`. :func:`embedding_like_vectors` draws content with the
anisotropy of trained embeddings, for comparison.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._checks import check_base, check_count, check_d_model, check_positions, check_real_array
from ..encoding.table import sinusoidal_encoding

__all__ = ["EncodingDirections", "StackSize", "embedding_like_vectors", "encoding_directions", "energy_share",
           "stack_size"]


class StackSize(NamedTuple):
    """The size of a Transformer's layers: their parameters, and the multiply-adds of their weight matrices per token.

    Parameters
    ----------
    parameters : int
        Weights, biases, layer-norm gains and biases.
    multiply_adds : int
        Multiply-adds per token in the weight matrices (each weight used once).

    Examples
    --------
    >>> size = stack_size(512)
    >>> size.parameters, size.multiply_adds
    (44138496, 44040192)
    """

    parameters: int
    multiply_adds: int


def _positive(value, name: str) -> int:
    value = check_count(value, name)
    if value == 0:
        raise ValueError(f"{name} must be a positive integer, got 0")
    return value


def stack_size(d_stream: int, *, d_model: int = 512, d_ff: int = 2048,
               encoder_layers: int = 6, decoder_layers: int = 6) -> StackSize:
    r"""The paper's layers, counted for a residual stream `d_stream` wide.

    Source: Vaswani et al. (2017), Sec. 3.1-3.3 (the base model: :math:`d_{\text{model}} = 512`,
    :math:`d_{ff} = 2048`, :math:`N = 6` layers in each stack, :math:`h \cdot d_k = d_{\text{model}}`).
    The stream is what the residual connections carry from layer to layer: :math:`d_{\text{model}}`
    wide when the encoding is added, :math:`d_{\text{model}} + d_{pos}` when a :math:`d_{pos}`-wide code
    is concatenated. The attention heads keep their width (:math:`h \cdot d_k = ` `d_model`), so the
    stream's width enters every matrix that reads or writes it:

    - each attention block: :math:`W^Q, W^K, W^V` (``d_stream x d_model``, with biases) and
      :math:`W^O` (``d_model x d_stream``, with bias); one block per encoder layer, two per decoder
      layer (self-attention and encoder-decoder attention);
    - each feed-forward block: ``d_stream x d_ff`` and ``d_ff x d_stream``, with biases;
    - each layer norm: a gain and a bias, ``d_stream`` each; two per encoder layer, three per
      decoder layer (post-norm, as in the paper).

    Embeddings and the output projection are not counted. Every weight of a matrix is used once per
    token, so `multiply_adds` is the number of matrix weights; the attention scores and weighted sums
    (per query, ``seq_len * d_model`` per block) do not depend on `d_stream` and are not counted.

    Parameters
    ----------
    d_stream : int
        Width of the residual stream; positive.
    d_model : int, default 512
        Width of the attention heads together, :math:`h \cdot d_k` (the paper's
        :math:`d_{\text{model}}`); positive.
    d_ff : int, default 2048
        Inner width of the feed-forward blocks; positive.
    encoder_layers, decoder_layers : int, default 6
        Layers in each stack; non-negative.

    Returns
    -------
    StackSize
        ``parameters`` (weights, biases, layer-norm gains and biases) and ``multiply_adds`` (per
        token, in the weight matrices), both int.

    Raises
    ------
    TypeError
        If an argument is not an integer.
    ValueError
        If a width is not positive or a number of layers is negative.

    Examples
    --------
    >>> stack_size(512)  # the base model's layers, the encoding added
    StackSize(parameters=44138496, multiply_adds=44040192)
    >>> round(stack_size(512 + 512).parameters / stack_size(512).parameters, 4)  # a 512-wide code concatenated
    1.9988
    """
    d_stream = _positive(d_stream, "d_stream")
    d_model, d_ff = _positive(d_model, "d_model"), _positive(d_ff, "d_ff")
    encoder_layers = check_count(encoder_layers, "encoder_layers")
    decoder_layers = check_count(decoder_layers, "decoder_layers")
    # W^Q, W^K, W^V read the stream, W^O writes to it; each with a bias
    attention_weights = 4 * d_stream * d_model
    attention = attention_weights + 3 * d_model + d_stream
    # the feed-forward block reads the stream and writes to it
    feed_forward_weights = 2 * d_stream * d_ff
    feed_forward = feed_forward_weights + d_ff + d_stream
    layer_norm = 2 * d_stream  # a gain and a bias
    encoder = attention + feed_forward + 2 * layer_norm
    decoder = 2 * attention + feed_forward + 3 * layer_norm
    parameters = encoder_layers * encoder + decoder_layers * decoder
    multiply_adds = (
        encoder_layers * (attention_weights + feed_forward_weights)
        + decoder_layers * (2 * attention_weights + feed_forward_weights))
    return StackSize(parameters, multiply_adds)


@dataclass(frozen=True)
class EncodingDirections:
    """The directions of the encoding's space, each with the share of a table's squared norm it holds.

    Made by :func:`encoding_directions`.

    Parameters
    ----------
    basis : ndarray, shape (d_model, d_model), dtype float64
        Orthonormal columns, the table's right singular vectors, in the order of `shares`.
    shares : ndarray, shape (d_model,), dtype float64
        Share of the table's squared (Frobenius) norm along each column of `basis`: non-increasing,
        summing to 1.

    Raises
    ------
    ValueError
        If `basis` is not square or `shares` does not give one share per column.

    Examples
    --------
    >>> directions = encoding_directions(np.arange(100), 8)
    >>> directions.basis.shape, directions.shares.shape
    ((8, 8), (8,))
    """

    basis: np.ndarray
    shares: np.ndarray

    def __post_init__(self):
        basis, shares = np.asarray(self.basis), np.asarray(self.shares)
        if basis.ndim != 2 or basis.shape[0] != basis.shape[1] or shares.shape != basis.shape[:1]:
            raise ValueError(f"basis must be (d_model, d_model) and shares (d_model,), got {basis.shape} "
                             f"and {shares.shape}")

    def count(self, energy: float) -> int:
        """The fewest directions, taken in order, that hold at least `energy` of the table's squared norm.

        Parameters
        ----------
        energy : float
            A share in (0, 1].

        Returns
        -------
        int
            The number ``k`` of leading columns of `basis` that hold `energy` (1 to ``d_model``).

        Raises
        ------
        ValueError
            If `energy` is not in (0, 1].

        Examples
        --------
        >>> directions = encoding_directions(np.arange(512), 512)
        >>> directions.count(0.99), directions.count(0.9)
        (109, 62)
        """
        if isinstance(energy, bool) or not isinstance(energy, numbers.Real) or not 0 < float(energy) <= 1:
            raise ValueError(f"energy must be a share in (0, 1], got {energy!r}")
        # The cumulative shares reach 1 only to rounding: the last direction counts as reaching it.
        reached = np.flatnonzero(np.cumsum(self.shares) >= float(energy) - 1e-12)
        return int(reached[0]) + 1 if reached.size else len(self.shares)


def encoding_directions(positions, d_model: int, *, base: float = 10_000.0) -> EncodingDirections:
    r"""The directions the encoding of `positions` uses, from the most to the least, with their shares.

    The table :math:`T` of the positions' encodings (Vaswani et al., 2017, Sec. 3.5; rows
    :math:`PE(p)`) is factored as :math:`T = U \Sigma V^\top`; the columns of :math:`V` are the
    directions, and :math:`\sigma_j^2 / \sum_l \sigma_l^2` is the share of the table's squared norm
    along direction :math:`j`. The first :math:`k` directions are the :math:`k`-dimensional subspace
    closest to every row at once (Eckart-Young). The table is not centred: what is added to a token is
    :math:`PE(p)` itself.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Finite positions, for example ``np.arange(max_len)``; at least one.
    d_model : int
        Encoding width; positive and even.
    base : float, default 10000.0
        The encoding's base.

    Returns
    -------
    EncodingDirections
        ``basis`` (``d_model x d_model``, orthonormal columns) and ``shares`` (``d_model``,
        non-increasing, summing to 1); ``count(energy)`` gives how many directions hold `energy`.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `positions` is not real.
    ValueError
        If `positions` is empty or not finite, `d_model` is not positive and even, or `base` is not
        above 1.

    Examples
    --------
    >>> directions = encoding_directions(np.arange(512), 64)
    >>> directions.basis.shape, round(float(directions.shares.sum()), 12)
    ((64, 64), 1.0)
    >>> directions.count(0.99)  # of 64 directions
    30
    """
    d_model = check_d_model(d_model)
    positions = check_positions(positions)
    if positions.size == 0:
        raise ValueError("positions must hold at least one position")
    table = sinusoidal_encoding(positions, d_model, base=check_base(base))
    _, singular_values, vt = np.linalg.svd(table, full_matrices=True)
    squares = np.zeros(d_model)
    squares[: singular_values.size] = singular_values**2  # fewer positions than d_model: the rest hold 0
    return EncodingDirections(basis=vt.T, shares=squares / squares.sum())


def energy_share(vectors, basis, *, cumulative: bool = False) -> np.ndarray:
    r"""The share of each vector's squared norm that lies in the span of `basis`.

    For a vector :math:`v` and orthonormal columns :math:`B`, :math:`\lVert B^\top v \rVert^2 /
    \lVert v \rVert^2`: the squared cosine of the angle between :math:`v` and the subspace (its one
    principal angle). A random direction in :math:`\mathbb{R}^d` has on average :math:`k / d` of its
    squared norm in a fixed :math:`k`-dimensional subspace.

    Parameters
    ----------
    vectors : array_like, shape (n, d) or (d,)
        Nonzero vectors, one per row.
    basis : array_like, shape (d, k)
        Orthonormal columns (for example the leading columns of :attr:`EncodingDirections.basis`).
    cumulative : bool, default False
        Return, for each vector, the share in the span of the first ``1, 2, ..., k`` columns.

    Returns
    -------
    ndarray, dtype float64
        Shape ``(n,)`` (or a float for one vector); with `cumulative`, shape ``(n, k)`` (or ``(k,)``),
        non-decreasing along the last axis. Values in [0, 1].

    Raises
    ------
    TypeError
        If `vectors` or `basis` does not hold real numbers.
    ValueError
        If the shapes do not fit, a vector is zero or not finite, or the columns of `basis` are not
        orthonormal (to 1e-8).

    Examples
    --------
    >>> basis = np.eye(4)[:, :2]  # the first two coordinates
    >>> energy_share([[3.0, 4.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0]], basis)
    array([1. , 0.5])
    >>> energy_share([1.0, 1.0, 1.0, 1.0], basis, cumulative=True)
    array([0.25, 0.5 ])
    """
    vectors, basis = check_real_array(vectors, "vectors"), check_real_array(basis, "basis")
    one = vectors.ndim == 1
    vectors = np.atleast_2d(vectors)
    if vectors.ndim != 2 or basis.ndim != 2 or vectors.shape[1] != basis.shape[0] or basis.shape[1] == 0:
        raise ValueError(f"vectors must have shape (n, d) and basis (d, k) with k >= 1, got {vectors.shape} "
                         f"and {basis.shape}")
    if not (np.all(np.isfinite(vectors)) and np.all(np.isfinite(basis))):
        raise ValueError("vectors and basis must be finite")
    if not np.allclose(basis.T @ basis, np.eye(basis.shape[1]), rtol=0, atol=1e-8):
        raise ValueError("the columns of basis must be orthonormal (basis.T @ basis = I, to 1e-8)")
    squared_norms = np.einsum("nd,nd->n", vectors, vectors)
    if np.any(squared_norms == 0):
        raise ValueError("every vector must be nonzero: a zero vector has no direction")
    parts = (vectors @ basis) ** 2
    shares = (np.cumsum(parts, axis=1) if cumulative else parts.sum(axis=1)) / (
        squared_norms[:, None] if cumulative else squared_norms)
    shares = np.clip(shares, 0.0, 1.0)  # a share above 1 is rounding
    return shares[0] if one else shares


def embedding_like_vectors(n: int, d_model: int, *, seed: int = 0, decay: float = 1.0,
                           shared: float = 1.0) -> np.ndarray:
    r"""Content vectors with the anisotropy of trained embeddings: a shared direction and a falling spectrum.

    Trained word vectors are not spread evenly over their space: they share a common direction
    (Mimno and Thompson, 2017, for skip-gram), and their variance falls off across directions. Each
    vector drawn here is :math:`c + \sum_j z_j \sqrt{\lambda_j}\, q_j` with :math:`z_j` standard
    normal, :math:`\lambda_j \propto j^{-\text{decay}}` scaled so that the :math:`\lambda_j` sum to
    `d_model`, :math:`q_j` a random orthonormal basis, and :math:`c` a random direction of norm
    ``shared * sqrt(d_model)`` common to all vectors. With ``decay=0`` and ``shared=0`` they are
    isotropic Gaussian vectors, entries of variance 1.

    Parameters
    ----------
    n : int
        Number of vectors; positive.
    d_model : int
        Their width; positive.
    seed : int, default 0
        Seed of ``np.random.default_rng`` (the basis, the shared direction and the vectors).
    decay : float, default 1.0
        Exponent of the spectrum's fall; non-negative.
    shared : float, default 1.0
        Norm of the shared direction, over ``sqrt(d_model)``; non-negative.

    Returns
    -------
    ndarray, shape (n, d_model), dtype float64
        One vector per row.

    Raises
    ------
    TypeError
        If `n`, `d_model` or `seed` is not an integer.
    ValueError
        If `n` or `d_model` is not positive, or `decay` or `shared` is negative or not finite.

    Examples
    --------
    >>> vectors = embedding_like_vectors(1000, 64, seed=0)
    >>> vectors.shape
    (1000, 64)
    >>> mean = vectors.mean(axis=0)  # the shared direction, of norm sqrt(64) = 8
    >>> bool(7 < np.linalg.norm(mean) < 9)
    True
    """
    n, d_model = _positive(n, "n"), _positive(d_model, "d_model")
    seed = check_count(seed, "seed")
    for value, name in [(decay, "decay"), (shared, "shared")]:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) < np.inf:
            raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.normal(size=(d_model, d_model)))
    spectrum = np.arange(1, d_model + 1, dtype=np.float64) ** -float(decay)
    spectrum *= d_model / spectrum.sum()
    common = rng.normal(size=d_model)
    common *= float(shared) * np.sqrt(d_model) / np.linalg.norm(common)
    return common + (rng.normal(size=(n, d_model)) * np.sqrt(spectrum)) @ basis.T
