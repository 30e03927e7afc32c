"""Text helpers shared by the datasets, the extractors and the metrics: CleanEval's markup, whitespace.

The metric tokens (CleanEval's normalisation, script-aware) are in :mod:`boilerbench.tokenizer`.
"""

from __future__ import annotations

import re

#: CleanEval's paragraph markers; the group captures the kind (p paragraph, h header, l list item).
CLEANEVAL_MARKER = re.compile(r"<([phl])>", re.IGNORECASE)
#: CleanEval gold's optional first line, ``URL: <url>``; the group captures the URL.
CLEANEVAL_URL_LINE = re.compile(r"\A\s*URL:\s*(\S*)[^\n]*(?:\n|\Z)")


def strip_cleaneval_markup(text: str) -> str:
    """Drop a leading ``URL:`` line and replace ``<p> <h> <l>`` markers by spaces (CleanEval gold format)."""
    text = CLEANEVAL_URL_LINE.sub("", text.lstrip("\ufeff"), count=1)
    return CLEANEVAL_MARKER.sub(" ", text)


def collapse_whitespace(text: str) -> str:
    """Collapse runs of whitespace to one space and strip the ends (as a browser renders inline text)."""
    return " ".join(text.split())
