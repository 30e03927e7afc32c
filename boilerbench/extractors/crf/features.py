"""Victor's block features (papers/002, slides "WPC - MARKUP / CONTENT / DOCUMENT znaky").

Victor splits the page into a text block at every tag (``<p>Hello<b>world</b>!</p>`` gives
three blocks): exactly the canonical blocks (the non-blank text nodes), so no mapping is needed.
Per block, with absolute counts as ``log1p`` (CRF weights are regularised, so features should
share a scale):

- markup: ``container.{a,p,u,img,class-header,class-bold,class-italic,class-list,class-form}``
  = 1 when an ancestor is of that kind (``img``: the holding element has an image);
  ``split.{p,br,hr,class-inline,class-block}`` = number of such tags (start and end tags; one
  for the void ``br`` and ``hr``) between the previous block and this one;
- content: ``char.{alpha,num,punct,upper,space}-rel`` and ``char.num-abs``;
  ``token.{alpha,num,mix,other}-rel``, ``token.{num,mix,other}-abs`` (numeric, mixed and
  non-word counts) and ``token.count``; ``sentence.count`` and ``sentence.avg-length`` (naive
  split at ``. ! ?``, as Victor's); ``sentence-begin`` (starts with a capital or digit) and
  ``sentence-end`` (ends with ``. ! ?``, a quote after them allowed); ``first-duplicate`` and
  ``duplicate-count`` (same text elsewhere on the page); ``regexp.{url,date,time}`` = the number
  of the first pattern that matches (categorical); ``bullet`` = the shape of a leading list
  bullet (categorical);
- group: ``{div,td}-group.word-ratio``: the share of the page's words in the block's group, the
  blocks directly under the same nearest ``div`` (``td``);
- document: ``position`` (relative), ``document.{word,sentence,block}-count``,
  ``document.max-{div,td}-group`` (the largest group share).

Victor's three published settings (``FEATURE_SETS``): all features; without the word ratios
and the numeric, mixed and non-word counts; and additionally without ``regexp.url`` and
``document.word-count``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter

from lxml import etree

from boilerbench.cache import cache_dir, cached_text, code_version
from boilerbench.datasets.blocks import BLOCK_TAGS, SKIP_TAGS, Blocks
from boilerbench.datasets.page import Page
from boilerbench.html_tree import body_of

CONTAINER_CLASSES = {
    "a": {"a"},
    "p": {"p"},
    "u": {"u"},
    "class-header": {"h1", "h2", "h3", "h4", "h5", "h6"},
    "class-bold": {"b", "strong"},
    "class-italic": {"i", "em"},
    "class-list": {"ul", "ol", "li", "dl", "dt", "dd", "menu", "dir"},
    "class-form": {"form", "fieldset", "label", "select", "option", "textarea", "button", "input"},
}
INLINE_TAGS = frozenset(
    "a abbr acronym b bdo big cite code dfn em font i kbd q s samp small span strike strong sub sup tt u var "
    "label".split()
)
_VOID_SPLITS = {"br": "split.br", "hr": "split.hr"}

_WORD_RATIO = ("div-group.word-ratio", "td-group.word-ratio")
_COUNTS = ("token.num-abs", "token.mix-abs", "token.other-abs")
FEATURE_SETS = {
    "all": (),
    "no_counts": (*_WORD_RATIO, *_COUNTS),
    "no_counts_url": (*_WORD_RATIO, *_COUNTS, "regexp.url", "document.word-count"),
}

#: Victor's e-mail and domain patterns, ``\b\S+@\S+\.\w+`` and ``\b\S+\.(?:com|...)\b``, as
#: patterns that match the same texts in linear time: those backtrack from every word boundary of a
#: run of non-space characters to its end, quadratic in the run's length (1 s on a 20,000-character
#: run; a quarter of an hour, extrapolated, on the 580,000-character block that ``benchmarks/fuzz.py``
#: found). A ``\b`` at or before a position of a run exists
#: exactly when the run holds a word character there or before, so each run is read once from its
#: start: non-word characters, its first word character, then the rest; for the e-mail, the first
#: ``@`` after that character is the one to take (any later one only leaves less room for the dot).
#: ``tests/test_crf.py`` checks that each pair agrees on generated texts.
_RUN_START = r"(?<!\S)[^\s\w]*\w"
URL_PATTERNS = (
    r"https?://\S+",
    r"\bwww\.\S+",
    _RUN_START + r"[^\s@]*@\S+?\.\w",
    _RUN_START + r"\S*?\.(?:com|org|net|edu|gov|uk)\b",
)
REGEXPS = {
    "url": [re.compile(p, re.I) for p in URL_PATTERNS],
    "date": [
        re.compile(p, re.I)
        for p in (
            r"\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b",
            r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+\d{2,4}\b",
            r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{2,4}\b",
            r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
        )
    ],
    "time": [re.compile(p, re.I) for p in (r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:am|pm)?\b", r"\b\d{1,2}\s*(?:am|pm)\b")],
}
_BULLETS = (
    ("num-dot", re.compile(r"^\d{1,3}\.\s")),
    ("num-paren", re.compile(r"^\(?\d{1,3}\)\s")),
    ("letter-paren", re.compile(r"^\(?[a-z]\)\s", re.I)),
    ("dash", re.compile(r"^[-\u2013\u2014]\s")),
    ("star", re.compile(r"^[*\u2022\u00b7\u25cf\u25aa>]\s?")),
)
_SENTENCE_SPLIT = re.compile(r"[.!?]+(?:\s+|$)")


def split_counts(blocks: Blocks) -> list[Counter]:
    """Per block, the tags of each split class between the previous block and this one.

    Walks the tree as :func:`~boilerbench.datasets.blocks.segment_tree` does, so the i-th
    non-blank text node met is block i.
    """
    counts: list[Counter] = []
    body = body_of(blocks.root)
    if body is None or len(blocks) == 0:
        return [Counter() for _ in range(len(blocks))]
    pending: Counter = Counter()

    def see(tag: str, start: bool) -> None:
        if tag in _VOID_SPLITS:
            if start:
                pending[_VOID_SPLITS[tag]] += 1
        elif tag == "p":
            pending["split.p"] += 1
        elif tag in INLINE_TAGS:
            pending["split.class-inline"] += 1
        elif tag in BLOCK_TAGS:
            pending["split.class-block"] += 1

    def text(raw: str | None) -> None:
        nonlocal pending
        if raw and not raw.isspace():
            counts.append(pending)
            pending = Counter()

    walker = etree.iterwalk(body, events=("start", "end"))
    for event, el in walker:
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if event == "start":
            see(tag, True)
            if not tag or tag in SKIP_TAGS:
                walker.skip_subtree()
                continue
            text(el.text)
        else:
            see(tag, False)
            if el is not body:
                text(el.tail)
    if len(counts) != len(blocks):
        raise RuntimeError(f"split walk found {len(counts)} text nodes for {len(blocks)} blocks")
    return counts


def _token_kind(token: str) -> str:
    core = token.strip(".,;:!?\"'()[]{}")
    if core.isalpha():
        return "alpha"
    has_digit = any(c.isdigit() for c in core)
    if has_digit and re.fullmatch(r"[\d.,%/$:+-]+", core):
        return "num"
    if has_digit and any(c.isalpha() for c in core):
        return "mix"
    return "other"


def _first_match(patterns: list[re.Pattern], text: str) -> int:
    for k, pattern in enumerate(patterns, start=1):
        if pattern.search(text):
            return k
    return 0


def _bullet(text: str) -> str:
    for name, pattern in _BULLETS:
        if pattern.match(text):
            return name
    return "none"


def _log(n: float) -> float:
    return math.log1p(n)


def _groups(blocks: Blocks, tag: str) -> list:
    """The group key of each block: its nearest ``tag`` ancestor (None when it has none)."""
    keys = []
    for i in range(len(blocks)):
        el = blocks.owner(i)
        while el is not None and (not isinstance(el.tag, str) or el.tag.lower() != tag):
            el = el.getparent()
        keys.append(el)
    return keys


def block_features(blocks: Blocks, exclude: tuple[str, ...] | frozenset[str] = ()) -> list[dict[str, float]]:
    """Victor's features of every block, as python-crfsuite item dicts (name -> value)."""
    n = len(blocks)
    if n == 0:
        return []
    texts = blocks.texts
    words = [len(t.split()) for t in texts]
    total_words = max(sum(words), 1)
    sentences = [len([s for s in _SENTENCE_SPLIT.split(t) if s.strip()]) or 1 for t in texts]
    duplicates = Counter(texts)
    seen: set[str] = set()
    splits = split_counts(blocks)

    group_share: dict[str, list[float]] = {}
    max_group: dict[str, float] = {}
    for tag in ("div", "td"):
        keys = _groups(blocks, tag)
        sums: dict = {}
        for key, w in zip(keys, words, strict=True):
            sums[id(key)] = sums.get(id(key), 0) + w
        group_share[tag] = [sums[id(k)] / total_words for k in keys]
        max_group[tag] = max(group_share[tag])

    document = {
        "document.word-count": _log(total_words),
        "document.sentence-count": _log(sum(sentences)),
        "document.block-count": _log(n),
        "document.max-div-group": max_group["div"],
        "document.max-td-group": max_group["td"],
    }
    features: list[dict[str, float]] = []
    for i, text in enumerate(texts):
        f: dict[str, float] = {"bias": 1.0, "position": i / max(n - 1, 1), **document}
        path = set(blocks.paths[i].split("/"))
        for name, tags in CONTAINER_CLASSES.items():
            if path & tags:
                f[f"container.{name}"] = 1.0
        owner = blocks.owner(i)
        if owner is not None and owner.find(".//img") is not None:
            f["container.img"] = 1.0
        for name, count in splits[i].items():
            f[name] = _log(count)

        n_chars = len(text)
        alpha = sum(map(str.isalpha, text))
        digits = sum(map(str.isdigit, text))
        spaces = text.count(" ")
        punct = n_chars - alpha - digits - spaces
        upper = sum(map(str.isupper, text))
        f["char.count"] = _log(n_chars)
        f["char.alpha-rel"] = alpha / n_chars
        f["char.num-rel"] = digits / n_chars
        f["char.num-abs"] = _log(digits)
        f["char.punct-rel"] = punct / n_chars
        f["char.space-rel"] = spaces / n_chars
        f["char.upper-rel"] = upper / alpha if alpha else 0.0

        tokens = text.split()
        kinds = Counter(_token_kind(t) for t in tokens)
        n_tokens = max(len(tokens), 1)
        f["token.count"] = _log(len(tokens))
        for kind in ("alpha", "num", "mix", "other"):
            f[f"token.{kind}-rel"] = kinds[kind] / n_tokens
        for kind in ("num", "mix", "other"):
            f[f"token.{kind}-abs"] = _log(kinds[kind])

        f["sentence.count"] = _log(sentences[i])
        f["sentence.avg-length"] = _log(words[i] / sentences[i])
        first = text[0]
        if first.isupper() or first.isdigit():
            f["sentence-begin"] = 1.0
        if text.rstrip("\"'\u201d\u2019)").endswith((".", "!", "?")):
            f["sentence-end"] = 1.0
        if duplicates[text] > 1:
            f["duplicate-count"] = _log(duplicates[text] - 1)
            if text not in seen:
                f["first-duplicate"] = 1.0
        seen.add(text)
        for name, patterns in REGEXPS.items():
            f[f"regexp.{name}={_first_match(patterns, text)}"] = 1.0
        f[f"bullet={_bullet(text)}"] = 1.0
        f["div-group.word-ratio"] = group_share["div"][i]
        f["td-group.word-ratio"] = group_share["td"][i]
        features.append(f)
    return _without(features, exclude)


def _without(features: list[dict[str, float]], exclude: tuple[str, ...] | frozenset[str]) -> list[dict[str, float]]:
    """``features`` less the ones whose name (before any ``=``) is in ``exclude``."""
    if not exclude:
        return features
    return [{k: v for k, v in f.items() if k.split("=", 1)[0] not in exclude} for f in features]


def page_features(page: Page, exclude: tuple[str, ...] | frozenset[str] = ()) -> list[dict[str, float]]:
    """:func:`block_features` of ``page``'s blocks, disk-cached per page as JSON when a cache is
    active (keyed by the page's HTML and this module's code version, segmentation included): one
    artefact shared by the CRF and the stack, computed once per page for every feature setting."""
    if cache_dir() is None:
        return block_features(page.blocks, exclude)
    text = cached_text(
        "crf_features", code_version(__name__), (page.html,), lambda: json.dumps(block_features(page.blocks))
    )
    return _without(json.loads(text), exclude)
