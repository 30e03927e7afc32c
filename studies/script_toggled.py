"""How much text lies in elements that a page's scripts show and hide, and how much of it is gold.

DANIEL's worst Greek site (www.iatronet.gr, issue 29) keeps each teaser's summary in a
``div.tooltip`` whose id a link's ``onmouseover="showWMTT('t21894')"`` names: hidden until the
mouse is over the link, boilerplate by its gold, and kept by the stacks. The page's stylesheet is
external, so :func:`boilerbench.extractors.dom_stats.is_hidden` (inline ``display:none``, the
``hidden`` attribute) cannot see it. Two signals can: an element whose ``id`` an event-handler
attribute (``on*``) of another element names as a quoted string, or whose class names a tooltip,
popup, popover or modal. Per dataset (training and validation pages only), this prints the pages
with such elements, the words inside them (outermost elements only), and those words split by
whether the element's text is gold: more than half of its word 4-grams are in the page's gold text
(a text-level stand-in for the block alignment, enough to size a feature). "Gold at risk" is the
share of all the gold words that a rule dropping these elements would lose.

    BOILERBENCH_DATA=../shared/datasets python -m studies.script_toggled
"""

from __future__ import annotations

import re
from collections import Counter

import lxml.html
from lxml import etree

from benchmarks.common import run_main
from boilerbench.datasets.base import Dataset
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.datasets.daniel import Daniel
from boilerbench.datasets.dragnet import Dragnet
from boilerbench.datasets.magic_html import MagicHTML
from boilerbench.datasets.wcxb import WCXB

DATASETS: tuple[type[Dataset], ...] = (Daniel, CleanEval, Dragnet, WCXB, MagicHTML)
_QUOTED = re.compile(r"['\"]([A-Za-z][\w-]*)['\"]")
_POPUP_CLASS = re.compile(r"(?:^|[\s_-])(?:tooltip|popup|popover|modal)(?:$|[\s_-])", re.IGNORECASE)
_CONTROLS = frozenset(("input", "form", "a", "select", "textarea", "button"))
SHINGLE = 4


def toggled(root: etree._Element) -> list[etree._Element]:
    """The outermost elements that scripts show and hide: ids named by another element's ``on*``
    attribute (controls left out: a handler naming a form is no popup), or popup class names."""
    named = {
        name
        for el in root.iter()
        if isinstance(el.tag, str)
        for key, value in el.attrib.items()
        if key.lower().startswith("on")
        for name in _QUOTED.findall(value)
    }
    found = [
        el
        for el in root.iter()
        if isinstance(el.tag, str)
        and el.tag not in _CONTROLS
        and ((el.get("id") or "") in named or _POPUP_CLASS.search(el.get("class") or ""))
    ]
    chosen = set(found)
    return [el for el in found if not any(a in chosen for a in el.iterancestors())]


def shingles(words: list[str]) -> list[tuple[str, ...]]:
    """The word 4-grams of ``words``, in order."""
    return [tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)]


def count(dataset: Dataset) -> Counter:
    """Pages, pages with toggled elements, words in them (gold or not), and gold words in all."""
    split = dataset.load()
    counts: Counter = Counter()
    for page in (*split.train, *split.validation):
        if page.load_error or not page.html.strip():
            continue
        counts["pages"] += 1
        gold_words = page.gold_text.split()
        counts["gold words"] += len(gold_words)
        try:
            root = lxml.html.fromstring(page.html)
        except (etree.ParserError, ValueError):
            continue
        elements = toggled(root)
        counts["pages with some"] += bool(elements)
        gold = set(shingles(gold_words))
        for el in elements:
            words = el.text_content().split()
            grams = shingles(words)
            in_gold = bool(grams) and sum(g in gold for g in grams) > len(grams) / 2
            counts["gold words inside" if in_gold else "other words inside"] += len(words)
    return counts


def main(argv: list[str]) -> int:
    print("dataset | pages | with some | other words inside | gold words inside | gold at risk")
    for kind in DATASETS:
        c = count(kind())
        risk = c["gold words inside"] / max(c["gold words"], 1)
        print(
            f"{kind.name} | {c['pages']} | {c['pages with some']} | {c['other words inside']} | "
            f"{c['gold words inside']} | {risk:.1%}"
        )
    return 0


if __name__ == "__main__":
    run_main(main)
