"""TeX that lost a backslash to a string escape on its way into a page: what the math check looks for.

A notebook is JSON, and a script that writes one from a Python string can miss a backslash: in
JSON (and in Python) "\\t" is a TAB, so "\\text{seq\\_len}" reaches the page as a TAB and
"ext{seq\\_len}". MathJax typesets that without an error, and the reader sees "ext". The escapes
that can swallow the start of a TeX command are \\a (BEL, in Python: \\alpha), \\b (backspace:
\\beta, \\bar), \\t (TAB: \\text, \\theta, \\tau, \\times), \\v (vertical tab: \\vec, \\varphi),
\\f (form feed: \\frac) and \\r (carriage return: \\rho, \\right). \\n (newline: \\nu, \\nabla) is
left out, since a newline is ordinary white space in TeX.
"""

import re

SWALLOWED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
CONTROL = re.compile("[" + "".join(SWALLOWED) + "]")
CONTROL_NAMES = {"\a": "BEL", "\b": "BACKSPACE", "\t": "TAB", "\v": "VERTICAL TAB", "\f": "FORM FEED",
                 "\r": "CARRIAGE RETURN"}
# What is left of such a command once the control character itself was dropped or made a space:
# the rest of its name, not preceded by a backslash, a letter or (reported above) the control
# character, followed by its argument (or, for \right, by its delimiter). Legitimate TeX has these
# letters only inside longer names.
_NOT_A_NAME = r"(?<![\\A-Za-z\a\b\t\v\f\r])"
REMNANT = re.compile(_NOT_A_NAME + r"(?:ext(?:bf|rm|it|tt|sf|up|normal)?|rac|ec|ar|ilde|oldsymbol)\s*\{"
                     + "|" + _NOT_A_NAME + r"ight(?=\s*[)\]|.\\])")


def swallowed_escapes(tex: str) -> list[str]:
    """Describe each trace of a swallowed backslash in the TeX source `tex`; empty if there is none."""
    found = []
    for match in CONTROL.finditer(tex):
        char = match.group()
        after = tex[match.end():match.end() + 12]
        command = "\\" + SWALLOWED[char][1] + re.match("[A-Za-z]*", after).group()
        found.append(f"{CONTROL_NAMES[char]} before {after!r}: the escape {SWALLOWED[char]} took the backslash "
                     f"and first letter of {command}")
    for match in REMNANT.finditer(tex):
        found.append(f"{match.group()!r} where a command lost its backslash and first letter")
    return found
