"""Property-based fuzzing of every extractor with generated HTML (hypothesis): N pages per
extractor through the runner's safe extraction path, counting exceptions that escape it and
kept texts that hold tokens the page does not.

    python -m benchmarks.fuzz [--n 10000] [--extractors bte,crf] [--seed 0] [--jobs 2]

The pages (:func:`documents`) are random trees of elements (block, inline, raw-text and void
tags; random, event-handler and huge attributes), deep nesting, huge text nodes, mixed scripts
(Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai, CJK, emoji, combining marks), control
characters, unclosed tags, comments and CDATA anywhere, stray ``<`` and entities, encoded in one
of several encodings, mixed encodings, with a wrong ``<meta charset>`` or none. Each page is
decoded as the loaders decode (:func:`boilerbench.datasets.encoding.decode_bytes`) and run through
:func:`boilerbench.experiments.scoring.evaluate_page`, the runner's per-page path: an extractor's
exception becomes the row's error; an exception out of it is an escape of the run.

No invented text (:func:`invented_tokens`): every token of the kept text must be one of the page's
own text tokens (:class:`Views`): the tokens of the HTML itself, entities decoded once and twice
(:func:`markup_views`); of libxml2's tree: its text nodes (script, style and comments included)
joined with and without separators, the text a browser shows, its attribute values (``alt``,
``title``: some extractors emit them) (:func:`tree_views`); and of an HTML5 parser's tree, whose
rules move text (:func:`html5_tree_views`). Tokens are compared NFKC-normalised, case-folded and
reduced to letters, marks and digits. A kept token that is none of them and is not a substring of
one view's letters run together (two pieces of text joined where an element was dropped) is
invented. A kept token that occurs more often than in any one view is counted as
repeated. The views are read cheapest first, a costlier one only for a kept text that the earlier
ones do not account for.
Fitted extractors are trained first on a tiny hand-made set (:data:`TRAINING`).
"""

from __future__ import annotations

import argparse
import copy
import functools
import html as html_lib
import logging
import multiprocessing
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from lxml import etree
from lxml import html as lxml_html

from benchmarks.common import record, timed
from boilerbench.atomic import atomic_write_text
from boilerbench.datasets.blocks import SKIP_TAGS
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.engine.pool import one_thread, run_in_workers
from boilerbench.experiments.scoring import evaluate_page

LIMIT = 50_000_000
BLOCK = ["p", "div", "section", "article", "nav", "footer", "header", "li", "ul", "ol", "td", "tr", "table"]
INLINE = ["a", "b", "i", "span", "em", "strong", "font", "code", "small", "label", "button", "option"]
RAW = ["script", "style", "noscript", "textarea", "title", "xmp", "template", "iframe", "svg", "math", "pre"]
VOID = ["br", "hr", "img", "input", "meta", "link", "wbr"]
ATTRIBUTES = ["class", "id", "alt", "title", "href", "src", "style", "onclick", "onerror", "data-x", "lang", "dir"]
SCRIPTS = (
    "abcdefghij ABCXYZ",
    "абвгдежзий",
    "αβγδεζηθ",
    "ابتثجحخد",
    "אבגדהוזח",
    "अआइईउऊ कखग",
    "กขคงจฉชซ",
    "中文字符测试汉字",
    "ひらがなカタカナ",
    "한국어글자",
    "😀🎉👍🏽🇫🇷",
    "e\u0301a\u0308\u0327",
    "\u200b\u200d\u200e\u202e\ufeff\u00ad",
    "\x00\x01\x07\x0b\x1b\x7f\x85",
)
ENCODINGS = ["utf-8", "utf-8-sig", "latin-1", "cp1252", "utf-16", "shift_jis", "gb18030", "koi8-r", "big5"]


def words(big: bool = True) -> st.SearchStrategy[str]:
    """Text: arbitrary characters, words of mixed scripts, or a huge repetition (smaller unless ``big``)."""
    mixed = st.lists(st.sampled_from(SCRIPTS).flatmap(lambda s: st.text(s, min_size=1, max_size=12)), max_size=8)
    return st.one_of(
        st.text(max_size=40),
        mixed.map(" ".join),
        st.tuples(
            st.text(SCRIPTS[0] + SCRIPTS[7], min_size=1, max_size=20),
            st.integers(1_000, 20_000) if big else st.integers(20, 200),
        ).map(lambda t: (t[0] + " ") * t[1]),
        st.sampled_from(["&amp;", "&lt;p&gt;", "&#0;", "&#x110000;", "&nbsp;", "&bogus;", "<", "<<>>", "]]>", "&"]),
    )


def attributes(big: bool = True) -> st.SearchStrategy[str]:
    name = st.one_of(st.sampled_from(ATTRIBUTES), st.from_regex(r"[a-z][a-z0-9:_-]{0,12}", fullmatch=True))
    value = st.one_of(words(big), st.text(max_size=5).map(lambda v: v * (50_000 if big else 100)))
    quoted = st.tuples(name, value, st.sampled_from(['"', "'", ""])).map(
        lambda t: f" {t[0]}={t[2]}{t[1].replace(t[2], '') if t[2] else html_lib.escape(t[1])}{t[2]}"
    )
    return st.lists(quoted, max_size=3).map("".join)


def element(children: st.SearchStrategy[str], big: bool = True) -> st.SearchStrategy[str]:
    """An element around ``children``, closed or not; a void element alone."""
    tag = st.sampled_from(BLOCK + INLINE + RAW)
    opened = st.tuples(tag, attributes(big), st.lists(children, max_size=5), st.booleans())
    void = st.tuples(st.sampled_from(VOID), attributes(big)).map(lambda t: f"<{t[0]}{t[1]}>")
    return st.one_of(opened.map(lambda t: f"<{t[0]}{t[1]}>{''.join(t[2])}" + (f"</{t[0]}>" if t[3] else "")), void)


def leaves(big: bool = True) -> st.SearchStrategy[str]:
    return st.one_of(
        words(big).map(html_lib.escape),
        words(big),  # unescaped: stray < and & in text
        words(big).map(lambda t: f"<!--{t}-->"),
        words(big).map(lambda t: f"<![CDATA[{t}]]>"),
        st.sampled_from(["<!--", "-->", "<!DOCTYPE html>", "<?xml version='1.0'?>", "</p>", "</div></body>", "<p"]),
    )


def deep(big: bool = True) -> st.SearchStrategy[str]:
    """One text inside thousands of nested elements (closed or not)."""
    return st.tuples(
        st.sampled_from(["div", "span", "b", "table", "li"]),
        st.integers(100, 5_000) if big else st.integers(20, 300),
        words(big),
        st.booleans(),
    ).map(lambda t: f"<{t[0]}>" * t[1] + html_lib.escape(t[2]) + (f"</{t[0]}>" * t[1] if t[3] else ""))


@st.composite
def documents(draw: st.DrawFn, big: bool = True) -> bytes:
    """The bytes of one generated page (see the module docstring); huge texts, attributes and
    nesting are a hundred times smaller unless ``big`` (the CI budget)."""
    body = draw(
        st.one_of(
            st.recursive(leaves(big), lambda c: element(c, big), max_leaves=40),
            deep(big),
            st.lists(leaves(big), max_size=5).map("".join),
        )
    )
    declared = draw(st.one_of(st.none(), st.sampled_from(ENCODINGS + ["bogus-8", "utf-7"])))
    head = f"<head><meta charset='{declared}'></head>" if declared else ""
    wrapped = draw(st.booleans())
    text = f"<!DOCTYPE html><html>{head}<body>{body}</body></html>" if wrapped else head + body
    encoding = draw(st.sampled_from([*ENCODINGS, "mixed"]))
    if encoding != "mixed":
        return text.encode(encoding, errors="replace")
    cut = draw(st.integers(0, len(text)))
    first, second = draw(st.sampled_from(ENCODINGS)), draw(st.sampled_from(ENCODINGS))
    return text[:cut].encode(first, errors="replace") + text[cut:].encode(second, errors="replace")


_UTF8 = lxml_html.HTMLParser(encoding="utf-8")


def normalise(token: str) -> str:
    """Case-folded, letters, marks and digits only (punctuation and symbols dropped)."""
    return "".join(ch for ch in token.casefold() if unicodedata.category(ch)[0] in "LMN")


def tokens(text: str) -> Iterable[str]:
    """The normalised tokens of ``text``: NFKC first (it may split a character into a space and a
    mark), then whitespace, then :func:`normalise`."""
    for token in unicodedata.normalize("NFKC", text).split():
        key = normalise(token)
        if key:
            yield key


#: Elements whose content a browser does not show (the blocks' :data:`SKIP_TAGS` less the void
#: ones, which hold no text); the text on either side of one runs together on the screen.
NOT_RENDERED = tuple(sorted(SKIP_TAGS - {"br", "hr", "img", "input"}))


def rendered_text(root: etree._Element) -> str:
    """The text a browser shows: without the content of :data:`NOT_RENDERED` elements, comments
    and processing instructions, the text on either side of them joined (``aaa<style>…</style>cg7``
    shows ``aaacg7``)."""
    shown = copy.deepcopy(root)
    etree.strip_elements(shown, *NOT_RENDERED, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    return shown.text_content()


def list_markers(root: etree._Element) -> str:
    """The numbers a browser shows before the items of ordered lists (inscriptis writes them:
    ``1. alpha``): 1 to the page's count of items, where it has an ordered list."""
    if next(root.iter("ol"), None) is None:
        return ""
    return " ".join(str(k) for k in range(1, sum(1 for _ in root.iter("li")) + 1))


def html5_markup(markup: str) -> str:
    """``markup`` without its comments and CDATA markers: an HTML5 parser (resiliparse's) reads
    CDATA in svg and math as text, libxml2 drops it, and the text on either side of a comment
    runs together (``ab<!--x--><![CDATA[cd]]>`` in math shows ``abcd``); :func:`markup_views` also
    reads it without its tags. Linear: an unclosed comment keeps the rest."""
    kept, at = [], 0
    while (start := markup.find("<!--", at)) >= 0 and (end := markup.find("-->", start + 4)) >= 0:
        kept.append(markup[at:start])
        at = end + 3
    kept.append(markup[at:])
    return "".join(kept).replace("<![CDATA[", "").replace("]]>", "")


def markup_views(markup: str) -> list[str]:
    """The markup read as text: entities decoded once and twice (trafilatura and inscriptis decode
    ``&amp;lt;`` to ``<``), each also split at the markup's punctuation (text that touches a tag is a
    token of its own), and as an HTML5 parser reads svg and math (:func:`html5_markup`), with and
    without its tags. No parser: the cheap views, read first."""
    decoded = html_lib.unescape(markup)
    twice = html_lib.unescape(decoded)
    html5 = html5_markup(decoded)
    split = [re.sub(r"[<>\"'=/]", " ", view) for view in (decoded, twice, html5)]
    return [decoded, twice, *split, html5, re.sub(r"<[^>]*>", "", html5)]


def tree_views(markup: str) -> list[str]:
    """The text of libxml2's tree (the loaders' parser): its text nodes with and without
    separators, its attribute values, its text with entities decoded once more (the parser drops a
    stray tag, joining the text either side), :func:`rendered_text` and :func:`list_markers`."""
    try:
        root = lxml_html.document_fromstring(markup.encode("utf-8", "surrogatepass"), parser=_UTF8)
    except (etree.ParserError, ValueError):
        return []
    content = root.text_content()
    return [
        " ".join(root.itertext()),
        content,
        " ".join(value for node in root.iter() for value in getattr(node, "attrib", {}).values()),
        html_lib.unescape(content),
        rendered_text(root),
        list_markers(root),
    ]


def html5_tree_views(markup: str) -> list[str]:
    """The text of an HTML5 parser's tree (html5lib, the specification's reference parser), with
    and without separators, and as a browser shows it (:func:`_shown_text`). The HTML5
    tree-building rules move text: text directly inside a ``<table>`` is foster-parented out in
    front of it, next to text that stands far from it in the markup (resiliparse, an HTML5 parser,
    kept ``&amp;Cac`` from ``<table>&amp;amp;<svg …`` and a ``Cac`` much later). The costliest
    view (pure Python), read last."""
    import html5lib

    try:
        root = html5lib.parse(markup, treebuilder="etree", namespaceHTMLElements=False)
    except Exception:  # noqa: BLE001 - a page html5lib cannot read adds no view; the others stand
        return []
    texts = list(root.itertext())
    return [" ".join(texts), "".join(texts), "".join(_shown_text(root))]


def _shown_text(root: Any) -> Iterable[str]:
    """The text of an html5lib (ElementTree) tree as a browser shows it: without the content of
    :data:`NOT_RENDERED` elements (foreign ones such as svg keep their namespace in the tag), their
    tails kept (resiliparse joins ``&amp;`` and ``Cac`` across an svg whose text it does not
    show). Iterative: a page nests thousands deep."""
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        element, closing = stack.pop()
        if closing:
            yield element.tail or ""
            continue
        if element is not root:
            stack.append((element, True))
        shown = isinstance(element.tag, str) and element.tag.rsplit("}", 1)[-1] not in NOT_RENDERED
        if shown:
            yield element.text or ""
            stack.extend((child, False) for child in reversed(element))


#: The views in the order :class:`Views` reads them, cheapest first: a costlier one is read only
#: where a kept token is not accounted for by those before it. Views only add tokens, so the
#: outcome is the outcome of reading them all.
TIERS: tuple[Callable[[str], list[str]], ...] = (markup_views, tree_views, html5_tree_views)


@dataclass
class Views:
    """A page's own text tokens over the views read so far: every view's together (a set, as a
    bag), the most any one view holds of each token (the bound of a sub-bag), and each view's
    letters run together (for tokens an extractor makes by joining two pieces of text where an
    element was dropped)."""

    markup: str
    read: int = 0
    every: Counter = field(default_factory=Counter)
    most: Counter = field(default_factory=Counter)
    letters: list[str] = field(default_factory=list)

    def read_next(self) -> bool:
        """Read the next tier of :data:`TIERS`; False when every tier has been read."""
        if self.read == len(TIERS):
            return False
        for view in TIERS[self.read](self.markup):
            counts = Counter(tokens(view))
            self.every.update(counts)
            self.most |= counts
            self.letters.append(normalise(unicodedata.normalize("NFKC", view)))
        self.read += 1
        return True

    def compare(self, kept: str) -> tuple[list[str], list[str]]:
        """(invented, repeated) tokens of ``kept``, reading further tiers while some are."""
        counts = Counter(tokens(kept))
        while True:
            invented = [t for t in counts if t not in self.every and not any(t in run for run in self.letters)]
            repeated = [t for t, n in counts.items() if t in self.every and n > self.most[t]]
            if not (invented or repeated) or not self.read_next():
                return invented, repeated


def invented_tokens(kept: str, markup: str) -> tuple[list[str], list[str]]:
    """(invented, repeated) tokens of ``kept`` with respect to the page ``markup``."""
    return Views(markup).compare(kept)


@dataclass
class Outcome:
    """What one page did to one extractor."""

    error: str
    invented: list[str]
    repeated: list[str]


class Generated:
    """One generated page, decoded once as a loader decodes it; its :class:`Views` (the costly
    part of the check on a multi-megabyte page) shared by every extractor and read only as far as
    their kept texts need."""

    def __init__(self, data: bytes, page_id: str = "fuzz") -> None:
        self.page = Page(id=page_id, html=decode_bytes(data, is_html=True), gold_text="")
        self.views = Views(self.page.html)


def check(extractor: object, generated: Generated) -> Outcome:
    """Run the page through the runner's per-page path; an exception out of that path propagates
    (it would end a run)."""
    result = evaluate_page(extractor, generated.page, LIMIT)  # type: ignore[arg-type]
    invented, repeated = generated.views.compare(result.text) if result.text else ([], [])
    return Outcome(str(result.row.get("error") or ""), invented, repeated)


def fuzz_page(extractor: object, data: bytes, page_id: str = "fuzz") -> Outcome:
    """Decode ``data`` as a loader does and :func:`check` it."""
    return check(extractor, Generated(data, page_id))


#: A tiny hand-made training set for the fitted extractors: article paragraphs are content;
#: navigation, footers and link lists are not.
TRAINING_PAGES = [
    (
        f"<html><body><nav><a href='/'>Home</a> | <a href='/news'>News</a> | <a href='/x{i}'>Sport</a></nav>"
        f"<h1>Headline number {i}</h1><p>The council met on day {i} and agreed that the bridge over the river "
        f"will close for repairs, said the mayor, who expects work to last until autumn {i}.</p>"
        f"<p>Residents asked for a ferry; the council promised one by the end of month {i}.</p>"
        f"<ul><li><a href='/a'>Related story</a></li><li><a href='/b'>Most read</a></li></ul>"
        f"<footer>Copyright 2024 Example News. All rights reserved.</footer></body></html>",
        f"Headline number {i}\nThe council met on day {i} and agreed that the bridge over the river will close "
        f"for repairs, said the mayor, who expects work to last until autumn {i}.\nResidents asked for a ferry; "
        f"the council promised one by the end of month {i}.",
    )
    for i in range(8)
]


def training() -> tuple[list[Page], list[Page]]:
    pages = [Page(id=f"t{i}", html=h, gold_text=g) for i, (h, g) in enumerate(TRAINING_PAGES)]
    return pages[:6], pages[6:]


def fitted(name: str, quick: tuple[str, ...] = ()) -> object:
    """The extractor of config ``name``, fitted on :func:`training` when it learns."""
    from boilerbench.configs import make_extractor

    extractor = make_extractor(name, quick)
    train, validation = training()
    extractor.fit(train, validation)
    return extractor


def generate(n: int, seed: int) -> list[bytes]:
    """``n`` generated pages (hypothesis's generation phase only, reproducible from ``seed``)."""
    pages: list[bytes] = []

    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    @given(documents())
    def collect(data: bytes) -> None:
        pages.append(data)

    from hypothesis import seed as fix_seed

    fix_seed(seed)(collect)()
    return pages


def generate_apart(n: int, seed: int) -> list[bytes]:
    """:func:`generate` in a forked child, the same pages: after hypothesis's generation the
    process stays about 1 MB a page larger than the pages (1.46 GB resident after 1,500 pages of
    135 MB), and every forked worker would carry that (a 10,000-page run's workers were 8.7 GB
    each, and one was killed for memory)."""
    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(generate, (n, seed))


def save(path: Path, data: bytes) -> None:
    """Keep a page that showed a problem, to reproduce it (generation depends on the loaded modules)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--n", "20", "--extractors", "bte,scedd,trafilatura"]
FULL: list[str] = []


@dataclass
class Tally:
    """One extractor's counts over the pages it was run on, the commonest messages, the seconds
    those took and the indices of the pages that showed a problem (escapes, inventions)."""

    pages: int = 0
    escaped: int = 0
    errors: int = 0
    invented: int = 0
    repeated: int = 0
    seconds: float = 0.0
    examples: Counter = field(default_factory=Counter)
    problems: list[int] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("pages", "escaped", "errors", "invented", "repeated", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.examples.update(other.examples)
        self.problems.extend(other.problems)


def _escaped(tally: Tally, index: int, err: Exception) -> None:
    """Count an exception that left the per-page path on page ``index`` (it would end a run)."""
    tally.pages += 1
    tally.escaped += 1
    tally.examples[f"escape {type(err).__name__}: {err}"[:120]] += 1
    tally.problems.append(index)


def _count(tally: Tally, index: int, run: Callable[[], Outcome]) -> None:
    """Run one page through one extractor and count what it did."""
    start = time.perf_counter()
    try:
        outcome = run()
    except Exception as err:  # noqa: BLE001 - the count this benchmark reports
        _escaped(tally, index, err)
        return
    finally:
        tally.seconds += time.perf_counter() - start
    tally.pages += 1
    tally.errors += bool(outcome.error)
    tally.invented += bool(outcome.invented)
    tally.repeated += bool(outcome.repeated)
    if outcome.error:
        tally.examples[f"error {outcome.error}"[:120]] += 1
    for kind, found in (("invented", outcome.invented), ("repeated", outcome.repeated)):
        if found:
            tally.examples[f"{kind} {found[:3]}"[:120]] += 1
    if outcome.invented or outcome.repeated:
        tally.problems.append(index)


#: The fitted extractors and the pages, set before the workers fork (shared, not pickled), and
#: for each page the extractor a worker is running on it (shared memory: the parent names the
#: extractor of a page that ran past its time or killed its worker).
_work: tuple[dict[str, object], list[bytes]] = ({}, [])
_running: Any = None
#: The value of ``_running`` while the page is being decoded (before any extractor runs).
DECODING = -1


def _fuzz_page(index: int) -> dict[str, Tally]:
    """Every extractor's tally on page ``index``, decoded once (a decoding error is an escape of
    every extractor)."""
    extractors, pages = _work
    tallies = {name: Tally() for name in extractors}
    _running[index] = DECODING
    try:
        generated = Generated(pages[index], f"fuzz{index}")
    except Exception as err:  # noqa: BLE001 - a page the loaders' decoding fails on
        for tally in tallies.values():
            _escaped(tally, index, err)
        return tallies
    for k, (name, extractor) in enumerate(extractors.items()):
        _running[index] = k
        _count(tallies[name], index, functools.partial(check, extractor, generated))
    return tallies


def fuzz_all(
    extractors: dict[str, object],
    pages: list[bytes],
    jobs: int = 1,
    page_timeout_s: float | None = None,
    checkpoint: Callable[[int, dict[str, Tally]], None] | None = None,
) -> dict[str, Tally]:
    """Every extractor's :class:`Tally` over ``pages``, each page a task of the engine's worker
    pool (``jobs`` forked workers, one thread each). A page that runs past ``page_timeout_s`` or
    kills its worker twice is a page error of the extractor that was running on it, as in a run
    with workers, and the fuzzing goes on; the page's other extractors do not count it (their
    tallies died with the worker, or they did not run).
    ``checkpoint(pages_done, tallies)`` is called every 250 pages."""
    global _work, _running
    _work = (extractors, pages)
    _running = multiprocessing.RawArray("i", len(pages))
    names = list(extractors)
    tallies = {name: Tally() for name in names}
    finished = [0]

    def done(index: int, part: dict[str, Tally]) -> None:
        for name, tally in part.items():
            tallies[name].add(tally)
        finished[0] += 1
        if checkpoint and finished[0] % 250 == 0:
            checkpoint(finished[0], tallies)

    def failed(index: int, error: Exception) -> None:
        # a page whose decoding ran out of time (or killed the worker) failed every extractor
        at = _running[index]
        charged, where = (names, " while decoding") if at == DECODING else ([names[at]], "")
        for name in charged:
            tally = tallies[name]
            tally.pages += 1
            tally.errors += 1
            tally.seconds += (page_timeout_s or 0.0) / len(charged)
            tally.examples[f"worker{where}: {type(error).__name__}: {error}"[:120]] += 1
            tally.problems.append(index)
        done(index, {})

    run_in_workers(_fuzz_page, len(pages), jobs, done, failed, page_timeout_s)
    for tally in tallies.values():
        tally.problems.sort()
    return tallies


def report(tallies: dict[str, Tally], fit_seconds: dict[str, float]) -> list[str]:
    """The table of counts, one line per extractor and its commonest messages."""
    header = ("pages", "exceptions", "page errors", "invented", "repeated", "s")
    lines = [f"{'extractor':<16} " + " ".join(f"{h:>{max(len(h), 6)}}" for h in header)]
    for name, tally in tallies.items():
        spent = f"{fit_seconds[name] + tally.seconds:.1f}"
        counts = (tally.pages, tally.escaped, tally.errors, tally.invented, tally.repeated, spent)
        lines.append(f"{name:<16} " + " ".join(f"{f:>{max(len(h), 6)}}" for f, h in zip(counts, header, strict=True)))
        lines += [f"    {count:>5} x {example}" for example, count in tally.examples.most_common(3)]
    return lines


def main(argv: list[str] | None = None) -> int:
    from boilerbench.configs import extractor_names

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="generated pages per extractor")
    parser.add_argument("--extractors", default="", help="comma-separated config names (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--save", type=Path, help="write the pages of escapes, invented and repeated text here (100 per extractor)"
    )
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="check the generated pages from this index on (the pages are the same for the same --n and "
        "--seed: the rest of a run that was stopped)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="forked workers, each checking a share of the pages")
    parser.add_argument(
        "--page-timeout", type=float, default=600.0, help="seconds every extractor together may take on a page"
    )
    parser.add_argument("--checkpoint", type=Path, help="write the table so far here every 250 pages")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # bs4's "characters could not be decoded", once a page
    one_thread()  # before any fit: torch's thread pool would deadlock the forked workers
    pages, seconds = timed(lambda: generate_apart(args.n, args.seed))
    sizes = sorted(len(p) for p in pages)
    print(
        f"{len(pages)} pages generated in {seconds:.0f} s "
        f"(median {sizes[len(sizes) // 2]:,} bytes, largest {sizes[-1]:,})"
    )
    checked = pages[args.first :]
    names = args.extractors.split(",") if args.extractors else extractor_names()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from registry import QUICK_FIT

    extractors: dict[str, object] = {}
    fit_seconds: dict[str, float] = {}
    for name in names:
        try:
            extractors[name], fit_seconds[name] = timed(functools.partial(fitted, name, QUICK_FIT.get(name, ())))
        except Exception as err:  # an extractor that cannot be built here (a missing package) is reported
            print(f"{name:<16} not run: {type(err).__name__}: {err}"[:200])

    def keep_problems(tallies: dict[str, Tally]) -> None:
        for name, tally in tallies.items():
            for i in sorted(tally.problems)[:100]:
                save(args.save / f"{name}-{args.first + i}.html", checked[i])

    def checkpoint(done: int, tallies: dict[str, Tally]) -> None:
        print(f"{done} pages checked", file=sys.stderr, flush=True)
        if args.checkpoint:
            atomic_write_text(args.checkpoint, "\n".join(report(tallies, fit_seconds)) + "\n")
        if args.save:  # kept as they come: a long fuzz stopped early still leaves its pages
            keep_problems(tallies)

    tallies, seconds = timed(functools.partial(fuzz_all, extractors, checked, args.jobs, args.page_timeout, checkpoint))
    print(
        f"{len(extractors)} extractors x {len(checked)} pages (from page {args.first}) in {seconds:.0f} s "
        f"({args.jobs} workers)"
    )
    for name, tally in tallies.items():
        for figure in ("escaped", "invented", "repeated"):
            record(f"{name}_{figure}", getattr(tally, figure))
    if args.save:
        keep_problems(tallies)
    print("\n".join(report(tallies, fit_seconds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
