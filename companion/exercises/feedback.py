"""What a reader is told: the verdict on an answer, and the hints, one more at each call.

The hints given so far are counted per exercise for as long as the Python session lives (a
notebook's kernel); :func:`reset_hints` starts over.
"""

from __future__ import annotations

import textwrap
from typing import Any

from .answers import Refused, parses_as_number
from .registry import exercise as find_exercise

#: Messages are wrapped to the width of a notebook's output column.
WIDTH = 88

_hints_given: dict[str, int] = {}


def say(*paragraphs: str) -> None:
    """Print each paragraph wrapped to the output column, blank-line separated."""
    print("\n".join(textwrap.fill(text, WIDTH, break_on_hyphens=False) for text in paragraphs if text))


def unanswered_message(label: str) -> str:
    """The fixed message of a check whose answer is still ``...`` (what a committed chapter shows)."""
    found = find_exercise(label)
    return (f"{label}: no answer yet. Write {found.takes(detailed=False)} in place of the ..., then run "
            f"the cell again; hint(\"{label}\") gives a hint.")


def numbered_hint(label: str, index: int) -> str:
    hints = find_exercise(label).hints
    number = index % len(hints)
    last = " (the last one; the solution is one click away, below the exercise)" if number == len(hints) - 1 else ""
    return f"Hint {number + 1} of {len(hints)}{last}: {hints[number]}"


FLOAT32_ADVICE = ("Compute in float64: torch makes float32 tensors unless told otherwise (torch.tensor(x, "
                  "dtype=torch.float64), torch.zeros(..., dtype=torch.float64)), and numpy keeps float32 "
                  "arrays float32.")


def verdict(label: str, answer: Any) -> bool:
    """Judge `answer`, print what the reader needs, and return whether it is right.

    A wrong answer is explained by the first that applies: a recognised mistake; a shape other than
    the expected one; the right answer to float32 rounding only; the right answer to fewer digits than
    asked; a recognised mistake computed in float32; else the hint that fits the part answered.
    """
    found = find_exercise(label)
    if answer is Ellipsis:
        say(unanswered_message(label))
        return False
    candidates = found.parts_for(answer)
    if not candidates:
        say(f"{label}: not checked. This exercise takes {found.takes()}; you gave {_described(answer)}.")
        return False
    refusals = []
    for part in candidates:
        try:
            value = part.kind.coerce(answer)
            break
        except Refused as refused:
            refusals.append((part, str(refused)))
    else:
        say(f"{label}: not checked. {_most_fitting(refusals, answer)}")
        return False
    kind, tolerance = part.kind, f"(checked {part.kind.tolerance()})"
    if kind.matches(value, part.expected):
        say(f"{label}: right, {kind.show(part.expected)} {tolerance}.", part.reason)
        return True
    for mistake in part.mistakes:
        if kind.matches(value, mistake.value):
            say(f"{label}: not yet. That is {mistake.name}.", mistake.advice)
            return False
    problem = kind.shape_problem(value, part.expected)
    if problem:
        say(f"{label}: not yet: {problem}")
        return False
    if kind.float32_close(value, part.expected):
        say(f"{label}: not yet. That is the right answer computed in float32: it agrees to float32 "
            f"rounding, but not {kind.tolerance()}.", FLOAT32_ADVICE)
        return False
    if kind.close(value, part.expected):
        say(f"{label}: not yet, but close. That is the right answer rounded too coarsely: "
            f"{kind.near_tolerance()}, but not {kind.tolerance()}.",
            "Keep more digits (three decimals at least), or compute it.")
        return False
    for mistake in part.mistakes:
        if kind.float32_close(value, mistake.value):
            say(f"{label}: not yet. That is {mistake.name}, computed in float32.", mistake.advice)
            return False
    _hints_given[label] = max(_hints_given.get(label, 0), part.first_hint + 1)
    say(f"{label}: not yet {tolerance}.", numbered_hint(label, part.first_hint))
    return False


def next_hint(label: str) -> None:
    """Print the exercise's next hint (after the last, the first again)."""
    find_exercise(label)
    index = _hints_given.get(label, 0)
    _hints_given[label] = index + 1
    say(f"{label}: {numbered_hint(label, index)}")


def reset_hints() -> None:
    """Forget which hints were given (a new reader, or a test)."""
    _hints_given.clear()


def _described(answer: Any) -> str:
    """What the reader gave, for a refusal: its type, and its value if short, else its length or shape."""
    text = repr(answer)
    if len(text) <= 40:
        return f"{type(answer).__name__} ({text})"
    shape = getattr(answer, "shape", None)
    if shape is not None:
        return f"{type(answer).__name__} of shape {tuple(shape)}"
    if hasattr(answer, "__len__"):
        try:
            return f"{type(answer).__name__} of length {len(answer)}"
        except Exception:  # a reader's object whose __len__ fails: its type is enough
            pass
    return type(answer).__name__


def _most_fitting(refusals: list[tuple[Any, str]], answer: Any) -> str:
    """The refusal to show: a number part's for a number written in quotes ("Write it without quotes")."""
    if isinstance(answer, str) and parses_as_number(answer):
        for part, message in refusals:
            if part.kind.family == "number":
                return message
    return refusals[0][1]
