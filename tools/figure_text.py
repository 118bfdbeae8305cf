"""The smallest text of every figure the chapters draw, recorded while the chapters execute.

    python tools/figure_text.py record -- COMMAND [ARG ...]

runs COMMAND (the Makefile's native nbval run) so that every IPython kernel it starts loads this
module as an IPython extension (through a kernel configuration in an IPython directory of its own,
_build/figure-text/ipython). In a kernel, every PNG matplotlib writes (the inline backend's figure
outputs, an explorable figure's stand-in) is measured: the size of its smallest visible text in
points, the resolution it is drawn at, so in the PNG's pixels, and the PNG's own size (after
``bbox_inches="tight"``). Each record names the cell by the SHA-256 of its source and the PNG's place
among the PNGs that cell wrote. When COMMAND ends, the kernels' records are gathered into
_build/figure-text.json, which the browser tests read (tests/site/test_figure_text.py): they find
each figure of the book, by its cell and order, where the page shows it, and turn its smallest text
into CSS pixels at the width the page draws it, and into points at the size the PDF prints it.

Nothing the kernel prints changes: the extension only reads the figures it is given.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "figure-text.json"
WORK = ROOT / "_build" / "figure-text"
#: Where each kernel writes its records (set for the kernels by `record`).
RECORDS = "PE_BOOK_FIGURE_TEXT"

KERNEL_CONFIG = """# Written by tools/figure_text.py: every kernel measures the figures it draws.
import sys
sys.path.insert(0, {tools!r})
c.InteractiveShellApp.extensions = ["figure_text"]
"""


def source_key(source: str) -> str:
    """How a record names its cell: the SHA-256 of the cell's source, as the notebook stores it."""
    return hashlib.sha256(source.encode()).hexdigest()


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, from its header; None if `data` is not a PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", data[16:24])


def smallest_text(figure, dpi: float):
    """The smallest visible, non-empty text of `figure` as drawn: (size in points, in pixels at `dpi`, the text)."""
    from matplotlib.text import Text

    renderer = figure.canvas.get_renderer() if hasattr(figure.canvas, "get_renderer") else None
    found = []
    for text in figure.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        if renderer is not None:
            box = text.get_window_extent(renderer)
            if box.width <= 0 or box.height <= 0:
                continue
        found.append((text.get_fontsize(), text.get_text().strip()[:40]))
    if not found:
        return None
    size, text = min(found)
    return size, size * dpi / 72, text


class Recorder:
    """Measures each PNG written in the kernel, by cell (the IPython extension's state)."""

    def __init__(self, path: Path):
        self.path, self.cell, self.count, self.records = path, None, 0, []

    def pre_run_cell(self, info):
        self.cell, self.count = source_key(info.raw_cell), 0

    def measured(self, figure, target, kwargs):
        data = target.getvalue() if isinstance(target, io.BytesIO) else b""
        size = png_size(data)
        if size is None or self.cell is None:
            return
        dpi = kwargs.get("dpi") or figure.dpi
        if dpi == "figure":
            dpi = figure.dpi
        smallest = smallest_text(figure, float(dpi))
        self.records.append({"cell": self.cell, "index": self.count, "width": size[0], "height": size[1],
                             "dpi": float(dpi), "tight": kwargs.get("bbox_inches") == "tight",
                             "points": smallest[0] if smallest else None, "pixels": smallest[1] if smallest else None,
                             "text": smallest[2] if smallest else None})
        self.count += 1
        self.path.write_text(json.dumps(self.records))


def load_ipython_extension(ipython):
    """Measure every PNG this kernel writes (loaded by the kernel configuration that `record` writes)."""
    directory = os.environ.get(RECORDS)
    if not directory:
        return
    from matplotlib.backend_bases import FigureCanvasBase

    recorder = Recorder(Path(directory) / f"kernel-{os.getpid()}.json")
    ipython.events.register("pre_run_cell", recorder.pre_run_cell)
    print_figure = FigureCanvasBase.print_figure

    def measuring(canvas, filename, *args, **kwargs):
        result = print_figure(canvas, filename, *args, **kwargs)
        try:
            if (kwargs.get("format") or "png") == "png":
                recorder.measured(canvas.figure, filename, kwargs)
        except Exception as error:  # a measurement must never change what the chapter shows
            print(f"figure_text: {error!r}", file=sys.__stderr__)
        return result

    FigureCanvasBase.print_figure = measuring


def gather(directory: Path) -> list[dict]:
    return [record for path in sorted(directory.glob("kernel-*.json")) for record in json.loads(path.read_text())]


def record(command: list[str]) -> int:
    records = WORK / "records"
    profile = WORK / "ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    records.mkdir(parents=True, exist_ok=True)
    for stale in records.glob("kernel-*.json"):
        stale.unlink()
    (profile / "ipython_kernel_config.py").write_text(KERNEL_CONFIG.format(tools=str(Path(__file__).parent)))
    environment = {**os.environ, "IPYTHONDIR": str(WORK / "ipython"), RECORDS: str(records)}
    status = subprocess.run(command, env=environment).returncode
    found = gather(records)
    OUT.write_text(json.dumps(found, indent=1))
    print(f"figure_text: {len(found)} figures measured, written to {OUT}", flush=True)
    return status


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] != "record" or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    return record(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
