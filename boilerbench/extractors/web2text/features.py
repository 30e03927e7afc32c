"""Web2Text's block and edge features over the collapsed DOM (Vogels et al. 2018, sec. 3.3).

The canonical blocks are the leaves of Web2Text's collapsed DOM (CDOM): an element with
exactly one child that carries text is merged with that child. So an element *branches* when
it has at least two text-carrying children (child elements with text below them, or non-blank
text nodes of its own); a block's CDOM parent is its owner element when that branches, else
the nearest branching ancestor; its grandparent the next branching ancestor above; the root
is ``<body>``. The tags of a CDOM node are those of the elements merged into it.

Block features (128), after the authors' ``LeafBlockExtractor``, ``NodeBlockExtractor``,
``TagExtractor`` and ``DuplicateCountsExtractor`` (``nl.tvogels.boilerplate``, the version of
the paper, without the later author-detection features):

* duplicates (3): the block's text occurs on another block, on more than 10 others; share of
  blocks with the same class path (tag path with class attributes);
* leaf statistics (26): see :data:`LEAF_FEATURES`; the leaf's share of the page's characters
  (commented out in the authors' code) and its link density make up the 128;
* node statistics (20 each, :data:`NODE_FEATURES`) of the parent, the grandparent and the root;
* parent tag one-hot (20) and leaf tag one-hot (19): the authors' tag lists (the parent list
  names ``ul`` twice; ``th`` takes the second place).

Edge features (25) for each pair of neighbouring blocks: CDOM tree distance 2, 3, 4, more
than 4 (one-hot), a block break (a block-level tag) between them, and the 20 node statistics
of their lowest common ancestor.

A "year" is a number from 1800 to 2099 (the authors' pattern takes any four digits, which also
fires on prices and phone numbers). Booleans are +1/-1 and counts are logged and clipped as the
authors do; the authors' fixed z-score constants are not used: :class:`Standardiser` is fitted on the training pages.
Everything is computed with a few regular-expression scans of the page's joined text and
numpy prefix sums over the blocks, not per block in Python.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from boilerbench.cache import cached_array, code_version
from boilerbench.datasets.blocks import Blocks
from boilerbench.errors import import_optional
from boilerbench.extractors.dom_stats import DomStats, dom_stats, dom_walk
from boilerbench.language import justext_stoplist
from boilerbench.tokenizer import CJK

#: Web2Text's stopwords (``Settings.scala``: the usual English list without "and" and "by").
STOPWORDS = frozenset(
    "a about above after again against all am an any are as at be because been before being below between "
    "both but cannot could did do does doing down during each few for from further had has have having he "
    "her here hers herself him himself his how i if in into is it its itself me more most my myself no nor "
    "not of off on once only or other ought our ours ourselves out over own same she should so some such "
    "than that the their theirs them themselves then there these they this those through to too under until "
    "up very was we were what when where which while who whom why with would you your yours yourself "
    "yourselves".split()
)
PUNCTUATION = ".,?;:!"
LEAF_TAGS = (
    "a",
    "p",
    "td",
    "b",
    "li",
    "span",
    "i",
    "tr",
    "div",
    "strong",
    "em",
    "h3",
    "h2",
    "table",
    "h4",
    "small",
    "sup",
    "h1",
    "blockquote",
)
PARENT_TAGS = (
    "td",
    "div",
    "p",
    "tr",
    "table",
    "body",
    "ul",
    "span",
    "li",
    "blockquote",
    "b",
    "small",
    "a",
    "ol",
    "th",
    "i",
    "form",
    "dl",
    "strong",
    "pre",
)
FORM_TAGS = frozenset({"input", "select", "textarea", "button"})

DUPLICATE_FEATURES = ("has_duplicate", "has_10_duplicates", "same_class_path_share")
LEAF_FEATURES = (
    "has_word",
    "log_n_words",
    "avg_word_length",
    "has_stopword",
    "stopword_ratio",
    "log_n_characters",
    "has_punctuation",
    "n_punctuation",
    "log_punctuation_ratio",
    "has_numeric",
    "numeric_ratio",
    "log_avg_sentence_length",
    "has_multiple_sentences",
    "relative_position",
    "relative_position_sq",
    "ends_with_punctuation",
    "ends_with_question_mark",
    "contains_copyright",
    "contains_email",
    "contains_url",
    "contains_year",
    "capitalised_ratio",
    "capitalised_ratio_sq",
    "capitalised_ratio_cube",
    "link_density",
    "page_share",
)
NODE_FEATURES = (
    "body_percentage",
    "link_density",
    "avg_word_length",
    "has_stopword",
    "stopword_ratio",
    "log_n_characters",
    "log_punctuation_ratio",
    "has_numeric",
    "numeric_ratio",
    "log_avg_sentence_length",
    "ends_with_punctuation",
    "ends_with_question_mark",
    "contains_copyright",
    "contains_email",
    "contains_url",
    "contains_year",
    "capitalised_ratio",
    "capitalised_ratio_sq",
    "capitalised_ratio_cube",
    "contains_form",
)
BLOCK_FEATURES = (
    *DUPLICATE_FEATURES,
    *LEAF_FEATURES,
    *(f"parent_{n}" for n in NODE_FEATURES),
    *(f"parent_tag_{t}" for t in PARENT_TAGS),
    *(f"grandparent_{n}" for n in NODE_FEATURES),
    *(f"root_{n}" for n in NODE_FEATURES),
    *(f"leaf_tag_{t}" for t in LEAF_TAGS),
)
EDGE_FEATURES = (
    "tree_distance_2",
    "tree_distance_3",
    "tree_distance_4",
    "tree_distance_more",
    "block_break",
    *(f"ancestor_{n}" for n in NODE_FEATURES),
)

_WORD_OR_SEPARATOR = re.compile(r"\w+|\x00")
_SENTENCE_END = re.compile(r"[.!?]+ (?=\S)")
#: Han and kana characters: one word each in the multilingual rules (Chinese and Japanese put no
#: space between words; a run of them is a sentence, not a word).
_MULTILINGUAL_WORD_OR_SEPARATOR = re.compile(f"[{CJK}]|[^\\W{CJK}]+|\x00")
#: Sentence ends of Latin, Greek, Cyrillic and Arabic text (a mark, then a space) and of Chinese
#: and Japanese text (full-width marks, no space after them).
_MULTILINGUAL_SENTENCE_END = re.compile(r"[.!?\u061f]+ (?=\S)|[\u3002\uff01\uff1f]+(?=.)")
#: Web2Text's punctuation and its full-width (CJK), Arabic and Greek counterparts.
MULTILINGUAL_PUNCTUATION = PUNCTUATION + "\u3002\uff0c\u3001\uff1f\uff01\uff1b\uff1a\u060c\u061b\u061f\u0387"


@dataclass(frozen=True)
class TextRules:
    """What the text features take for a word, a stopword, a sentence end and punctuation.

    :data:`WEB2TEXT_RULES` are the paper's (English stopwords, ``\\w+`` words, ``. ! ?`` and a
    space ending a sentence); :func:`language_rules` gives a page's language its own: jusText's
    stoplist for it (Pomikálek 2011 ships about 100), each Han or kana character a word, and the
    full-width and Arabic marks. ``stopwords=None`` means the language has no stoplist: the
    stopword features are then missing (NaN), not "no stopword", which in English would mean
    boilerplate. ``name`` keys the feature cache.
    """

    name: str
    stopwords: frozenset[str] | None
    words: re.Pattern = _WORD_OR_SEPARATOR
    sentence_end: re.Pattern = _SENTENCE_END
    punctuation: str = PUNCTUATION


WEB2TEXT_RULES = TextRules("web2text", STOPWORDS)


@functools.lru_cache(maxsize=128)
def language_rules(language: str) -> TextRules:
    """The multilingual :class:`TextRules` of an ISO 639-1 ``language`` ("" when unknown)."""
    name = justext_stoplist(language) if language else None
    stopwords = None
    if name is not None:
        justext = import_optional("justext", "jusText", "the stoplists come from jusText: pip install jusText")
        stopwords = frozenset(w.lower() for w in justext.get_stoplist(name))
    return TextRules(
        f"multilingual:{name or 'none'}",
        stopwords,
        _MULTILINGUAL_WORD_OR_SEPARATOR,
        _MULTILINGUAL_SENTENCE_END,
        MULTILINGUAL_PUNCTUATION,
    )


_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s/$.?#]\S*|\bwww\.\w[\w-]*\.\w")
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")
_SEPARATOR = "\x00"


def pm(flag: np.ndarray) -> np.ndarray:
    """Booleans as +1 / -1 (the authors' encoding)."""
    return np.where(flag, 1.0, -1.0)


def _log_clip(values: np.ndarray, low: float, high: float) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.clip(np.log(np.maximum(values, 1e-12)), low, high)


@dataclass
class TextCounts:
    """Per-block counts of :func:`text_counts`; summed over a range of blocks, a node's counts."""

    chars: np.ndarray
    words: np.ndarray
    word_length: np.ndarray
    stopwords: np.ndarray
    capitalised: np.ndarray
    punctuation: np.ndarray
    numeric: np.ndarray
    sentences: np.ndarray
    link_chars: np.ndarray
    copyright: np.ndarray
    email: np.ndarray
    url: np.ndarray
    year: np.ndarray
    ends_punctuation: np.ndarray
    ends_question: np.ndarray

    #: Counts summed over a node's blocks; the rest are flags (any block) or read on its last block.
    SUMMED = (
        "chars",
        "words",
        "word_length",
        "stopwords",
        "capitalised",
        "punctuation",
        "numeric",
        "sentences",
        "link_chars",
    )
    FLAGS = ("copyright", "email", "url", "year")


def _hits(pattern: re.Pattern, text: str, starts: np.ndarray, n: int, needs: tuple[str, ...] = ("",)) -> np.ndarray:
    """Blocks (by start offset in the joined text) holding a match of ``pattern``; the scan is
    skipped when the text holds none of ``needs`` (every match contains one of them)."""
    found = np.zeros(n, dtype=bool)
    if not any(k in text for k in needs):
        return found
    positions = [m.start() for m in pattern.finditer(text)]
    if positions:
        found[np.searchsorted(starts, positions, side="right") - 1] = True
    return found


def text_counts(texts: list[str], in_link: np.ndarray, rules: TextRules = WEB2TEXT_RULES) -> TextCounts:
    """Word, character, punctuation and sentence counts of every block, in one pass per pattern
    over the blocks joined by NUL (which no pattern matches across)."""
    n = len(texts)
    joined = _SEPARATOR.join(texts)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=n)
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])) if n else np.zeros(0, np.int64)

    # words and separators in one scan: a word's block is the number of separators before it
    tokens = rules.words.findall(joined)
    is_separator = np.fromiter((t == _SEPARATOR for t in tokens), dtype=bool, count=len(tokens))
    owner = np.cumsum(is_separator)[~is_separator]
    words = [t for t in tokens if t != _SEPARATOR]

    def per_block(weights) -> np.ndarray:
        return np.bincount(owner, weights=np.fromiter(weights, dtype=np.float64, count=len(words)), minlength=n)

    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    punctuation = np.isin(codes, np.frombuffer(rules.punctuation.encode("utf-32-le"), dtype=np.uint32))
    digits = (codes >= 48) & (codes <= 57)

    def char_sum(mask: np.ndarray) -> np.ndarray:
        return np.add.reduceat(mask.astype(np.int64), starts) if n else np.zeros(0, np.int64)

    last = [t[-1] if t else "" for t in texts]
    return TextCounts(
        chars=np.maximum(lengths, 1).astype(np.float64),
        words=np.bincount(owner, minlength=n).astype(np.float64),
        word_length=per_block(map(len, words)),
        stopwords=per_block(w.lower() in (rules.stopwords or ()) for w in words),
        capitalised=per_block(w[0].isupper() for w in words),
        punctuation=char_sum(punctuation).astype(np.float64),
        numeric=char_sum(digits).astype(np.float64),
        sentences=1.0
        + np.bincount(
            np.searchsorted(starts, [m.start() for m in rules.sentence_end.finditer(joined)], side="right") - 1,
            minlength=n,
        )[:n],
        link_chars=np.where(in_link, lengths, 0).astype(np.float64),
        copyright=np.fromiter(("\u00a9" in t for t in texts), dtype=bool, count=n),
        email=_hits(_EMAIL, joined, starts, n, needs=("@",)),
        url=_hits(_URL, joined, starts, n, needs=("://", "www.")),
        year=_hits(_YEAR, joined, starts, n),
        ends_punctuation=np.fromiter((c in rules.punctuation and c != "" for c in last), dtype=bool, count=n),
        ends_question=np.fromiter((c == "?" for c in last), dtype=bool, count=n),
    )


def _shared_statistics(
    words,
    chars,
    word_length,
    stopwords,
    punctuation,
    numeric,
    sentences,
    capitalised,
    ends_p,
    ends_q,
    copyright,
    email,
    url,
    year,
) -> dict[str, np.ndarray]:
    """The statistics leaves and nodes share, as the authors compute them (``*BlockExtractor``)."""
    has_words = words > 0
    safe_words = np.maximum(words, 1)
    capitalised_ratio = np.where(has_words, capitalised / safe_words, 0.0)
    return {
        "avg_word_length": np.where(has_words, np.clip(word_length / safe_words, 3, 15), -1.0),
        "has_stopword": pm(stopwords > 0),
        "stopword_ratio": np.where(has_words, stopwords / safe_words, 0.0),
        "log_punctuation_ratio": np.where(punctuation > 0, _log_clip(punctuation / chars, -4, -2.5), 0.0),
        "has_numeric": pm(numeric > 0),
        "numeric_ratio": numeric / chars,
        "log_avg_sentence_length": _log_clip(chars / np.maximum(sentences, 1), 2, 5),
        "ends_with_punctuation": pm(ends_p),
        "ends_with_question_mark": pm(ends_q),
        "contains_copyright": pm(copyright),
        "contains_email": pm(email),
        "contains_url": pm(url),
        "contains_year": pm(year),
        "capitalised_ratio": capitalised_ratio,
        "capitalised_ratio_sq": capitalised_ratio**2,
        "capitalised_ratio_cube": capitalised_ratio**3,
    }


class NodeTable:
    """Prefix sums of the block counts, so that any element's node statistics (over the blocks of
    its subtree, ``block_start[i]:block_end[i]``) are O(1) differences."""

    def __init__(self, counts: TextCounts, stats: DomStats) -> None:
        self.counts = counts
        self.stats = stats
        self.prefix = {
            name: np.concatenate(([0.0], np.cumsum(getattr(counts, name).astype(np.float64))))
            for name in (*TextCounts.SUMMED, *TextCounts.FLAGS)
        }
        form = np.fromiter((t in FORM_TAGS for t in stats.tags), dtype=np.int64, count=len(stats.tags))
        form_prefix = np.concatenate(([0], np.cumsum(form)))
        self.has_form = form_prefix[stats.end] - form_prefix[np.arange(len(stats.tags))] > 0
        self.total_chars = max(float(self.prefix["chars"][-1]), 1.0)

    def features(self, elements: np.ndarray) -> np.ndarray:
        """The :data:`NODE_FEATURES` of ``elements`` (element indices), one row each."""
        lo = self.stats.block_start[elements]
        hi = self.stats.block_end[elements]
        s = {name: self.prefix[name][hi] - self.prefix[name][lo] for name in self.prefix}
        last = np.maximum(hi - 1, 0)
        empty = hi <= lo
        chars = np.maximum(s["chars"], 1.0)
        columns = _shared_statistics(
            s["words"],
            chars,
            s["word_length"],
            s["stopwords"],
            s["punctuation"],
            s["numeric"],
            s["sentences"],
            s["capitalised"],
            self.counts.ends_punctuation[last] & ~empty,
            self.counts.ends_question[last] & ~empty,
            s["copyright"] > 0,
            s["email"] > 0,
            s["url"] > 0,
            s["year"] > 0,
        )
        columns.update(
            body_percentage=s["chars"] / self.total_chars,
            link_density=s["link_chars"] / chars,
            log_n_characters=_log_clip(chars, 2.5, 10),
            contains_form=pm(self.has_form[elements]),
        )
        return np.stack([columns[name] for name in NODE_FEATURES], axis=1).reshape(len(elements), len(NODE_FEATURES))


@dataclass
class CDOM:
    """The collapsed-DOM relations of a page's blocks, over :class:`DomStats` element indices."""

    owner: np.ndarray  # element holding each block's text node
    parent: np.ndarray  # CDOM parent element of each block (0, body, when it has none)
    grandparent: np.ndarray  # CDOM grandparent element of each block (0 when it has none)
    leaf_tags: np.ndarray  # bitmask over TAG_BITS of the elements merged into each leaf
    parent_tags: np.ndarray  # bitmask of the elements merged into each block's parent node
    depth: np.ndarray  # CDOM depth of every element (branching ancestors-or-self)


TAG_BITS = {t: k for k, t in enumerate(dict.fromkeys((*LEAF_TAGS, *PARENT_TAGS)))}


def collapse(stats: DomStats) -> CDOM:
    """Branching elements, CDOM parents and grandparents, merged tags (see the module doc)."""
    n = len(stats.tags)
    owner = np.where(stats.block_owner >= 0, stats.block_owner, 0)
    has_text = stats.block_end > stats.block_start
    children = np.bincount(owner, minlength=n)
    carriers = np.nonzero(has_text[1:])[0] + 1
    children += np.bincount(stats.parent[carriers], minlength=n)
    branching = children >= 2
    bits = np.fromiter((1 << TAG_BITS[t] if t in TAG_BITS else 0 for t in stats.tags), dtype=np.int64, count=n)

    above = np.full(n, -1, dtype=np.int64)  # nearest branching proper ancestor
    chain = bits.copy()  # tags merged into the element's CDOM node from above
    depth = branching.astype(np.int64)
    parent = stats.parent.tolist()
    branch = branching.tolist()
    above_l, chain_l, depth_l = above.tolist(), chain.tolist(), depth.tolist()
    for i in range(1, n):  # pre-order: a parent is numbered before its children
        p = parent[i]
        above_l[i] = p if branch[p] else above_l[p]
        if not branch[p]:
            chain_l[i] |= chain_l[p]
        depth_l[i] += depth_l[p]
    above, chain, depth = np.asarray(above_l), np.asarray(chain_l), np.asarray(depth_l)

    leaf_parent = np.where(branching[owner], owner, above[owner])
    grand = np.where(leaf_parent >= 0, above[np.maximum(leaf_parent, 0)], -1)
    return CDOM(
        owner=owner,
        parent=np.maximum(leaf_parent, 0),
        grandparent=np.maximum(grand, 0),
        leaf_tags=np.where(branching[owner], 0, chain[owner]),
        parent_tags=np.where(leaf_parent >= 0, chain[np.maximum(leaf_parent, 0)], 0),
        depth=depth,
    )


def _one_hot(masks: np.ndarray, tags: tuple[str, ...]) -> np.ndarray:
    return np.stack([pm((masks >> TAG_BITS[t]) & 1) for t in tags], axis=1)


def _class_paths(blocks: Blocks, stats: DomStats) -> list[str]:
    """Each block's owner's path of ``tag.class`` steps (the authors' class selector)."""
    walk = dom_walk(blocks)
    elements = walk.elements if walk is not None else []
    steps = [f"{t}.{(el.get('class') or '').strip()}" for t, el in zip(stats.tags, elements, strict=True)]
    paths: list[str] = [""] * len(steps)
    for i, step in enumerate(steps):
        p = int(stats.parent[i])
        paths[i] = f"{paths[p]}/{step}" if p >= 0 else step
    return [paths[o] if o >= 0 else "" for o in stats.block_owner.tolist()]


def _lowest_common_ancestors(owner: np.ndarray, stats: DomStats) -> np.ndarray:
    """The lowest common ancestor element of each pair of neighbouring blocks' owners."""
    parent, end = stats.parent.tolist(), stats.end.tolist()
    owners = owner.tolist()
    found = []
    for a, b in pairwise(owners):
        x = a
        while not (x <= b < end[x]):
            x = parent[x]
        found.append(x)
    return np.asarray(found, dtype=np.int64)


def compute_features(
    blocks: Blocks, rules: TextRules = WEB2TEXT_RULES, edges: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Block features (n, 128) and edge features (n - 1, 25) of a segmented page, raw (not
    standardised), under the text ``rules`` (the paper's by default); with no stoplist
    (``rules.stopwords`` None) the stopword features are NaN. ``edges=False`` skips the edge
    features (no rows: the stack reads only the block features; the edges' common ancestors
    are about a tenth of the time)."""
    n = len(blocks)
    stats = dom_stats(blocks, link_tags=("a",)) if n else None
    if stats is None:
        return np.zeros((n, len(BLOCK_FEATURES))), np.zeros((max(n - 1, 0), len(EDGE_FEATURES)))
    in_link = np.zeros(n, dtype=bool)
    valid = stats.block_owner >= 0
    in_link[valid] = (stats.LC > 0)[stats.block_owner[valid]] & (stats.LC == stats.C)[stats.block_owner[valid]]
    counts = text_counts(blocks.texts, in_link, rules)
    table = NodeTable(counts, stats)
    cdom = collapse(stats)

    texts = blocks.texts
    text_count: dict[str, int] = {}
    for t in texts:
        text_count[t] = text_count.get(t, 0) + 1
    same_text = np.fromiter((text_count[t] for t in texts), dtype=np.int64, count=n)
    class_paths = _class_paths(blocks, stats)
    path_count: dict[str, int] = {}
    for p in class_paths:
        path_count[p] = path_count.get(p, 0) + 1
    same_path = np.fromiter((path_count[p] for p in class_paths), dtype=np.float64, count=n)

    c = counts
    middle = np.cumsum(c.chars) - c.chars / 2
    position = middle / table.total_chars
    leaf = _shared_statistics(
        c.words,
        c.chars,
        c.word_length,
        c.stopwords,
        c.punctuation,
        c.numeric,
        c.sentences,
        c.capitalised,
        c.ends_punctuation,
        c.ends_question,
        c.copyright,
        c.email,
        c.url,
        c.year,
    )
    leaf.update(
        has_word=pm(c.words > 0),
        log_n_words=np.where(c.words > 0, _log_clip(c.words, 0, 3.5), 0.0),
        log_n_characters=_log_clip(c.chars, 2.5, 5.5),
        has_punctuation=pm(c.punctuation > 0),
        n_punctuation=np.clip(c.punctuation, 0, 10),
        has_multiple_sentences=pm(c.sentences > 1),
        relative_position=position,
        relative_position_sq=position**2,
        link_density=c.link_chars / c.chars,
        page_share=c.chars / table.total_chars,
    )
    block = np.column_stack(
        [
            pm(same_text > 1),
            pm(same_text > 10),
            same_path / n,
            *(leaf[name] for name in LEAF_FEATURES),
            table.features(cdom.parent),
            _one_hot(cdom.parent_tags, PARENT_TAGS),
            table.features(cdom.grandparent),
            table.features(np.zeros(n, dtype=np.int64)),
            _one_hot(cdom.leaf_tags, LEAF_TAGS),
        ]
    )

    if n < 2 or not edges:
        return block, np.zeros((0, len(EDGE_FEATURES)))
    ancestor = _lowest_common_ancestors(cdom.owner, stats)
    leaf_depth = np.where(cdom.parent >= 0, cdom.depth[cdom.parent] + 1, 0)
    distance = leaf_depth[:-1] + leaf_depth[1:] - 2 * cdom.depth[ancestor]
    edge = np.column_stack(
        [
            pm(distance == 2),
            pm(distance == 3),
            pm(distance == 4),
            pm(distance > 4),
            pm(np.asarray(blocks.seps[1:]) == "\n"),
            table.features(ancestor),
        ]
    )
    return block, edge


#: The block and edge feature columns that count stopwords (NaN where the language has no stoplist).
STOPWORD_COLUMNS = np.array([i for i, name in enumerate((*BLOCK_FEATURES, *EDGE_FEATURES)) if "stopword" in name])


def page_features(
    blocks: Blocks, html: str, rules: TextRules = WEB2TEXT_RULES, edges: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`compute_features`, disk-cached per page, text rules and ``edges`` (block and edge rows
    stored together; ``edges=False``, what the stack reads: no edge rows, cached apart)."""
    n = len(blocks)
    width = len(BLOCK_FEATURES) + (len(EDGE_FEATURES) if edges else 0)

    def compute() -> np.ndarray:
        block, edge = compute_features(blocks, rules, edges)
        both = np.zeros((n, width))
        both[:, : block.shape[1]] = block
        if edges:
            both[: len(edge), block.shape[1] :] = edge
        if rules.stopwords is None and n:
            both[:, STOPWORD_COLUMNS[STOPWORD_COLUMNS < width]] = np.nan
        return both

    parts = (html,) if rules == WEB2TEXT_RULES else (html, rules.name)
    both = cached_array(
        "web2text_features" if edges else "web2text_block_features", code_version(__name__), parts, compute
    )
    if not edges:
        return both, np.zeros((0, len(EDGE_FEATURES)))
    return both[:, : len(BLOCK_FEATURES)], both[: max(n - 1, 0), len(BLOCK_FEATURES) :]


@dataclass
class Standardiser:
    """Feature-wise z-scores fitted on training rows (a constant feature gets scale 1)."""

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, rows: np.ndarray) -> Standardiser:
        mean = rows.mean(axis=0) if len(rows) else np.zeros(rows.shape[1])
        std = rows.std(axis=0) if len(rows) else np.ones(rows.shape[1])
        return cls(mean=mean, scale=np.where(std > 1e-9, std, 1.0))

    def transform(self, rows: np.ndarray) -> np.ndarray:
        return ((rows - self.mean) / self.scale).astype(np.float32)
