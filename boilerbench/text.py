"""Token normalisation shared by the gold-label aligner and the metrics.

CleanEval's scorer compares lowercased whitespace tokens with ``, ; : . ? !`` deleted;
tokens that become empty are dropped. The aligner uses the same rule so that a block
labelled content is exactly a block whose tokens the metric would count as matched.
"""

from __future__ import annotations

import re

_PUNCTUATION = ",;:.?!"
#: CleanEval's paragraph markers; the group captures the kind (p paragraph, h header, l list item).
CLEANEVAL_MARKER = re.compile(r"<([phl])>", re.IGNORECASE)
#: CleanEval gold's optional first line, ``URL: <url>``; the group captures the URL.
CLEANEVAL_URL_LINE = re.compile(r"\A\s*URL:\s*(\S*)[^\n]*(?:\n|\Z)")


def normalise_tokens(text: str) -> list[str]:
    """Split ``text`` on whitespace, lowercase, delete ``, ; : . ? !``, drop empty tokens.

    The characters are deleted before splitting, which gives the same tokens (none of them is
    whitespace, and a token made only of them vanishes); chained ``replace`` calls are about
    twice as fast as ``str.translate`` here, and this is on the hot path.
    """
    text = text.lower()
    for char in _PUNCTUATION:
        text = text.replace(char, "")
    return text.split()


def strip_cleaneval_markup(text: str) -> str:
    """Drop a leading ``URL:`` line and replace ``<p> <h> <l>`` markers by spaces (CleanEval gold format)."""
    text = CLEANEVAL_URL_LINE.sub("", text.lstrip("\ufeff"), count=1)
    return CLEANEVAL_MARKER.sub(" ", text)


def collapse_whitespace(text: str) -> str:
    """Collapse runs of whitespace to one space and strip the ends (as a browser renders inline text)."""
    return " ".join(text.split())
