"""The kinds of answer an exercise takes: how a reader's answer is read, compared, and refused.

A kind turns what a reader writes (a number, a list, a numpy array, a torch tensor, a function, a
choice) into a plain value, compares it with the expected one within a stated tolerance, and
refuses an answer of the wrong kind with a message that says what to write instead. Nothing here
imports torch: a tensor is recognised by its type's module and read through its own methods.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


class Refused(Exception):
    """The answer is not of the kind the exercise takes; the message says what to write instead."""


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


@dataclass(frozen=True)
class Number:
    """A real number, right within ``atol`` or within ``rtol`` of the expected value.

    ``integer=True`` takes a whole number and compares it exactly. ``what`` names the number in
    messages ("a position", "a similarity").
    """

    what: str = "a number"
    atol: float = 0.0
    rtol: float = 0.0
    integer: bool = False
    canonical: Callable[[float], float] | None = None  # another way of writing the same answer, mapped to ours
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
            hint = " Write it without quotes." if _parses_as_number(answer) else ""
            raise Refused(f"This exercise takes {kind}, not the string {answer!r}.{hint}")
        if isinstance(answer, complex) or (isinstance(answer, np.ndarray) and answer.dtype.kind == "c"):
            raise Refused(f"This exercise takes {kind}, a real one, not {_name(answer)}.")
        try:
            array = _as_array(answer, f"This exercise takes {kind}")
        except Refused as refused:
            raise Refused(str(refused) + ".") from None
        if array.size != 1:
            raise Refused(f"This exercise takes {kind}, one value, not {array.size} values (shape {array.shape}).")
        value = float(array.reshape(()).real)
        if self.canonical is not None:
            value = self.canonical(value)
        if self.integer and value != round(value):
            raise Refused(f"This exercise takes {kind}, and {_number_format(value)} is not whole.")
        return value

    def matches(self, value: float, expected: Any) -> bool:
        expected = float(expected)
        if self.integer:
            return value == round(expected)
        return abs(value - expected) <= max(self.atol, self.rtol * abs(expected))

    def tolerance(self) -> str:
        if self.integer or (self.atol == 0 and self.rtol == 0):
            return "exactly"
        if self.rtol:
            return f"to within {self.rtol:.0%} of the expected value"
        return f"to within {self.atol:g}"

    def show(self, value: Any) -> str:
        return str(int(round(float(value)))) if self.integer else _number_format(float(value))


def _scalar_like(answer: Any) -> bool:
    if isinstance(answer, str):
        return _parses_as_number(answer)
    if isinstance(answer, (numbers.Number, np.number, np.bool_)):
        return True
    if isinstance(answer, np.ndarray) or _is_tensor(answer):
        return answer.ndim == 0 or (answer.ndim == 1 and answer.shape[0] == 1)
    return False


def _parses_as_number(text: str) -> bool:
    try:
        float(text.replace("_", ""))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Array:
    """An array of numbers (list, tuple, numpy array or torch tensor), right entry by entry within ``atol``.

    ``unordered=True`` compares the sorted entries (eigenvalues, say); complex entries are sorted by
    their angle, then their modulus. Shapes must agree; a different shape is a wrong answer, which
    a recognised mistake may explain.
    """

    what: str = "an array"
    atol: float = 1e-9
    rtol: float = 0.0
    unordered: bool = False
    angles: bool = False  # complex entries are read as their angles (eigenvalues given for their angles)
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
        return np.angle(array) if self.angles and np.iscomplexobj(array) else array

    def _order(self, array: np.ndarray) -> np.ndarray:
        if not self.unordered:
            return array
        flat = array.ravel()
        if np.iscomplexobj(flat):
            keys = np.lexsort((np.abs(flat), np.round(np.angle(flat), 9)))
            return flat[keys]
        return np.sort(flat)

    def matches(self, value: np.ndarray, expected: Any) -> bool:
        expected = np.asarray(expected)
        if value.shape != expected.shape:
            return False
        if np.iscomplexobj(expected) != np.iscomplexobj(value) and np.any(np.imag(value)):
            return False
        ordered, target = self._order(value), self._order(expected)
        bound = self.atol + self.rtol * np.abs(target)
        return bool(np.all(np.abs(ordered - target) <= bound))

    def tolerance(self) -> str:
        where = "in every entry, in any order" if self.unordered else "in every entry"
        if self.rtol:
            return f"to within {self.rtol:.0%} {where}"
        return f"to within {self.atol:g} {where}"

    def show(self, value: Any) -> str:
        value = np.asarray(value)
        return f"an array of shape {value.shape}"


@dataclass(frozen=True)
class Choice:
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

    def coerce(self, answer: Any) -> str:
        listed = ", ".join(repr(option) for option in self.options)
        for alias, option in self.aliases:
            if type(alias) is type(answer) and alias == answer:
                return option
        if isinstance(answer, (bool, np.bool_)):
            raise Refused(f"This exercise takes {self.what}, one of {listed}, not {answer}.")
        if not isinstance(answer, str):
            raise Refused(f"This exercise takes {self.what}: one of the strings {listed}, not {_name(answer)}.")
        written = _normal(answer)
        for option in self.options:
            if _normal(option) == written:
                return option
        for alias, option in self.aliases:
            if isinstance(alias, str) and _normal(alias) == written:
                return option
        raise Refused(f"This exercise takes {self.what}: one of {listed}; {answer!r} is none of them.")

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
class Several:
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

    def tolerance(self) -> str:
        parts = {kind.tolerance() for kind in self.kinds}
        return parts.pop() if len(parts) == 1 else "; ".join(
            f"{name} {kind.tolerance()}" for kind, name in zip(self.kinds, self.names))

    def show(self, value: Any) -> str:
        return "(" + ", ".join(kind.show(item) for kind, item in zip(self.kinds, value)) + ")"


@dataclass(frozen=True)
class Function:
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
            except Refused as refused:
                raise Refused(f"{call} returned {_name(returned)}: it should return {self.result.what}.") from None
        return tuple(results)

    def matches(self, value: tuple, expected: Any) -> bool:
        return all(self.result.matches(item, target) for item, target in zip(value, expected))

    def tolerance(self) -> str:
        calls = self.calls or tuple(f"({', '.join(map(repr, args))})" for args in self.probes)
        return f"on the calls {' and '.join(calls)}, {self.result.tolerance()}"

    def show(self, value: Any) -> str:
        return "your function"

    @staticmethod
    def outputs(function: Callable, probes: tuple[tuple, ...]) -> tuple:
        """What `function` returns on each probe, as float64 arrays (for the expected value and the mistakes)."""
        return tuple(np.asarray(function(*args), dtype=np.float64) for args in probes)

