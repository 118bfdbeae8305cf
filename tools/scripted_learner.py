"""A scripted learner: after a chapter has run, it answers exercises wrong, reads the feedback, then answers right.

The Colab simulation (tools/simulate_colab.py) appends the learner's cells to a chapter and runs them in
the chapter's kernel, after the chapter's own cells, as a reader who has worked through the chapter
types answers under its exercises. Each step is one cell and what the learner must read in its output:
phrases of the printed feedback (compared with runs of spaces and line breaks made one space, as
``check`` wraps its messages) and the value the cell shows (``check`` returns True or False). The
learner's later answers follow what the feedback said: after "That is a column index used in place of
the pair index", the loop uses the pair's even column.

The same steps run in-process against the companion (:func:`run_in_process`), so that a unit test
(tests/tools/test_scripted_learner.py) keeps them in step with the checker without the simulation's
Colab environment.
"""

from __future__ import annotations

import ast
import contextlib
import io
import textwrap
import uuid
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One cell the learner runs, and what its output must say."""

    code: str
    says: tuple[str, ...]  # phrases the printed output must contain
    shows: str | None = None  # the cell's displayed value, "True" or "False" (None: it shows none)


def _code(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


# A loop by columns that gives each column its own exponent, the chapter's "pair index or column index".
_COLUMN_LOOP = """\
import math

import numpy as np


def column_loop(seq_len, d_model):
    table = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for j in range(d_model):
            angle = pos / 10_000 ** ({exponent} / d_model)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


check("ex-column-loop", column_loop)"""

LEARNERS: dict[str, tuple[Step, ...]] = {
    "02_loop_version": (
        Step(_code("""
            from companion.exercises import check, hint

            # ex-first-return: sin(3) = 0.14 looks close enough to 0
            check("ex-first-return", 3)"""),
             ("ex-first-return: not yet. That is the first position near a multiple of pi, but not within 0.01.",
              "Which multiples of pi come within 0.01 of an integer?"), "False"),
        Step('hint("ex-first-return")', ("ex-first-return: Hint 1 of 3: sin(pos) is near 0 when pos is near a "
                                         "multiple of pi",)),
        Step('check("ex-first-return", 7)  # 7 pi is close to 22', (
            "ex-first-return: not yet. That is the multiple of pi, not the position.",
            "The position is the integer near that multiple of pi."), "False"),
        Step('check("ex-first-return", 22)', ("ex-first-return: right, 22 (checked exactly).",
                                              "sin(22) = -0.0089"), "True"),
        Step(_COLUMN_LOOP.format(exponent="j"), (
            "ex-column-loop: not yet. That is a column index used in place of the pair index.",
            "use j - j % 2, the even column of j's pair"), "False"),
        Step(_COLUMN_LOOP.format(exponent="(j - j % 2)"), (
            "ex-column-loop: right, your function (checked on the calls (50, 64) and (11, 512), to within "
            "1e-12 in every entry).", "the same table as loop_encoding"), "True"),
    ),
    "05_linearity_proof": (
        Step(_code("""
            from companion.exercises import check, hint

            # ex-rotations-compose: multiplying the matrices multiplies the offsets?
            check("ex-rotations-compose", 7 * 100)"""),
             ("ex-rotations-compose: not yet. That is the offsets multiplied.",
              "Multiplying the matrices adds the angles"), "False"),
        Step('check("ex-rotations-compose", 107)', ("ex-rotations-compose: right, 107 (checked exactly).",
                                                    "rho(theta) rho(phi) = rho(theta + phi)"), "True"),
        Step('check("ex-rotations-compose", "R(7) R(100) = R(107)")', (
            "ex-rotations-compose: not yet. That is an identity that holds only to rounding.",
            "Compare with np.array_equal."), "False"),
        Step('check("ex-rotations-compose", "R(-7) = R(7)^T")', (
            "ex-rotations-compose: right, 'R(-7) = R(7)^T' (checked exactly).",), "True"),
        Step(_code("""
            import numpy as np

            from companion.analysis.linearity import rotation_matrix
            from companion.encoding.frequencies import angular_frequencies

            # ex-rotation-eigenvalues: pair i turns by 7 omega_i, one way or the other
            turns = 7 * angular_frequencies(8)
            check("ex-rotation-eigenvalues", np.concatenate([turns, -turns]))"""), (
            "ex-rotation-eigenvalues: not yet. That is angles not wrapped to a turn.",
            "in (-pi, pi] as np.angle does (7 - 2 pi = 0.717)"), "False"),
        Step('check("ex-rotation-eigenvalues", np.linalg.eigvals(rotation_matrix(7, 8)))', (
            "ex-rotation-eigenvalues: right, an array of shape (8,) (checked to within 0.002 radians in every "
            "angle, in any order, up to whole turns).",), "True"),
    ),
}


def cells(stem: str) -> list[dict]:
    """The learner's cells for chapter `stem`, as notebook code cells (nbformat 4), to append to it."""
    return [{"cell_type": "code", "id": f"learner-{uuid.uuid4().hex[:8]}", "metadata": {}, "execution_count": None,
             "outputs": [], "source": step.code} for step in LEARNERS[stem]]


def _flat(text: str) -> str:
    return " ".join(text.split())


def problems(stem: str, ran: list[dict]) -> list[str]:
    """What went wrong in the learner's cells of chapter `stem`, `ran` being those cells after the run."""
    steps = LEARNERS[stem]
    if len(ran) != len(steps):
        return [f"the learner ran {len(ran)} cells, not {len(steps)}"]
    found = []
    for number, (step, cell) in enumerate(zip(steps, ran), start=1):
        outputs = cell.get("outputs", [])
        errors = [f"{output['ename']}: {output['evalue']}" for output in outputs if output["output_type"] == "error"]
        printed = _flat("".join("".join(output["text"]) for output in outputs if output["output_type"] == "stream"))
        shown = ["".join(output["data"].get("text/plain", "")) for output in outputs
                 if output["output_type"] == "execute_result"]
        where = f"learner step {number} ({step.code.splitlines()[-1][:60]})"
        found += [f"{where}: {error}" for error in errors]
        found += [f"{where}: the feedback does not say {phrase!r}; it says {printed!r:.400}"
                  for phrase in step.says if _flat(phrase) not in printed]
        if shown != ([step.shows] if step.shows is not None else []):
            found.append(f"{where}: the cell shows {shown}, not {step.shows!r}")
    return found


def run_in_process(stem: str) -> list[dict]:
    """Run the learner's steps for `stem` here, one namespace for all, as a kernel runs cells.

    Returns the cells with their outputs as a notebook would store them (a stream of what was printed,
    and the value of a final expression), for :func:`problems`.
    """
    namespace: dict = {"__name__": "__main__"}
    ran = []
    for cell in cells(stem):
        tree = ast.parse(cell["source"])
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        printed, outputs = io.StringIO(), []
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(tree, "<learner>", "exec"), namespace)
                value = eval(compile(ast.Expression(last.value), "<learner>", "eval"), namespace) if last else None
        except Exception as error:  # reported as a kernel reports it, as an error output
            outputs.append({"output_type": "error", "ename": type(error).__name__, "evalue": str(error)})
            value = None
        if printed.getvalue():
            outputs.insert(0, {"output_type": "stream", "name": "stdout", "text": printed.getvalue()})
        if value is not None:
            outputs.append({"output_type": "execute_result", "data": {"text/plain": repr(value)}})
        ran.append({**cell, "outputs": outputs})
    return ran
