"""Huge pages extracted piece by piece, so that a worker's memory is bounded by the piece, not the page.

A parsed lxml tree costs about 24 bytes per character of HTML, and a learned extractor's block
features several times that: a generated 50 MB page took 4.5 GB to extract with the stack, where
every page of WCXB's development part (up to 5 million characters) stays under 600 MB. Where a page
is extracted for its text (``boilerbench extract``, :func:`boilerbench.extract`: see
:func:`boilerbench.api.extract_document`), a page of more than :data:`PIECE_ABOVE` characters is
therefore cut, without parsing it, into pieces of at most about :data:`PIECE_CHARS` characters
(:func:`html_pieces`); each piece is extracted as a page of its own (:func:`piece_pages`, one at a
time) and the texts are joined in page order. A run (``python run.py``) extracts every page whole:
it scores the page's blocks, which needs the whole page's tree anyway, and an extractor's block
labels are over the whole page's blocks.

Cuts fall between elements, where the fewest elements are open (a page's top-level sections, a
long list's items), found by scanning the tags as written (script, style and other raw-text
elements are skipped whole, comments too). Each piece after the first opens with the page's
``<title>`` and the start tags of the elements open at its cut (``<body class=...><div
id=main>``), so its blocks keep their tag paths, classes and ids. What a piece cannot see is the
rest of the page: page-level features (a block's position in the page, the page's link density)
are the piece's.

Every page up to :data:`PIECE_ABOVE` (the reference adapters' size limit; every page of the
datasets in ``../shared`` but a handful of WCXB's) is extracted whole, exactly as before. A piece
is within that limit, so the adapters and a stack's members take the pieces of a page they would
refuse whole (15 of WCXB's development pages are over it, mostly inline images and scripts: the
stack extracted nothing from them), and a member's vote on a piece is aligned within a bounded
memory (:data:`boilerbench.extractors.members.VOTE_ALIGNMENT_CELLS`). trafilatura itself refuses
pages over 20 MB (its ``MAX_FILE_SIZE``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from boilerbench.datasets.page import Page
from boilerbench.html_tree import TAG, VOID_ELEMENTS

#: Pages with more characters of HTML than this are extracted in pieces: the reference adapters' limit.
PIECE_ABOVE = 2_000_000
#: The largest piece, in characters of HTML (a piece is cut in the second half of its span).
PIECE_CHARS = 1_000_000
#: Elements whose content is raw text: tags inside them are not tags, so they are skipped whole.
RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes noscript plaintext".split())
#: Elements whose end tag may be left out: not counted as open, so that a page of unclosed
#: ``<p>`` and ``<li>`` does not look ever deeper.
OPTIONAL_END = frozenset("p li dt dd tr td th option optgroup thead tbody tfoot colgroup rb rt rtc rp".split())
#: The most open elements a piece re-opens (a page of thousands of unclosed ``<div>``: the innermost).
MAX_REOPENED = 64
_TOKEN = re.compile(r"<!--|" + TAG.pattern)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.I | re.S)


def _raw_end(html: str, name: str, pos: int) -> int:
    """Where the raw-text element ``name`` whose start tag ends at ``pos`` ends (after its end tag)."""
    end = re.compile(rf"</{re.escape(name)}\s*>", re.I).search(html, pos)
    return len(html) if end is None else end.end()


def html_pieces(html: str, piece_chars: int = PIECE_CHARS) -> Iterator[str]:
    """``html`` cut into pieces of at most about ``piece_chars`` characters (one piece, ``html``
    itself, when it is no longer), each after the first opening with the page's title and the
    start tags of the elements open where it was cut (module docstring).

    A cut is made in the second half of a piece's span, after an end tag or before a start tag,
    where the fewest elements are open (the latest such place); where the span holds no tag it is
    cut at its last whitespace, else at ``piece_chars``. A raw-text element (a script) longer than
    a piece is kept whole, in a piece longer than ``piece_chars``: cutting it would make its
    content visible text."""
    if len(html) <= piece_chars:
        yield html
        return
    title = _TITLE.search(html, 0, min(len(html), piece_chars))
    head = f"<title>{title.group(1)}</title>" if title else ""
    opened: list[tuple[str, str]] = []  # (name, start tag) of the elements open at the scan
    start, prefix = 0, ""
    best: tuple[int, int, tuple[tuple[str, str], ...]] | None = None  # (depth, cut, open elements)
    pos = 0

    def consider(cut: int) -> None:
        nonlocal best
        if cut - start > piece_chars // 2 and (best is None or len(opened) <= best[0]):
            best = (len(opened), cut, tuple(opened))

    while True:
        match = _TOKEN.search(html, pos)
        limit = start + piece_chars
        if match is None or match.start() > limit:
            if len(html) - start <= piece_chars:
                yield prefix + html[start:]
                return
            if best is None:  # no cut between elements: at the last whitespace of the text
                space = max(html.rfind(" ", pos, limit), html.rfind("\n", pos, limit))
                cut = pos if pos >= limit else space if space > start else limit
                best = (len(opened), cut, tuple(opened))
            _, cut, kept = best
            yield prefix + html[start:cut]
            if cut >= len(html):
                return
            start, best, pos = cut, None, max(pos, cut)
            prefix = head + "".join(tag for name, tag in kept[-MAX_REOPENED:] if name not in ("html", "head"))
            continue
        if match.group(0) == "<!--":
            close = html.find("-->", match.end())
            pos = len(html) if close < 0 else close + 3
            continue
        closing, name, tag = match.group(1), match.group(2).lower(), match.group(0)
        pos = match.end()
        if closing:
            for depth in range(len(opened) - 1, -1, -1):
                if opened[depth][0] == name:
                    del opened[depth:]
                    consider(pos)
                    break
        elif name in RAW_TEXT and not tag.endswith("/>"):
            consider(match.start())
            pos = _raw_end(html, name, pos)
        elif not (name in VOID_ELEMENTS or name in OPTIONAL_END or tag.endswith("/>")):
            consider(match.start())
            opened.append((name, tag))


def piece_pages(page: Page, above: int = PIECE_ABOVE, piece_chars: int = PIECE_CHARS) -> Iterator[Page]:
    """``page`` itself when it is at most ``above`` characters, else its pieces
    (:func:`html_pieces`) as pages with its URL, language hint, source and gold text, one at a
    time (a piece's tree is freed before the next is parsed)."""
    if len(page.html) <= above:
        yield page
        return
    for k, html in enumerate(html_pieces(page.html, piece_chars)):
        yield Page(
            id=f"{page.id}#piece{k}",
            html=html,
            gold_text=page.gold_text,
            url=page.url,
            meta=page.meta,
            source=page.source,
            page_type=page.page_type,
        )
