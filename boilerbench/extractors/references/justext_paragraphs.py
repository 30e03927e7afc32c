"""jusText's paragraphs and their classification (Pomikálek 2011, ch. 4), computed once each.

The same algorithm as ``justext.core`` from ``ParagraphMaker`` to
``revise_paragraph_classification``, with the same constants and the same output, only faster:
jusText's ``Paragraph.text`` joins and normalises the paragraph's text nodes on every read
(about ten times a paragraph across the classification), where here it is computed once; its
whitespace normalisation calls back into Python for every run of whitespace, where here a text
without a line break takes one regular-expression substitution; the tree is walked with a stack
instead of through lxml's SAX producer. ``tests/test_justext_paragraphs.py`` checks the output
against the library's on hand-made pages and, with ``BOILERBENCH_DATA``, on the datasets' pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lxml import etree

#: jusText's defaults (``justext.core``): characters and stopword densities of its thresholds.
MAX_LINK_DENSITY = 0.2
LENGTH_LOW = 70
LENGTH_HIGH = 200
STOPWORDS_LOW = 0.30
STOPWORDS_HIGH = 0.32
MAX_HEADING_DISTANCE = 200
#: The tags that end a paragraph and start the next (``justext.core.PARAGRAPH_TAGS``).
PARAGRAPH_TAGS = frozenset(
    {
        "body", "blockquote", "caption", "center", "col", "colgroup", "dd", "div", "dl", "dt",
        "fieldset", "form", "legend", "optgroup", "option", "p", "pre", "table", "td", "textarea",
        "tfoot", "th", "thead", "tr", "ul", "li", "h1", "h2", "h3", "h4", "h5", "h6",
    }
)  # fmt: skip
HEADING = re.compile(r"\bh\d\b")
WHITESPACE = re.compile(r"\s+")


def _run(match: re.Match[str]) -> str:
    run = match.group()
    return "\n" if "\n" in run or "\r" in run else " "


def normalize_whitespace(text: str) -> str:
    """jusText's ``normalize_whitespace``: a run of whitespace becomes one line feed when it
    holds a line break, else one space."""
    if "\n" not in text and "\r" not in text:
        return WHITESPACE.sub(" ", text)
    return WHITESPACE.sub(_run, text)


@dataclass(eq=False)
class Paragraph:
    """A block of text between paragraph tags: the tags on its path when it started, its text
    nodes, the characters of those inside links, and its inline tags; ``text`` once it ends."""

    dom_path: str
    text_nodes: list[str] = field(default_factory=list)
    chars_count_in_links: int = 0
    tags_count: int = 0
    text: str = ""
    heading: bool = False
    cf_class: str = ""
    class_type: str = ""

    @property
    def is_boilerplate(self) -> bool:
        return self.class_type != "good"


def make_paragraphs(root: Any) -> list[Paragraph]:
    """The paragraphs of a (cleaned) lxml tree, as ``justext.core.ParagraphMaker`` reads the
    SAX events of ``lxml.sax.saxify``: an element's start, its text, its children, its end and
    its tail; comments and processing instructions give only their tail."""
    paragraphs: list[Paragraph] = []
    path: list[str] = []
    state = {"link": False, "br": False}
    paragraph = Paragraph("")

    def start_new() -> None:
        nonlocal paragraph
        paragraph.text = normalize_whitespace("".join(paragraph.text_nodes).strip())
        if paragraph.text:  # jusText's test, ``paragraph and paragraph.contains_text()``: len(text) > 0
            paragraphs.append(paragraph)
        paragraph = Paragraph(".".join(path))

    def characters(content: str | None) -> None:
        if not content or content.isspace():
            return
        text = normalize_whitespace(content)
        paragraph.text_nodes.append(text)
        if state["link"]:
            paragraph.chars_count_in_links += len(text)
        state["br"] = False

    def start(name: str) -> None:
        path.append(name)
        if name in PARAGRAPH_TAGS or (name == "br" and state["br"]):
            if name == "br":
                paragraph.tags_count -= 1
            start_new()
            return
        state["br"] = name == "br"
        if state["br"]:
            paragraph.text_nodes.append(" ")
        elif name == "a":
            state["link"] = True
        paragraph.tags_count += 1

    def end(name: str) -> None:
        path.pop()
        if name in PARAGRAPH_TAGS:
            start_new()
        if name == "a":
            state["link"] = False

    for sibling in _instruction_siblings(root, "getprevious")[::-1]:
        characters(sibling.tail)
    _walk(root, start, characters, end)
    for sibling in _instruction_siblings(root, "getnext"):
        characters(sibling.tail)
    start_new()
    return paragraphs


def _walk(
    root: Any, start: Callable[[str], None], characters: Callable[[str | None], None], end: Callable[[str], None]
) -> None:
    """``lxml.sax.saxify``'s events for ``root``, from a stack instead of recursion."""
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        tag = node.tag
        if done:
            end(_local_name(tag))
            characters(node.tail)
            continue
        if not isinstance(tag, str):  # a comment or a processing instruction
            characters(node.tail)
            continue
        start(_local_name(tag))
        characters(node.text)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))


def _instruction_siblings(root: Any, step: str) -> list[Any]:
    """The processing instructions next to ``root`` on one side, nearest first (``saxify`` reads
    them before and after it)."""
    found = []
    sibling = getattr(root, step)()
    while sibling is not None and sibling.tag is etree.ProcessingInstruction:
        found.append(sibling)
        sibling = getattr(sibling, step)()
    return found


def _local_name(tag: str) -> str:
    return tag.rpartition("}")[2] if tag.startswith("{") else tag


@lru_cache(maxsize=128)
def _lowered(stoplist: frozenset[str]) -> frozenset[str]:
    return frozenset(word.lower() for word in stoplist)


def classify_paragraphs(
    paragraphs: list[Paragraph],
    stoplist: frozenset[str],
    stopwords_low: float = STOPWORDS_LOW,
    stopwords_high: float = STOPWORDS_HIGH,
) -> None:
    """jusText's context-free classification (``classify_paragraphs``, its other settings at
    their defaults): bad, short, near-good or good by link density, length and stopword density."""
    stopwords = _lowered(stoplist)
    for paragraph in paragraphs:
        text = paragraph.text
        length = len(text)
        words = text.split()
        density = sum(word.lower() in stopwords for word in words) / len(words) if words else 0
        links = paragraph.chars_count_in_links / length if length else 0
        paragraph.heading = bool(HEADING.search(paragraph.dom_path))
        if links > MAX_LINK_DENSITY or "\xa9" in text or "&copy" in text or "select" in paragraph.dom_path:
            paragraph.cf_class = "bad"
        elif length < LENGTH_LOW:
            paragraph.cf_class = "bad" if paragraph.chars_count_in_links > 0 else "short"
        elif density >= stopwords_high:
            paragraph.cf_class = "good" if length > LENGTH_HIGH else "neargood"
        elif density >= stopwords_low:
            paragraph.cf_class = "neargood"
        else:
            paragraph.cf_class = "bad"


def _neighbour(i: int, paragraphs: list[Paragraph], ignore_neargood: bool, step: int) -> str:
    """The class at the end of the run of short (and near-good) paragraphs from ``i`` towards
    ``step``; bad past the page's edge."""
    boundary = -1 if step < 0 else len(paragraphs)
    while i + step != boundary:
        i += step
        kind = paragraphs[i].class_type
        if kind in ("good", "bad") or (kind == "neargood" and not ignore_neargood):
            return kind
    return "bad"


def _precedes_good(i: int, paragraphs: list[Paragraph]) -> bool:
    """Whether a good paragraph follows paragraph ``i`` within :data:`MAX_HEADING_DISTANCE`
    characters (counted before each paragraph is looked at)."""
    distance = 0
    for later in paragraphs[i + 1 :]:
        if distance > MAX_HEADING_DISTANCE:
            return False
        if later.class_type == "good":
            return True
        distance += len(later.text)
    return False


def revise_paragraph_classification(paragraphs: list[Paragraph]) -> None:
    """jusText's context-sensitive classification (``revise_paragraph_classification``): short
    paragraphs by their neighbours, near-good ones between bad ones, and bad headings before good
    text. jusText's first pass, short headings before good text, looks at the classes of the
    paragraphs after the heading before it has copied them (they are all still empty), so it
    never changes a class: it is left out."""
    for paragraph in paragraphs:
        paragraph.class_type = paragraph.cf_class
    revised = {}
    for i in _of_class(paragraphs, "short"):
        before, after = _neighbour(i, paragraphs, True, -1), _neighbour(i, paragraphs, True, 1)
        if before == after:
            revised[i] = before
        elif (before == "bad" and _neighbour(i, paragraphs, False, -1) == "neargood") or (
            after == "bad" and _neighbour(i, paragraphs, False, 1) == "neargood"
        ):
            revised[i] = "good"
        else:
            revised[i] = "bad"
    for i, kind in revised.items():
        paragraphs[i].class_type = kind
    for i in _of_class(paragraphs, "neargood"):
        bad = _neighbour(i, paragraphs, True, -1) == "bad" and _neighbour(i, paragraphs, True, 1) == "bad"
        paragraphs[i].class_type = "bad" if bad else "good"
    for i, paragraph in enumerate(paragraphs):
        if paragraph.heading and paragraph.class_type == "bad" and paragraph.cf_class != "bad":
            paragraph.class_type = "good" if _precedes_good(i, paragraphs) else "bad"


def _of_class(paragraphs: list[Paragraph], kind: str) -> list[int]:
    """The indices of the paragraphs of class ``kind`` now."""
    return [i for i, p in enumerate(paragraphs) if p.class_type == kind]
