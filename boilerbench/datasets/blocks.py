"""The canonical segmentation of a page into blocks: the leaves of Web2Text's collapsed DOM.

Web2Text (Vogels et al. 2018, sec. 3.1; ``CDOM.scala`` in the authors' code) parses the body,
drops nodes that carry no text (``script``, ``style``, ``br``, ``img``, ...), and merges every
element that has exactly one child into that child. Merging never creates or removes a leaf,
so the leaves are exactly the non-blank text nodes outside the skipped tags, in document
order, each under the tag path of its ancestors. In lxml a text node is an element's
``.text`` or ``.tail``; a block remembers which one (its *anchor* element and ``is_tail``).

Besides the text, each block records what later algorithms need without walking the tree
again: its tag path, the number of tag events (start or end tags) since the previous block
(BTE's tag tokens, Victor's split features), and the separator that a browser would show
before it (a newline at a block-level tag, a space at whitespace, nothing inside a word).
Extractors may read the lxml tree (``root``) but must not modify it: it is shared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from lxml import etree

from boilerbench.html_tree import body_of, parse_html
from boilerbench.language import detect
from boilerbench.text import collapse_whitespace
from boilerbench.tokenizer import CJK, normalise_tokens, tokenizer_for

#: A Han or kana character, or a run of other non-space characters: a word of :func:`count_words`.
_WORD = re.compile(f"[{CJK}]|[^\\s{CJK}]+")


def count_words(text: str) -> int:
    """Whitespace-separated words, each Han or kana character counted as one word."""
    return len(text.split()) if text.isascii() else len(_WORD.findall(text))


#: Tags whose subtree is not part of the collapsed DOM (Web2Text's ``skipTags`` plus comments,
#: which the parser already removes, and a few more non-rendered elements). The blocks are the
#: text a browser shows without JavaScript and without plugins, so ``noscript`` content (Discourse
#: forums put their posts there), the fallback content of ``object`` and ``applet`` (a Flash
#: video's caption) and the text of ``button`` elements are kept: they are rendered. Keeping
#: ``button`` also matters because libxml2 does not close a ``<button>`` left open around
#: unclosed ``<div>``s as an HTML5 parser does, and would put the rest of the page inside it.
SKIP_TAGS = frozenset(
    "head title meta link script style template iframe frame frameset embed "
    "br hr img input select option textarea checkbox radio video audio svg math "
    "canvas map area param source track".split()
)

#: Block-level tags: text on either side of one of these is on a different line.
BLOCK_TAGS = frozenset(
    "address article aside blockquote body canvas caption center dd details dialog dir div dl dt "
    "fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html "
    "iframe input legend li main menu nav noscript ol optgroup option p pre section select summary "
    "table tbody td textarea tfoot th thead tr ul video br".split()
)


@dataclass(eq=False)
class Blocks:
    """The blocks of one page, in document order.

    ``texts[i]`` is block i's whitespace-collapsed text; ``anchors[i]`` the lxml element whose
    ``.text`` (``is_tail[i]`` False) or ``.tail`` (True) holds it; ``paths[i]`` the tag path from
    the root to the element that contains the text node (``"html/body/div/p"``);
    ``tags_before[i]`` the number of start and end tags between block i-1 and block i
    (``tags_after`` counts those after the last block); ``seps[i]`` the separator shown before
    block i (``"\\n"``, ``" "`` or ``""``).
    """

    texts: list[str]
    anchors: list
    is_tail: np.ndarray
    paths: list[str]
    tags_before: np.ndarray
    tags_after: int
    seps: list[str]
    root: etree._Element | None = field(default=None, repr=False)
    #: the page's language hint (``Page.tokenizer`` passes its tokenizer name); None = detect
    language: str | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def owner(self, i: int) -> etree._Element:
        """The element that contains block i's text node (the parent of a tail)."""
        anchor = self.anchors[i]
        return anchor.getparent() if self.is_tail[i] else anchor

    @cached_property
    def tokenizer(self) -> str:
        """The page's tokenizer (:mod:`boilerbench.tokenizer`): from the language hint, else
        detected from all the blocks' text at once (per page, never per block)."""
        return tokenizer_for(self.language, "\n".join(self.texts))

    @cached_property
    def tokens(self) -> list[list[str]]:
        """Normalised tokens of each block (the aligner's and metrics' tokens)."""
        tokenizer = self.tokenizer
        return [normalise_tokens(t, tokenizer) for t in self.texts]

    @cached_property
    def word_counts(self) -> np.ndarray:
        """Words per block (raw, not normalised): whitespace-separated, each Han or kana character
        a word of its own (Chinese and Japanese put no space between words, and a paragraph must
        not weigh as one word beside a one-word menu link), so ASCII and other spaced text counts as before."""
        return np.fromiter((count_words(t) for t in self.texts), dtype=np.int64, count=len(self.texts))

    @cached_property
    def detected_language(self) -> str:
        """The language identified from the blocks' text (:func:`boilerbench.language.detect`): what
        an extractor may use on a page (no dataset label, no gold), identified once per page."""
        return detect("\n".join(self.texts))

    def join(self, mask: np.ndarray | None = None) -> str:
        """The text of the selected blocks (all when ``mask`` is None), with the page's separators.

        Between two selected blocks the strongest separator of the skipped stretch is used, so
        that dropping a line never glues two words together.
        """
        parts: list[str] = []
        pending = ""
        for i, text in enumerate(self.texts):
            sep = self.seps[i]
            if sep == "\n" or (sep == " " and pending == ""):
                pending = sep
            if mask is None or mask[i]:
                if parts:
                    parts.append(pending)
                parts.append(text)
                pending = ""
        return "".join(parts)


def segment(html: str, language: str | None = None) -> Blocks:
    """Parse ``html`` and return its canonical :class:`Blocks` (empty for a page with no text);
    ``language`` is the page's language hint for tokenization."""
    blocks = segment_tree(parse_html(html))
    blocks.language = language
    return blocks


def segment_tree(root: etree._Element | None) -> Blocks:
    """Segment an already parsed lxml tree (see :func:`segment`)."""
    texts: list[str] = []
    anchors: list = []
    is_tail: list[bool] = []
    paths: list[str] = []
    tags_before: list[int] = []
    seps: list[str] = []

    body = body_of(root)
    if body is None:
        return Blocks(texts, anchors, np.zeros(0, bool), paths, np.zeros(0, np.int64), 0, seps, root)

    prefix = _path_prefix(body)
    path_stack: list[str] = []
    tag_events = 0
    # What lies between the previous block and the next one: "\n" after a block-level tag,
    # " " after whitespace, "" when the text continues inside a word.
    pending = ""
    prev_raw_end_ws = False

    def emit(raw: str, anchor, tail: bool, path: str) -> None:
        nonlocal tag_events, pending, prev_raw_end_ws
        if raw.isspace():
            if pending == "":
                pending = " "
            return
        text = collapse_whitespace(raw)
        if texts:
            sep = pending
            if sep == "" and (prev_raw_end_ws or raw[0].isspace()):
                sep = " "
        else:
            sep = ""
        texts.append(text)
        anchors.append(anchor)
        is_tail.append(tail)
        paths.append(path)
        tags_before.append(tag_events)
        seps.append(sep)
        tag_events = 0
        pending = ""
        prev_raw_end_ws = raw[-1].isspace()

    walker = etree.iterwalk(body, events=("start", "end"))
    for event, el in walker:
        tag = el.tag if isinstance(el.tag, str) else ""
        name = tag.lower()
        if event == "start":
            tag_events += 1
            if name in BLOCK_TAGS:
                pending = "\n"
            parent_path = path_stack[-1] if path_stack else prefix
            path = f"{parent_path}/{name}" if parent_path else name
            path_stack.append(path)
            if not name or name in SKIP_TAGS:
                walker.skip_subtree()
                continue
            if el.text:
                emit(el.text, el, False, path)
        else:
            tag_events += 1
            if name in BLOCK_TAGS:
                pending = "\n"
            path_stack.pop()
            if el.tail and el is not body:
                emit(el.tail, el, True, path_stack[-1])

    return Blocks(
        texts,
        anchors,
        np.asarray(is_tail, dtype=bool),
        paths,
        np.asarray(tags_before, dtype=np.int64),
        tag_events,
        seps,
        root,
    )


def _path_prefix(body: etree._Element) -> str:
    """Tag path of ``body``'s ancestors (``"html"`` for a normal page)."""
    names = [a.tag.lower() for a in body.iterancestors() if isinstance(a.tag, str)]
    return "/".join(reversed(names))
