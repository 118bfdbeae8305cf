"""Debian's Chromium driven by Playwright, and a local web server: what the browser tests and `make pdf` share.

No browser is downloaded: Playwright drives the Chromium that the Makefile installs with apt-get
(or the one named by the environment variable CHROMIUM). Pages are served from 127.0.0.1, so
nothing is fetched from another host.
"""

import functools
import http.server
import os
import threading
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Flags that keep Chromium from calling home: offline, those calls would log errors.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-default-apps"]

# Resolves once MathJax has typeset the page (its startup promise), at once on a page without MathJax.
MATHJAX_DONE = """async () => {
    if (typeof window.MathJax === 'undefined') return;
    while (!(window.MathJax.startup && window.MathJax.startup.promise)) {
        await new Promise(resolve => setTimeout(resolve, 50));
    }
    await window.MathJax.startup.promise;
}"""

# Brings every animation and transition that ends to its end: what a reader has just opened (a
# sphinx-togglebutton solution fades in over 0.3 s) is read at rest, not in a colour halfway to its own.
# Finished rather than awaited: a page in the background has its animations throttled (seconds, not 0.3 s).
SETTLED = """() => {
    document.getAnimations().filter(animation => animation.playState === 'running' && animation.playbackRate !== 0
        && animation.effect && animation.effect.getComputedTiming().endTime !== Infinity)
        .forEach(animation => animation.finish());
}"""


def launch(playwright):
    """Start headless Chromium; fail with a message naming the fix if it is not installed."""
    if not Path(CHROMIUM).is_file():
        raise FileNotFoundError(f"no browser at {CHROMIUM}: install Debian's chromium (apt-get install chromium) "
                                "or set CHROMIUM")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@contextmanager
def serve(directory):
    """Serve `directory` on 127.0.0.1 (a free port) for as long as the block runs; yield its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
