"""L3S-GN1 (Kohlschuetter et al., WSDM 2010): 621 Google News pages, original and annotated.

``original/*.html`` is the input. ``annotated/*.html`` is the same page with each text run
wrapped in ``<span class="x-nc-selN">``: 1 headline, 2 full text, 3 supplemental (the main
content, as Kohlschuetter and later benchmarks count it), 0 not content, 4 related,
5 comments. Gold text = the text of the sel1..3 spans in document order, read through the
canonical segmentation of the annotated page.

The annotated files lost every character outside Latin-1 (``Kosovo?s`` for ``Kosovo’s``).
With ``repair_gold`` (default on) a gold token containing ``?`` is replaced by the page's own
token of the same shape (same characters, each non-Latin-1 one shown as ``?``), so that
typographic quotes and dashes do not count as extraction errors.

There is no standard split: ``all`` tests on every page; learned extractors use k-fold
cross-validation (:func:`boilerbench.datasets.base.kfold`).
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import numpy as np

from boilerbench.datasets.align import align_labels
from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.blocks import Blocks, segment
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page

SUBDIR = "L3S-GN1-20100130203947-00001"
CONTENT_CLASSES = (1, 2, 3)
_SEL_CLASS = re.compile(r"\bx-nc-sel(\d)\b")
_TAG = re.compile(r"<[^>]*>")
_LOST = re.compile(r"\S*\?\S*")
_NON_LATIN1 = re.compile(r"[^\x00-\xff]")


def span_classes(blocks: Blocks) -> np.ndarray:
    """Per block, the N of the nearest enclosing ``x-nc-selN`` span (-1 when none)."""
    memo: dict = {}
    out = np.full(len(blocks), -1, dtype=np.int8)
    for i in range(len(blocks)):
        el = blocks.owner(i)
        chain = []
        value = -1
        while el is not None:
            if el in memo:
                value = memo[el]
                break
            chain.append(el)
            match = _SEL_CLASS.search(el.get("class") or "")
            if match:
                value = int(match.group(1))
                break
            el = el.getparent()
        for visited in chain:
            memo[visited] = value
        out[i] = value
    return out


def restore_lost_characters(gold: str, page_html: str) -> str:
    """Replace gold tokens whose non-Latin-1 characters became ``?`` by the page's matching token."""
    if "?" not in gold:
        return gold
    page_text = html_lib.unescape(_TAG.sub(" ", page_html))
    shapes: dict[str, str] = {}
    for token in page_text.split():
        if _NON_LATIN1.search(token):
            shapes.setdefault(_NON_LATIN1.sub("?", token), token)
    return _LOST.sub(lambda m: shapes.get(m.group(0), m.group(0)), gold)


def annotation_labels(annotated: Blocks) -> tuple[np.ndarray, str]:
    """Content labels read directly from the annotation spans, and the gold text they give."""
    labels = np.isin(span_classes(annotated), CONTENT_CLASSES)
    return labels.astype(np.int8), annotated.join(labels)


def read_annotated(root: Path, stem: str) -> Blocks:
    """The canonical blocks of the annotated version of a page."""
    return segment(decode_bytes((root / SUBDIR / "annotated" / f"{stem}.html").read_bytes(), is_html=True))


def aligner_agreement(root: Path, limit: int | None = None) -> dict:
    """How often the aligner's labels (from the gold text) equal the labels read from the spans,
    over the blocks of the annotated pages: a check of the one aligner every dataset uses."""
    stems = sorted(p.stem for p in (root / SUBDIR / "annotated").glob("*.html"))[:limit]
    agree = total = 0
    per_page = []
    for stem in stems:
        blocks = read_annotated(root, stem)
        direct, gold = annotation_labels(blocks)
        same = int(np.sum(align_labels(blocks, gold) == direct))
        agree += same
        total += len(blocks)
        per_page.append(same / len(blocks) if len(blocks) else 1.0)
    return {
        "pages": len(stems),
        "blocks": total,
        "agree": agree,
        "agreement": agree / total if total else float("nan"),
        "worst_page": min(per_page, default=float("nan")),
    }


def read_page(root: Path, stem: str, url: str | None, repair_gold: bool) -> Page:
    """Read one page: decode both files, gold text from the annotated page's content spans."""
    base = root / SUBDIR
    html = decode_bytes((base / "original" / f"{stem}.html").read_bytes(), is_html=True)
    _, gold = annotation_labels(read_annotated(root, stem))
    if repair_gold:
        gold = restore_lost_characters(gold, html)
    return Page(id=stem, html=html, gold_text=gold, url=url, meta={})


class L3SGN1(Dataset):
    """L3S-GN1; ``split=all`` (every page is a test page; see :func:`kfold` for learned methods)."""

    name = "l3s-gn1"
    splits = ("all",)
    required = (f"{SUBDIR}/original", f"{SUBDIR}/annotated")

    def __init__(self, *args, repair_gold: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.repair_gold = repair_gold

    def load_split(self, root: Path, split: str) -> Split:
        urls = {}
        mapping = root / SUBDIR / "url-mapping.txt"
        if mapping.exists():
            for line in mapping.read_text(encoding="utf-8", errors="replace").splitlines():
                if "\t" in line:
                    urn, url = line.split("\t", 1)
                    urls[urn.strip().strip("<>").removeprefix("urn:uuid:")] = url.strip()
        stems = sorted(p.stem for p in (root / SUBDIR / "original").glob("*.html"))
        pages = [read_page(root, s, urls.get(s), self.repair_gold) for s in stems]
        return Split(name=split, test=pages)
