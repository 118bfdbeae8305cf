"""The kinds of answer an exercise takes: how a reader's answer is read, compared, and refused.

A kind turns what a reader writes (a number, a list, a numpy array, a torch tensor, a function, a
choice) into a plain value, compares it with the expected one within a stated tolerance, and
refuses an answer of the wrong kind with a message that says what to write instead. A wrong answer
of the right kind can be diagnosed further: an array of another shape, an answer right only to
float32 rounding where the tolerance is tighter, or one right only to fewer digits than asked. Nothing
here imports torch: a tensor is recognised by its type's module and read through its own methods.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


class Refused(Exception):
    """The answer is not of the kind the exercise takes; the message says what to write instead."""


#: float32's machine epsilon, 2^-23: a tolerance below eps * scale is tighter than float32 can meet.
FLOAT32_EPS = float(np.finfo(np.float32).eps)
#: How far an answer computed in float32 may stray, relative to its scale: some dozens of roundings.
#: A table or matrix computed with float32 tensors is off by up to about 2e-6; a cast, by 3e-8.
FLOAT32_BAND = 64 * FLOAT32_EPS


class Kind:
    """What every kind of answer can say of a wrong answer beyond "not yet": by default, nothing more."""

    def shape_problem(self, value: Any, expected: Any) -> str | None:
        """Why `value` cannot be `expected` whatever its entries (a shape), in words; None if the shapes agree."""
        return None

    def float32_close(self, value: Any, expected: Any) -> bool:
        """True if `value` misses `expected` only by float32 rounding, where the tolerance is tighter than that."""
        return False

    def close(self, value: Any, expected: Any) -> bool:
        """True if `value` is within the looser band ``near`` of `expected`: right, to fewer digits than asked."""
        return False

    def near_tolerance(self) -> str:
        """The band ``near`` in words ("within 0.01"), for the message of an answer rounded too coarsely."""
        return ""


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach")


def _as_array(value: Any, what: str) -> np.ndarray:
    """A float64 (or complex128) array from numbers, a sequence of them, a numpy array or a torch tensor."""
    if _is_tensor(value):
        value = value.detach().cpu()
        value = value.resolve_conj().numpy() if value.is_complex() else value.double().numpy()
    if isinstance(value, (str, bytes)) or callable(value) or isinstance(value, dict):
        raise Refused(f"{what}, not {_name(value)}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged lists and the like
        raise Refused(f"{what}; could not read {_name(value)} as one: {error}") from None
    if array.dtype == bool or array.dtype.kind not in "iufc":
        raise Refused(f"{what}, not {_name(value)} of {array.dtype}")
    array = array.astype(np.complex128 if array.dtype.kind == "c" else np.float64)
    if not np.all(np.isfinite(array)):
        raise Refused(f"{what} with finite entries; yours holds nan or inf")
    return array


def _name(value: Any) -> str:
    """How a message names what the reader gave: its type, and the value if it is short."""
    kind = type(value).__name__
    text = repr(value)
    return f"a {kind} ({text})" if len(text) <= 40 else f"a {kind}"


def _number_format(value: float) -> str:
    return f"{value:.6g}"


def _tolerance_format(value: float) -> str:
    """A tolerance as a reader writes it: 0.002, 1e-9 (not 1e-09)."""
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), f"{value:g}")


def _relative(rtol: float) -> str:
    """A relative tolerance in words: "1% of the expected value" from 0.1% up, "1e-9 relative" below."""
    return f"{rtol * 100:g}% of the expected value" if rtol >= 1e-3 else f"{_tolerance_format(rtol)} relative"


@dataclass(frozen=True)
class Number(Kind):
    """A real number, right within ``atol`` or within ``rtol`` of the expected value.

    ``integer=True`` takes a whole number and compares it exactly. ``what`` names the number in
    messages ("a position", "a similarity"). ``near``, looser than the tolerance, is where an answer
    counts as right to fewer digits than asked (a hand prediction rounded too coarsely).
    """

    what: str = "a number"
    atol: float = 0.0
    rtol: float = 0.0
    integer: bool = False
    canonical: Callable[[float], float] | None = None  # another way of writing the same answer, mapped to ours
    near: float = 0.0
    family: str = "number"

    @property
    def brief(self) -> str:
        return "a whole number" if self.integer else "a number"

    def accepts(self, answer: Any) -> bool:
        return _scalar_like(answer)

    def coerce(self, answer: Any) -> float:
        kind = f"{self.what} ({'a whole number' if self.integer else 'a number'})"
        if isinstance(answer, (bool, np.bool_)):
            raise Refused(f"This exercise takes {kind}, not True or False.")
        if isinstance(answer, str):
            hint = " Write it without quotes." if parses_as_number(answer) else ""
            raise Refused(f"This exercise takes {kind}, not the string {answer!r}.{hint}")
        try:
            array = _as_array(answer, f"This exercise takes {kind}")
        except Refused as refused:
            raise Refused(str(refused) + ".") from None
        if array.dtype.kind == "c":
            raise Refused(f"This exercise takes {kind}, a real one, not {_name(answer)}.")
        if array.size != 1:
            raise Refused(f"This exercise takes {kind}, one value, not {array.size} values (shape {array.shape}).")
        value = float(array.reshape(()))
        if self.canonical is not None:
            value = self.canonical(value)
        if self.integer and value != round(value):
            raise Refused(f"This exercise takes {kind}, and {_number_format(value)} is not whole.")
        return value

    def _bound(self, expected: float) -> float:
        return max(self.atol, self.rtol * abs(expected))

    def matches(self, value: float, expected: Any) -> bool:
        expected = float(expected)
        if self.integer:
            return value == round(expected)
        return abs(value - expected) <= self._bound(expected)

    def float32_close(self, value: float, expected: Any) -> bool:
        expected = float(expected)
        scale = max(abs(expected), 1.0)
        if self.integer or self._bound(expected) >= FLOAT32_EPS * scale:  # float32 answers pass already
            return False
        return abs(value - expected) <= FLOAT32_BAND * scale

    def close(self, value: float, expected: Any) -> bool:
        return self.near > 0 and not self.integer and abs(value - float(expected)) <= self.near

    def near_tolerance(self) -> str:
        return f"within {_tolerance_format(self.near)}"

    def tolerance(self) -> str:
        if self.integer or (self.atol == 0 and self.rtol == 0):
            return "exactly"
        if self.rtol:
            return f"to within {_relative(self.rtol)}"
        return f"to within {_tolerance_format(self.atol)}"

    def show(self, value: Any) -> str:
        return str(int(round(float(value)))) if self.integer else _number_format(float(value))


def _scalar_like(answer: Any) -> bool:
    if isinstance(answer, str):
        return parses_as_number(answer)
    if isinstance(answer, (numbers.Number, np.number, np.bool_)):
        return True
    if isinstance(answer, np.ndarray) or _is_tensor(answer):
        return answer.ndim == 0 or (answer.ndim == 1 and answer.shape[0] == 1)
    return False


def parses_as_number(text: str) -> bool:
    try:
        float(text.replace("_", ""))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Array(Kind):
    """An array of real numbers (list, tuple, numpy array or torch tensor), right entry by entry within ``atol``.

    ``unordered=True`` compares the sorted entries (eigenvalues, say). ``angles=True`` reads the
    entries as angles in radians, complex entries as their angles (eigenvalues given for their
    angles), and compares them up to whole turns when both sides are written within one turn, in
    (-pi, pi] or in [0, 2 pi): an angle beyond, such as 7, is compared as written, so that "angles not
    wrapped to a turn" stays a recognisable mistake. Other arrays take real entries only. Shapes must
    agree; a different shape is a wrong answer, which a recognised mistake may explain, or else
    :meth:`shape_problem` describes. ``near``, looser than ``atol``, is where an answer counts as right
    to fewer digits than asked.
    """

    what: str = "an array"
    atol: float = 1e-9
    rtol: float = 0.0
    unordered: bool = False
    angles: bool = False
    near: float = 0.0
    family: str = "array"

    brief = "an array"

    def accepts(self, answer: Any) -> bool:
        if isinstance(answer, (list, tuple)):
            return len(answer) > 1 or (len(answer) == 1 and not isinstance(answer[0], str))
        if isinstance(answer, np.ndarray) or _is_tensor(answer):
            return answer.ndim >= 1 and not (answer.ndim == 1 and answer.shape[0] == 1)
        return False

    def coerce(self, answer: Any) -> np.ndarray:
        if isinstance(answer, (list, tuple)) and any(isinstance(item, str) for item in answer):
            raise Refused(f"This exercise takes {self.what} (numbers), not {_name(answer)}.")
        try:
            array = _as_array(answer, f"This exercise takes {self.what} (numbers: a list, a numpy array or a tensor)")
        except Refused as refused:
            raise Refused(str(refused) + ".") from None
        if array.dtype.kind == "c":
            if not self.angles:
                raise Refused(f"This exercise takes {self.what} with real entries; yours has complex ones.")
            return np.angle(array)
        return array

    def expected_shape(self, expected: Any) -> tuple[int, ...] | None:
        """The shape a right answer has (None if the expected answer is not an array)."""
        expected = np.asarray(expected)
        return expected.shape if expected.dtype.kind in "iuf" else None

    def _errors(self, value: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each entry's error, and the expected entry it is compared with (after sorting, for unordered arrays)."""
        with np.errstate(all="ignore"):  # huge answers overflow to inf: a wrong answer, not a warning
            if self.angles and _within_a_turn(value) and _within_a_turn(expected):
                return _turn_errors(value, expected, self.unordered), np.zeros(expected.size)
            if self.unordered:
                value, expected = np.sort(value.ravel()), np.sort(expected.ravel())
            return np.abs(value - expected), expected

    def _agrees(self, value: np.ndarray, expected: Any, bound: Callable[[np.ndarray], np.ndarray]) -> bool:
        expected = np.asarray(expected)
        if expected.dtype.kind not in "iuf" or value.shape != expected.shape:
            return False
        errors, target = self._errors(value, expected)
        return bool(np.all(errors <= bound(target)))

    def matches(self, value: np.ndarray, expected: Any) -> bool:
        return self._agrees(value, expected, lambda target: self.atol + self.rtol * np.abs(target))

    def float32_close(self, value: np.ndarray, expected: Any) -> bool:
        expected = np.asarray(expected)
        if expected.dtype.kind not in "iuf" or expected.size == 0:
            return False
        scale = max(float(np.abs(expected).max()), 1.0)
        if self.atol + self.rtol * float(np.abs(expected).min()) >= FLOAT32_EPS * scale:
            return False  # a float32 answer passes already
        return self._agrees(value, expected, lambda target: FLOAT32_BAND * scale)

    def close(self, value: np.ndarray, expected: Any) -> bool:
        return self.near > 0 and self._agrees(value, expected, lambda target: self.near)

    def near_tolerance(self) -> str:
        where = "radians in every angle" if self.angles else "in every entry"
        return f"within {_tolerance_format(self.near)} {where}"

    def shape_problem(self, value: np.ndarray, expected: Any) -> str | None:
        want, got = self.expected_shape(expected), value.shape
        if want is None or got == want:
            return None
        return f"expected an array of shape {want}, got {got}.{_shape_advice(got, want)}"

    def tolerance(self) -> str:
        if self.angles:
            where = "in every angle, in any order" if self.unordered else "in every angle"
            return f"to within {_tolerance_format(self.atol)} radians {where}, up to whole turns"
        where = "in every entry, in any order" if self.unordered else "in every entry"
        if self.rtol:
            return f"to within {_relative(self.rtol)} {where}"
        return f"to within {_tolerance_format(self.atol)} {where}"

    def show(self, value: Any) -> str:
        value = np.asarray(value)
        return f"an array of shape {value.shape}"


def _within_a_turn(angles: np.ndarray) -> bool:
    """True if every angle is written within one turn, in (-pi, pi] or [0, 2 pi) (a little slack for rounding)."""
    slack = 1e-9
    return bool(np.all((angles >= -np.pi - slack) & (angles <= 2 * np.pi + slack)))


def _turn_errors(value: np.ndarray, expected: np.ndarray, unordered: bool) -> np.ndarray:
    """How far each angle is from its expected one, up to whole turns; in any order, the best pairing.

    Unordered, both sets are sorted around the circle: if they agree within less than half their
    smallest gap, one of the cyclic shifts of the sorted answer pairs each angle with its own.
    """
    def to_nearest_turn(difference: np.ndarray) -> np.ndarray:
        return np.abs((difference + np.pi) % (2 * np.pi) - np.pi)

    if not unordered:
        return to_nearest_turn(value - expected).ravel()
    value, expected = np.sort(np.mod(value.ravel(), 2 * np.pi)), np.sort(np.mod(expected.ravel(), 2 * np.pi))
    shifts = (to_nearest_turn(np.roll(value, shift) - expected) for shift in range(value.size))
    return min(shifts, key=np.max, default=np.zeros(0))


def _shape_advice(got: tuple[int, ...], want: tuple[int, ...]) -> str:
    """What a shape that differs from the expected one suggests: axes of size 1, a transpose, a reshape."""
    if [size for size in got if size != 1] == [size for size in want if size != 1]:
        if len(got) > len(want):
            first = " [0] or" if got[0] == 1 and got[1:] == want else ""
            return f" Only axes of size 1 differ:{first} .squeeze() drops them."
        return f" Only axes of size 1 differ: .reshape{want} gives the expected shape."
    if len(got) == len(want) == 2 and got == want[::-1]:
        return " Rows and columns are swapped: .T transposes."
    if int(np.prod(got)) == int(np.prod(want)):
        return " The number of entries is right" + (": .ravel() flattens them." if len(want) == 1
                                                    else ", in another arrangement.")
    return ""


@dataclass(frozen=True)
class Choice(Kind):
    """One of a few named options, written as a string (case and surrounding spaces do not matter).

    ``aliases`` maps other spellings (and True/False for yes/no questions) to an option.
    """

    options: tuple[str, ...]
    aliases: tuple[tuple[Any, str], ...] = ()
    what: str = "a choice"
    family: str = "choice"

    @property
    def brief(self) -> str:
        return " or ".join(map(repr, self.options)) if len(self.options) <= 2 else "one of " + ", ".join(
            map(repr, self.options))

    def accepts(self, answer: Any) -> bool:
        return isinstance(answer, (str, bool, np.bool_))

    def _takes(self, strings: bool = False) -> str:
        """What the exercise takes, the options listed once (`what` may list them already)."""
        if all(repr(option) in self.what for option in self.options):
            return self.what
        listed = ", ".join(repr(option) for option in self.options)
        return f"{self.what}: one of {'the strings ' if strings else ''}{listed}"

    def coerce(self, answer: Any) -> str:
        for alias, option in self.aliases:
            if type(alias) is type(answer) and alias == answer:
                return option
        if isinstance(answer, (bool, np.bool_)):
            raise Refused(f"This exercise takes {self._takes()}, not {answer}.")
        if not isinstance(answer, str):
            raise Refused(f"This exercise takes {self._takes(strings=True)}, not {_name(answer)}.")
        written = _normal(answer)
        for option in self.options:
            if _normal(option) == written:
                return option
        for alias, option in self.aliases:
            if isinstance(alias, str) and _normal(alias) == written:
                return option
        raise Refused(f"This exercise takes {self._takes()}; {answer!r} is none of them.")

    def matches(self, value: str, expected: Any) -> bool:
        return value == expected

    def tolerance(self) -> str:
        return "exactly"

    def show(self, value: Any) -> str:
        return repr(value)


def _normal(text: str) -> str:
    """A choice as compared: case, spaces and a final full stop ignored; R(7).T read as R(7)^T."""
    text = text.strip().casefold().replace("’", "'").rstrip(".!")
    return re.sub(r"\s+", "", text).replace(".t", "^t")


@dataclass(frozen=True)
class Several(Kind):
    """A fixed number of answers in order, as a tuple or list: ``(smallest, largest)``, two choices, …

    Each item is read by its own kind; ``names`` says what each item is, for messages.
    """

    kinds: tuple[Any, ...]
    names: tuple[str, ...]
    family: str = "several"

    @property
    def what(self) -> str:
        return "(" + ", ".join(self.names) + ")"

    @property
    def brief(self) -> str:
        return "a tuple " + self.what

    def accepts(self, answer: Any) -> bool:
        if isinstance(answer, (tuple, list)) and len(answer) == len(self.kinds):
            return True
        if isinstance(answer, np.ndarray) or _is_tensor(answer):
            return answer.ndim == 1 and answer.shape[0] == len(self.kinds)
        return False

    def coerce(self, answer: Any) -> tuple:
        if isinstance(answer, np.ndarray) or _is_tensor(answer):
            answer = list(_as_array(answer, "numbers"))
        if not isinstance(answer, (tuple, list)) or len(answer) != len(self.kinds):
            length = f" of {len(answer)}" if isinstance(answer, (tuple, list)) else ""
            raise Refused(f"This exercise takes {len(self.kinds)} answers in a tuple, {self.what}, "
                          f"not {_name(answer) if not length else f'a {type(answer).__name__}{length}'}.")
        values = []
        for kind, name, item in zip(self.kinds, self.names, answer):
            try:
                values.append(kind.coerce(item))
            except Refused as refused:
                raise Refused(f"In {self.what}, {name}: {refused}") from None
        return tuple(values)

    def matches(self, value: tuple, expected: Any) -> bool:
        return all(kind.matches(item, target) for kind, item, target in zip(self.kinds, value, expected))

    def _all_but(self, value: tuple, expected: Any, test: str) -> bool:
        """True if every item is right or passes ``kind.<test>``, and the answer as a whole is not right."""
        return not self.matches(value, expected) and all(
            kind.matches(item, target) or getattr(kind, test)(item, target)
            for kind, item, target in zip(self.kinds, value, expected))

    def float32_close(self, value: tuple, expected: Any) -> bool:
        return self._all_but(value, expected, "float32_close")

    def close(self, value: tuple, expected: Any) -> bool:
        return self._all_but(value, expected, "close")

    def near_tolerance(self) -> str:
        return "; ".join(f"{name} {kind.near_tolerance()}" for kind, name in zip(self.kinds, self.names)
                         if kind.near_tolerance())

    def tolerance(self) -> str:
        parts = {kind.tolerance() for kind in self.kinds}
        return parts.pop() if len(parts) == 1 else "; ".join(
            f"{name} {kind.tolerance()}" for kind, name in zip(self.kinds, self.names))

    def show(self, value: Any) -> str:
        return "(" + ", ".join(kind.show(item) for kind, item in zip(self.kinds, value)) + ")"


@dataclass(frozen=True)
class Function(Kind):
    """A function the reader wrote, judged by what it returns on a few calls (the probes).

    Each probe is a tuple of positional arguments; every result is read by ``result`` (an
    :class:`Array`) and compared with what the companion returns on the same call. An exception
    raised by the reader's function is reported, not raised.
    """

    probes: tuple[tuple, ...]
    result: Any
    signature: str
    calls: tuple[str, ...] = ()  # the probes in words, for messages (their reprs by default)
    what: str = "a function"
    family: str = "function"

    brief = "a function"

    def accepts(self, answer: Any) -> bool:
        return callable(answer) and not isinstance(answer, type) and not _is_tensor(answer)

    def coerce(self, answer: Any) -> tuple:
        if not self.accepts(answer):
            raise Refused(f"This exercise takes {self.what}, {self.signature}, not {_name(answer)}. "
                          "Define it with def, then write its name without calling it.")
        results = []
        for args in self.probes:
            call = f"{getattr(answer, '__name__', 'your function')}({', '.join(map(repr, args))})"
            try:
                returned = answer(*args)
            except Exception as error:  # the reader's code: report what it raised, never re-raise
                raise Refused(f"Calling {call} raised {type(error).__name__}: {error}") from None
            try:
                results.append(self.result.coerce(returned))
            except Refused:
                raise Refused(f"{call} returned {_name(returned)}: it should return {self.result.what}.") from None
        return tuple(results)

    def matches(self, value: tuple, expected: Any) -> bool:
        return all(self.result.matches(item, target) for item, target in zip(value, expected))

    def _calls(self) -> tuple[str, ...]:
        return self.calls or tuple(f"({', '.join(map(repr, args))})" for args in self.probes)

    def shape_problem(self, value: tuple, expected: Any) -> str | None:
        for call, item, target in zip(self._calls(), value, expected):
            problem = self.result.shape_problem(item, target)
            if problem:
                return f"on the call {call}, {problem}"
        return None

    def _all_but(self, value: tuple, expected: Any, test: str) -> bool:
        return not self.matches(value, expected) and all(
            self.result.matches(item, target) or getattr(self.result, test)(item, target)
            for item, target in zip(value, expected))

    def float32_close(self, value: tuple, expected: Any) -> bool:
        return self._all_but(value, expected, "float32_close")

    def close(self, value: tuple, expected: Any) -> bool:
        return self._all_but(value, expected, "close")

    def near_tolerance(self) -> str:
        return self.result.near_tolerance()

    def tolerance(self) -> str:
        return f"on the calls {' and '.join(self._calls())}, {self.result.tolerance()}"

    def show(self, value: Any) -> str:
        return "your function"

    @staticmethod
    def outputs(function: Callable, probes: tuple[tuple, ...]) -> tuple:
        """What `function` returns on each probe, as float64 arrays (for the expected value and the mistakes)."""
        return tuple(np.asarray(function(*args), dtype=np.float64) for args in probes)

