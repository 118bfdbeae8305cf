"""The book's checkable exercises, by the label each has in its chapter (``ex-column-loop``, …).

An exercise has one or more parts, each taking one kind of answer (a number, a choice, an array, a
function, a tuple of these); :func:`~companion.exercises.check` picks the part by the kind of
answer given. Each part knows how to compute its expected answer with the companion, the one-line
reason it is right, and the mistakes it recognises, each computed too (the table with the doubled
exponent, the rotation transposed, …) with what to look at again. Values are computed on first use
and kept. The exercise's hints are one list, which :func:`~companion.exercises.hint` goes through;
each part names the hint that fits it first.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: how to compute it, its name, and what to look at again."""

    name: str
    compute: Callable[[], Any]
    advice: str

    @functools.cached_property
    def value(self) -> Any:
        return self.compute()


@dataclass(frozen=True)
class Part:
    """One question of an exercise, answered with one kind of answer."""

    asks: str  # what the reader gives, in a few words: "the exponent x of column 7"
    kind: Any  # a kind from companion.exercises.answers
    compute: Callable[[], Any]  # the expected answer, computed by the companion
    reason: str  # why it is right, in one line
    mistakes: tuple[Mistake, ...] = ()
    first_hint: int = 0  # the exercise's hint that fits this part first (its index), shown with a wrong answer

    @functools.cached_property
    def expected(self) -> Any:
        return self.compute()


@dataclass(frozen=True)
class Exercise:
    """A checkable exercise: its label in the chapter, the chapter's notebook, its parts and hints."""

    label: str
    chapter: str  # the notebook's stem, "02_loop_version"
    parts: tuple[Part, ...]
    hints: tuple[str, ...] = field(default=())

    def parts_for(self, answer: Any) -> list[Part]:
        """The parts that take an answer of this kind, in order (usually one, or none)."""
        return [part for part in self.parts if part.kind.accepts(answer)]

    def takes(self, detailed: bool = True) -> str:
        """What the exercise takes, for messages: "a number (…) or a function (…)", or briefly "a number or a function"."""
        if not detailed:
            return " or ".join(part.kind.brief for part in self.parts)
        return "; or ".join(f"{part.kind.brief} ({part.asks})" for part in self.parts)


_EXERCISES: dict[str, Exercise] = {}


class UnknownExercise(LookupError):
    """No checkable exercise has this label. In Jupyter it shows as its message alone, without a traceback.

    Examples
    --------
    >>> from companion.exercises import check
    >>> check("ex-colum-loop", 3)
    Traceback (most recent call last):
    ...
    companion.exercises.registry.UnknownExercise: no checkable exercise is labelled 'ex-colum-loop'; did you mean 'ex-column-loop'?
    """

    def _render_traceback_(self) -> list[str]:  # IPython calls this instead of printing the traceback
        return [f"{type(self).__name__}: {self}"]


def register(*exercises: Exercise) -> None:
    for exercise in exercises:
        if exercise.label in _EXERCISES:
            raise ValueError(f"exercise {exercise.label!r} is registered twice")
        families = [part.kind.family for part in exercise.parts]
        if len(set(families)) != len(families):
            raise ValueError(f"exercise {exercise.label!r} has two parts that take the same kind of answer")
        if any(not 0 <= part.first_hint < len(exercise.hints) for part in exercise.parts):
            raise ValueError(f"exercise {exercise.label!r} has a part whose first hint is not one of its hints")
        _EXERCISES[exercise.label] = exercise


def exercise(label: Any) -> Exercise:
    """The exercise with this label; an :class:`UnknownExercise` that suggests the nearest labels otherwise."""
    if not isinstance(label, str):
        raise UnknownExercise(f"an exercise is named by its label, a string such as 'ex-column-loop', "
                              f"not {type(label).__name__} {label!r}")
    from . import chapters  # noqa: F401  (registers every chapter's exercises)

    found = _EXERCISES.get(label.strip())
    if found is None:
        close = difflib.get_close_matches(label.strip(), _EXERCISES, n=3, cutoff=0.6)
        suggestion = f"; did you mean {' or '.join(map(repr, close))}?" if close else (
            "; the label is the one under the exercise's title in the chapter (':label: ex-…')")
        raise UnknownExercise(f"no checkable exercise is labelled {label!r}{suggestion}")
    return found


def all_exercises() -> dict[str, Exercise]:
    """Every checkable exercise, by label, in the book's order."""
    from . import chapters  # noqa: F401

    return dict(_EXERCISES)
