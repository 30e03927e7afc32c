"""HTML parsing with lxml, robust to every input a crawl produces.

The decoded text is re-encoded as UTF-8 and parsed with an explicit encoding, which makes
lxml accept strings with ``<?xml encoding=...?>`` declarations, NUL and control characters
(they become U+FFFD). ``huge_tree`` lifts libxml2's size limits; libxml2 still caps nesting
depth at 2,048 and drops what lies deeper (a 10,000-level page gives an empty extraction),
and trees that deep are why every tree walk in the project is iterative, never recursive.
"""

from __future__ import annotations

from lxml import etree

_PARSER = etree.HTMLParser(
    encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True, recover=True, no_network=True
)


def parse_html(html: str) -> etree._Element | None:
    """Parse ``html`` into an lxml tree root, or ``None`` when it holds no element at all."""
    data = html.encode("utf-8", errors="replace")
    if not data.strip():
        return None
    return etree.fromstring(data, _PARSER)


def body_of(root: etree._Element | None) -> etree._Element | None:
    """The ``<body>`` element of a parsed page, or the root when the parser made none."""
    if root is None:
        return None
    body = root.find("body")
    return body if body is not None else root
