"""What a reader is told: the verdict on an answer, and the hints, one more at each call.

The hints given so far are counted per exercise for as long as the Python session lives (a
notebook's kernel); :func:`reset_hints` starts over.
"""

from __future__ import annotations

import textwrap
from typing import Any

from .answers import Refused
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


def verdict(label: str, answer: Any) -> bool:
    """Judge `answer`, print what the reader needs, and return whether it is right."""
    found = find_exercise(label)
    if answer is Ellipsis:
        say(unanswered_message(label))
        return False
    candidates = found.parts_for(answer)
    if not candidates:
        say(f"{label}: not checked. This exercise takes {found.takes()}; you gave "
            f"{type(answer).__name__} {_short(answer)}.")
        return False
    refusals = []
    for part in candidates:
        try:
            value = part.kind.coerce(answer)
            break
        except Refused as refused:
            refusals.append(str(refused))
    else:
        say(f"{label}: not checked. {refusals[0]}")
        return False
    tolerance = f"(checked {part.kind.tolerance()})"
    if part.kind.matches(value, part.expected):
        say(f"{label}: right, {part.kind.show(part.expected)} {tolerance}.", part.reason)
        return True
    for mistake in part.mistakes:
        if part.kind.matches(value, mistake.value):
            say(f"{label}: not yet. That is {mistake.name}.", mistake.advice)
            return False
    _hints_given[label] = max(_hints_given.get(label, 0), 1)
    say(f"{label}: not yet {tolerance}.", numbered_hint(label, 0))
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


def _short(answer: Any) -> str:
    text = repr(answer)
    return f"({text})" if len(text) <= 40 else ""
