"""Exercises that answer back: check a chapter exercise's answer, ask for a hint.

Each chapter's exercises carry a label (``ex-column-loop``); after an exercise the chapter has a
cell ``answer = ...`` and ``check("ex-column-loop", answer)``. The expected answers, and the
known wrong ones (the doubled exponent, the transposed rotation, degrees for radians, …), are
computed by the companion on first use, never typed in. Only numpy is needed, as for
``import companion``; torch tensors are accepted as answers without importing torch.

>>> from companion.exercises import check, hint
>>> check("ex-first-return", 22)
ex-first-return: right, 22 (checked exactly).
22 is just above 7 pi (22/7 is the schoolbook value of pi): sin(22) = -0.0089.
True
"""

from __future__ import annotations

from typing import Any

from . import feedback
from .registry import UnknownExercise, all_exercises

__all__ = ["UnknownExercise", "check", "exercises", "hint"]


def check(exercise: str, answer: Any) -> bool:
    """Check an answer to one of the book's exercises, print the verdict, and say whether it is right.

    A right answer is told so, with the one-line reason. A wrong answer that is a known mistake
    (the doubled exponent, a column index for a pair index, degrees for radians, a transposed
    rotation, float32 angles, off by one position, …) is named, with what to look at again. An
    array of another shape is told its shape and the expected one. An answer right only to float32
    rounding, where the exercise's tolerance is tighter (a float32 array or tensor, say), is told it
    was computed in float32; a prediction right only to fewer digits than asked, that it is rounded
    too coarsely. Any other wrong answer gets the exercise's hint that fits the part answered (its
    first hint for the first part); :func:`hint` gives the next ones. The expected answer and the
    known mistakes are computed by the companion.

    Parameters
    ----------
    exercise : str
        The exercise's label in its chapter, such as ``"ex-column-loop"`` (the ``:label:`` under
        the exercise's title).
    answer : object
        What the exercise asks for, as a reader would write it: a real number (int, float, numpy
        scalar, 0-d array or tensor); a list, tuple, numpy array or torch tensor of real numbers,
        of the shape asked (complex entries only where eigenvalues are asked: their angles are
        compared); a function (called on a few arguments, its results compared); a choice, as a
        string (``"no"``, or True/False for a yes-or-no question); or a tuple of these where the
        exercise asks for several answers. The unanswered placeholder ``...`` prints the fixed
        message of an unanswered exercise. Numbers are compared within the tolerance the verdict
        states (exactly for whole numbers and choices); angles up to whole turns, written in
        (-pi, pi] or in [0, 2 pi).

    Returns
    -------
    bool
        True if the answer is right; False if it is wrong, unanswered (``...``) or of the wrong
        kind (a string where a number is asked, complex entries where real ones are, a function
        that raises, …), each with its message printed, never a traceback or a warning from
        inside the package (a reader's function may still warn).

    Raises
    ------
    UnknownExercise
        If `exercise` is not the label of a checkable exercise; the message suggests the nearest
        labels. In Jupyter it shows as its message alone, without a traceback.

    See Also
    --------
    hint : the exercise's next hint.

    Examples
    --------
    >>> from companion.exercises import check
    >>> check("ex-first-return", ...)
    ex-first-return: no answer yet. Write a whole number or 'yes' or 'no' in place of the
    ..., then run the cell again; hint("ex-first-return") gives a hint.
    False
    >>> check("ex-first-return", 3)
    ex-first-return: not yet. That is the first position near a multiple of pi, but not
    within 0.01.
    sin(3) = 0.14: close to 0, not within 0.01. Which multiples of pi come within 0.01 of an
    integer?
    False
    >>> check("ex-first-return", "22")
    ex-first-return: not checked. This exercise takes a position (a whole number), not the
    string '22'. Write it without quotes.
    False
    >>> check("ex-first-return", 22)
    ex-first-return: right, 22 (checked exactly).
    22 is just above 7 pi (22/7 is the schoolbook value of pi): sin(22) = -0.0089.
    True
    >>> import numpy as np
    >>> check("ex-decoding-without-offset", np.zeros((1, 5, 16)))
    ex-decoding-without-offset: not yet: expected an array of shape (5, 16), got (1, 5, 16).
    Only axes of size 1 differ: [0] or .squeeze() drops them.
    False
    """
    return feedback.verdict(exercise, answer)


def hint(exercise: str) -> None:
    """Print the exercise's next hint: the first at the first call, then the next at each call, then round again.

    A wrong answer that :func:`check` does not recognise shows the hint that fits the part answered
    already (the first hint, or a later one for a later part), so the next call of `hint` gives the
    one after it. Hints are counted per exercise for the Python session (a notebook's kernel).

    Parameters
    ----------
    exercise : str
        The exercise's label in its chapter, such as ``"ex-column-loop"``.

    Returns
    -------
    None
        The hint is printed, numbered ("Hint 2 of 3: …"); the last one says that the solution is
        below the exercise.

    Raises
    ------
    UnknownExercise
        If `exercise` is not the label of a checkable exercise (shown in Jupyter as its message
        alone).

    See Also
    --------
    check : check an answer.

    Examples
    --------
    >>> from companion.exercises import hint
    >>> from companion.exercises.feedback import reset_hints
    >>> reset_hints()  # as in a new session
    >>> hint("ex-first-return")
    ex-first-return: Hint 1 of 3: sin(pos) is near 0 when pos is near a multiple of pi: pi, 2
    pi, 3 pi, ...
    >>> hint("ex-first-return")
    ex-first-return: Hint 2 of 3: Which multiple of pi comes within about 0.01 of an integer?
    Try 22 / 7.
    """
    feedback.next_hint(exercise)


def exercises() -> list[str]:
    """The labels of the checkable exercises, in the book's order.

    Returns
    -------
    list of str
        Labels such as ``"ex-column-loop"``, as in the chapters.

    Raises
    ------
    ImportError
        Only if a chapter's exercises cannot be imported (they need numpy alone).

    Examples
    --------
    >>> "ex-column-loop" in exercises()
    True
    """
    return list(all_exercises())
