"""The exercises of the chapter *The encoding at work* (notebooks/06_attention_and_a_trained_model.ipynb)."""

from __future__ import annotations

import numpy as np

from ..analysis.equivariance import self_attention
from ..transformer.attention import attention_weights, best_mix_margin
from .answers import Choice, Number, Several
from .registry import Exercise, Mistake, Part, register

CHAPTER = "06_attention_and_a_trained_model"
YES_NO = Choice(("yes", "no"), aliases=((True, "yes"), (False, "no")), what="'yes' or 'no'")
MIX = ("yes", "barely", "no")
#: alibi_slopes(4) of companion.transformer.positions (Press et al., 2022), without importing torch
ALIBI_SLOPES = tuple(2.0 ** (-8.0 * (head + 1) / 4) for head in range(4))
def _most_weighted(slope: float, query: int = 7) -> int:
    distances = np.subtract.outer(np.arange(query + 1), np.arange(query + 1))
    return int(np.argmax(attention_weights(-slope * distances, causal=True)[query]))


def _one_head_prefers_two_back() -> str:
    return "yes" if any(_most_weighted(m) == 5 for m in (0.01, 0.1, 1.0)) else "no"


def _mix_prefers_two_back(query: int = 15) -> str:
    """The chapter's four ALiBi heads at the last query of a training sequence: 'barely' below a margin of 0.05."""
    distances = np.subtract.outer(np.arange(query + 1), np.arange(query + 1))
    profiles = np.stack([attention_weights(-slope * distances, causal=True)[query, ::-1]
                         for slope in ALIBI_SLOPES])
    margin = best_mix_margin(profiles, 2).margin
    return "no" if margin <= 0 else "barely" if margin < 0.05 else "yes"


ALIBI_RECENCY = Exercise(
    "ex-alibi-recency", CHAPTER,
    parts=(
        Part("for a query at p = 7, the position that gets the most weight",
             Number("a position", integer=True), lambda: _most_weighted(0.5),
             "The weights are proportional to e^(-m (p - s)): largest at s = p, for any slope m > 0; so "
             "p - 2 never gets more than p - 1.",
             (Mistake("the slope's sign reversed", lambda: _most_weighted(-0.5),
                      "ALiBi subtracts m (p - s) from the score: farther keys get less, not more."),
              Mistake("the token before the query", lambda: _most_weighted(0.5) - 1,
                      "A causal head sees position p itself, and the bias there is 0, the largest."))),
        Part("(can one such head ever prefer p - 2?, can a mix of the four heads?), each 'yes', 'barely' or 'no'",
             Several((Choice(MIX, aliases=((True, "yes"), (False, "no")), what="'yes', 'barely' or 'no'"),) * 2,
                     ("one head", "a mix of the four")),
             lambda: (_one_head_prefers_two_back(), _mix_prefers_two_back()),
             "One head: with equal contents only the bias counts, and it decreases with the distance. A mix: "
             "the best one (a linear program) puts only 0.014 more on offset 2 than on any other, against 0.99 "
             "for the head built from R(2).",
             (Mistake("content and bias mixed up", lambda: ("yes", _mix_prefers_two_back()),
                      "With keys of the same content, the scores differ only by -m (p - s)."),
              Mistake("one head's answer carried over to the mix", lambda: ("no", "no"),
                      "A later layer can subtract one head's weights from another's: their difference can "
                      "favour offset 2. Compute attention.best_mix_margin(profiles, 2)."),
              Mistake("the margin taken for a head that copies", lambda: ("no", "yes"),
                      "The best mix beats every other offset by about 0.014 of its weight: a head that "
                      "copies, like the one built from R(2), does by 0.99.")),
             first_hint=2),
    ),
    hints=(
        "With equal contents the score of key s is -m (p - s): which s maximises it?",
        "The softmax is monotonic in the score.",
        "attention.attention_weights(-m * distances, causal=True) computes the weights; "
        "attention.best_mix_margin(profiles, 2) finds the best mix.",
    ),
)


NOPE_OPTIONS = ("yes", "no", "only with more layers")


def _reads_position() -> str:
    """Two stacked heads without positions or mask, on six identical tokens: do the outputs differ by position?"""
    rng = np.random.default_rng(0)
    x = np.repeat(rng.normal(size=(1, 8)), 6, axis=0)  # six identical tokens, no positions
    for _ in range(2):
        x = x + self_attention(x, *rng.normal(size=(3, 8, 8)))
    return "no" if np.allclose(x, x[0], rtol=0, atol=1e-12) else "yes"


NOPE_ENCODER = Exercise(
    "ex-nope-encoder", CHAPTER,
    parts=(
        Part("can a model without positions and without a causal mask read off a token's position?",
             Choice(NOPE_OPTIONS, aliases=((True, "yes"), (False, "no")),
                    what="one of " + ", ".join(map(repr, NOPE_OPTIONS))),
             _reads_position,
             "In a sequence of identical tokens, swapping two positions changes nothing, so by "
             "equivariance their outputs are equal, whatever the model computes.",
             (Mistake("the causal head's trick carried over", lambda: "yes",
                      "The causal head reads 1/(p + 1) from how many keys it sees; without a mask every "
                      "query sees them all."),
              Mistake("a guess that depth helps", lambda: "only with more layers",
                      "Each layer is permutation-equivariant, and so is a stack of them: the argument "
                      "holds for the whole model."))),
    ),
    hints=(
        "Take a sequence of identical tokens and a permutation that swaps two of them.",
        "The input is unchanged by the swap; by equivariance the output is the swapped output.",
        "So the two outputs are equal: no position can be read off.",
    ),
)

#: The tokens that carry the value 1 in ex-causal-count (the others carry 0), among 8.
MARKED = (0, 2)


def _marked_read(query: int, *, causal: bool = True, own: bool = True, marked=MARKED, tokens: int = 8) -> float:
    """What a uniform head reads at `query` when the tokens `marked` carry 1; `own=False` leaves the query out."""
    values = np.isin(np.arange(tokens), marked).astype(float)
    if not own:  # the mistake: the query does not count itself
        return float(values[:query].mean())
    return float(attention_weights(np.zeros((tokens, tokens)), causal=causal)[query] @ values)


CAUSAL_COUNT = Exercise(
    "ex-causal-count", CHAPTER,
    parts=(
        Part("over 8 tokens, positions 0 and 2 carrying 1, (the value the query at position 3 reads, "
             "the value the query at position 7 reads), with the mask",
             Several((Number("a weight", atol=1e-9),) * 2, ("position 3", "position 7")),
             lambda: (_marked_read(3), _marked_read(7)),
             "Position 3 sees the 4 keys 0 to 3 with equal weights, two of them carrying 1: 2/4; position "
             "7 sees 8: 2/8. The head reads (number of marked tokens seen)/(p + 1).",
             (Mistake("the query left out of its own keys", lambda: (_marked_read(3, own=False), _marked_read(7, own=False)),
                      "A causal query sees the keys 0 to p, itself included: p + 1 of them."),
              Mistake("only the first marked token counted", lambda: (_marked_read(3, marked=(0,)), _marked_read(7, marked=(0,))),
                      "Position 2 carries 1 too, and both queries see it: two of the keys carry 1."),
              Mistake("the mask forgotten", lambda: (_marked_read(3, causal=False), _marked_read(7, causal=False)),
                      "With the mask the query at position 3 sees only the keys 0 to 3, not all 8."))),
    ),
    hints=(
        "Equal scores give equal weights: each key seen gets 1 over the number of keys seen.",
        "How many keys does the query at position 3 see with the causal mask, and how many of them carry 1?",
        "values = np.isin(np.arange(8), [0, 2]); attention.attention_weights(np.zeros((8, 8)), causal=True) "
        "@ values gives every position's value.",
    ),
)

register(CAUSAL_COUNT, ALIBI_RECENCY, NOPE_ENCODER)
