"""Every chapter's exercises, registered in the book's order when this module is imported."""

from . import (  # noqa: F401
    why_positions,
    loop_version,
    vectorized_version,
    word2vec_black_brown,
    linearity_proof,
    attention_and_a_trained_model,
    reading_the_encoding,
    precision_and_speed,
    experiment_reports,
)
