"""Training pages with a rail of teasers added beside the article: a derived dataset (issue 29).

The arbiter's selector and the stack fail alike on a short article beside a rail of teasers to the
site's other stories, each a linked headline and an unlinked summary paragraph: the stack drops the
headlines and keeps the summaries, prose like the article's own (DANIEL's Greek site
www.iatronet.gr, docs/extractors/arbiter_stack.md), and the training pages hold too few such rails
for the selector to learn, from one fit to the next, that Readability's extraction is the better
there. This dataset makes more of them from the training pages of other datasets, without hand
labels: each article page of a source's training and validation splits gets, right after the
element that holds its last gold block, a rail of teasers whose headlines and summaries are lines
of the gold texts of the source's other training pages (same language, real prose, another story).
The gold text is the page's own, unchanged: a teaser is never main content.

Only training and validation pages are read, so a run never tests on a page whose text a derived
page holds; each derived page keeps its source page's site as its fold group (``meta["group"]``),
so the arbiter's out-of-fold rows and grouped folds keep a site in one fold. It has no test pages:
it is for ``train_on``.

    python run.py +headline=arbiter_stack 'train_on=[cleaneval,dragnet,wcxb,daniel,magic_html,teaser_rails]'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from hydra.utils import instantiate
from lxml import etree
from omegaconf import DictConfig, OmegaConf

from boilerbench.cache import code_version, content_key
from boilerbench.conf import CONF_DIR
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError

NAME = "teaser_rails"
#: The teaser layouts drawn from: the rail's tag, each teaser's tag, its headline's and its summary's.
LAYOUTS = (
    ("div", "div", "h3", "p"),
    ("ul", "li", "h4", "p"),
    ("aside", "article", "h2", "div"),
)
#: Words of a gold line that may give a summary (fewer: a heading or a caption).
SUMMARY_WORDS = (12, 40)
#: Words of a teaser's headline.
HEADLINE_WORDS = (4, 9)


def prose_lines(pages: Sequence[Page]) -> list[str]:
    """The lines of the pages' gold texts with at least ``SUMMARY_WORDS[0]`` words: paragraphs."""
    lines = (line.strip() for page in pages for line in page.gold_text.splitlines())
    return [line for line in lines if len(line.split()) >= SUMMARY_WORDS[0]]


def teaser_rail(lines: Sequence[str], count: int, rng: np.random.Generator) -> etree._Element:
    """A rail of ``count`` teasers in one of :data:`LAYOUTS`: each a linked headline (the first
    words of one line) and a summary (the first words of another), drawn from ``lines``."""
    rail_tag, item_tag, head_tag, summary_tag = LAYOUTS[int(rng.integers(len(LAYOUTS)))]
    rail = etree.Element(rail_tag)
    picks = rng.choice(len(lines), size=2 * count, replace=len(lines) < 2 * count)
    for n in range(count):
        head_words = lines[picks[2 * n]].split()[: int(rng.integers(HEADLINE_WORDS[0], HEADLINE_WORDS[1] + 1))]
        summary_words = lines[picks[2 * n + 1]].split()[: int(rng.integers(SUMMARY_WORDS[0], SUMMARY_WORDS[1] + 1))]
        item = etree.SubElement(rail, item_tag)
        link = etree.SubElement(etree.SubElement(item, head_tag), "a", href=f"/story/{int(rng.integers(10**6))}.html")
        link.text = " ".join(head_words)
        etree.SubElement(item, summary_tag).text = " ".join(summary_words)
    return rail


def with_rail(page: Page, lines: Sequence[str], count: int, rng: np.random.Generator, tag: str = "") -> Page | None:
    """``page`` with a :func:`teaser_rail` added right after the element that holds the parent of
    its last gold block (the article's container), its gold unchanged; None where no block of the
    page is gold. Its id is ``SOURCE/ID``, then ``#tag`` where given."""
    blocks = segment(page.html, language=page.tokenizer)
    gold = np.flatnonzero(align_labels(blocks, page.gold_text))
    if not gold.size or blocks.root is None:
        return None
    owner = blocks.owner(int(gold[-1]))
    container = owner.getparent()
    if container is None or container.tag in ("body", "html"):
        container = owner
    container.addnext(teaser_rail(lines, count, rng))
    html = etree.tostring(blocks.root, encoding="unicode", method="html")
    group = f"{page.source}:{page.meta.get('group') or page.id}"
    meta = {**page.meta, "group": group, "derived_from": f"{page.source}/{page.id}"}
    page_id = f"{page.source}/{page.id}" + (f"#{tag}" if tag else "")
    return replace(page, id=page_id, html=html, meta=meta, source=NAME, page_type="article")


def source_dataset(entry: str, data_dir: str | Path) -> Dataset:
    """The dataset of a ``sources`` entry: a dataset config name (``conf/dataset/<name>.yaml``),
    or ``name:split``, read from ``data_dir``."""
    name, _, split = entry.partition(":")
    path = CONF_DIR / "dataset" / f"{name}.yaml"
    if name == NAME or not path.is_file():
        raise ConfigError(f"dataset.sources: {name!r} is no dataset config a teaser rail can be built from")
    node = OmegaConf.load(path)
    assert isinstance(node, DictConfig)
    node.data_dir = str(data_dir)
    if split:
        node.split = split
    return instantiate(node)


class TeaserRails(Dataset):
    """The article pages of the ``sources``' training and validation splits (at most
    ``per_source`` of each, drawn with ``seed``), each with a rail of ``items`` (least, most)
    teasers; ``split=train`` only (no test pages)."""

    name = NAME
    splits = ("train",)

    def __init__(
        self,
        sources: Sequence[str] = ("cleaneval", "dragnet", "wcxb"),
        per_source: int = 200,
        items: Sequence[int] = (3, 8),
        seed: int = 0,
        split: str | None = None,
        data_dir: str | Path = "data",
    ) -> None:
        super().__init__(split=split, data_dir=data_dir, download=False, verify=False)
        if len(items) != 2 or not 1 <= items[0] <= items[1]:
            raise ConfigError(f"dataset.items={list(items)} must be [least, most] teasers, 1 <= least <= most")
        if per_source < 1:
            raise ConfigError(f"dataset.per_source={per_source} must be 1 or more")
        self.sources = list(sources)
        self.per_source = per_source
        self.items = (int(items[0]), int(items[1]))
        self.seed = seed

    def derive(self, pages: Sequence[Page], rng: np.random.Generator) -> list[Page]:
        """Up to ``per_source`` of the article pages of ``pages``, each with a rail whose lines come
        from the other pages' gold."""
        articles = [p for p in pages if not p.load_error and p.gold_text.strip() and p.page_type in (None, "article")]
        if not articles:
            return []
        chosen = sorted(rng.choice(len(articles), size=min(self.per_source, len(articles)), replace=False).tolist())
        lines = [(i, line) for i, page in enumerate(articles) for line in prose_lines([page])]
        derived, tag = [], self.tag
        for i in chosen:
            others = [line for owner, line in lines if owner != i]
            count = int(rng.integers(self.items[0], self.items[1] + 1))
            page = with_rail(articles[i], others, count, rng, tag) if others else None
            if page is not None:
                derived.append(page)
        return derived

    @property
    def tag(self) -> str:
        """A digest of what makes the derived pages (this module's code and what it imports, the
        settings) in each page's id: a fitted model is keyed by its pages' ids
        (:func:`~boilerbench.experiments.model_cache.model_key`), so a model fitted on other
        derived pages is never taken for one fitted on these."""
        settings = json.dumps([self.sources, self.per_source, list(self.items), self.seed])
        return content_key(code_version(__name__), settings)[:8]

    def locate(self) -> Path:
        """The data folder: the sources find their own folders in it (or under ``BOILERBENCH_DATA``)."""
        return Path(self.data_dir)

    def load_split(self, root: Path, split: str) -> Split:
        """The derived pages of every source, its training pages' then its validation pages'."""
        derived = Split(name=split)
        for number, entry in enumerate(self.sources):
            source = source_dataset(entry, root).load()
            rng = np.random.default_rng([self.seed, number])
            derived.train.extend(self.derive(source.train, rng))
            derived.validation.extend(self.derive(source.validation, rng))
        return derived
