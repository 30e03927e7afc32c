"""HTML parsing with lxml, robust to every input a crawl produces.

The decoded text is re-encoded as UTF-8 and parsed with an explicit encoding, which makes
lxml accept strings with ``<?xml encoding=...?>`` declarations, NUL and control characters
(they become U+FFFD). ``huge_tree`` lifts libxml2's size limits; libxml2 still caps nesting
depth (at 2,048) and drops everything that lies deeper. When it reports that, the page is parsed
again with the tags deeper than :data:`MAX_DEPTH` removed and their text kept
(:func:`flatten_deep_tags`), so a 10,000-level page keeps its text, attached to its
2,000th-level ancestor. Trees that deep are why every tree walk in the project is iterative.
"""

from __future__ import annotations

import re

from lxml import etree

_PARSER = etree.HTMLParser(
    encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True, recover=True, no_network=True
)


#: Nesting kept when a page is too deep for libxml2 (which stops at 2,048 levels).
MAX_DEPTH = 2_000
TAG = re.compile(r"<(/?)([A-Za-z][^\s/>]*)[^>]*>")
#: Elements that never take content, so never deepen the tree.
VOID_ELEMENTS = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def flatten_deep_tags(html: str, max_depth: int = MAX_DEPTH) -> str:
    """``html`` with every start and end tag below ``max_depth`` levels of open elements replaced
    by a space (their text stays where it is, and words on either side of a tag stay apart; the
    blocks there merge into their ancestor's). The depth is counted from the tags as written, which
    over-counts implicitly closed elements: a page is only flattened where libxml2 gave up."""
    depth = 0

    def keep(match: re.Match) -> str:
        nonlocal depth
        closing, name = match.group(1), match.group(2).lower()
        if name in VOID_ELEMENTS or match.group(0).endswith("/>"):
            return match.group(0) if depth < max_depth else " "
        if closing:
            depth = max(depth - 1, 0)
            return match.group(0) if depth < max_depth else " "
        depth += 1
        return match.group(0) if depth <= max_depth else " "

    return TAG.sub(keep, html)


def parse_html(html: str) -> etree._Element | None:
    """Parse ``html`` into an lxml tree root, or ``None`` when it holds no element at all; a page
    nested too deeply for libxml2 is parsed again flattened (see the module docstring)."""
    data = html.encode("utf-8", errors="replace")
    if not data.strip():
        return None
    root = etree.fromstring(data, _PARSER)
    if any("Excessive depth" in entry.message for entry in _PARSER.error_log):
        root = etree.fromstring(flatten_deep_tags(html).encode("utf-8", errors="replace"), _PARSER)
    return root


def body_of(root: etree._Element | None) -> etree._Element | None:
    """The ``<body>`` element of a parsed page, or the root when the parser made none."""
    if root is None:
        return None
    body = root.find("body")
    return body if body is not None else root
