"""CETD, Content Extraction via Text Density (Sun, Song, Liao, SIGIR 2011).

Per element (``dom_stats``): C characters, T tags below it, LC link characters, LT link tags.

- Text density (sec. 3.1): ``TD = C / T``.
- Composite text density (sec. 3.2): ``CTD = (C/T) ln((C/LC)(T/LT)) / ln ln(C LC / nLC + (LC_b/C_b) C + e)``
  with nLC = C - LC, body's LC_b and C_b, 0 replaced by 1 in T, LC, LT and nLC, and 0 when
  C = 0, exactly as the authors' code computes it.
- DensitySum (sec. 4.2): a node's children's densities plus its loose text; a node without
  child elements has its own density. Loose text of L characters counts L under TD, and
  under CTD the CTD of a tag-less, link-less node, ``L ln L / ln ln(1 + (LC_b/C_b) L + e)``.
  The authors' code omits the ``1 +``, which divides by zero on a page without links; with it
  the term is the composite density definition applied to a text node.

Extraction (sec. 4.3): the node with the largest DensitySum is content; the threshold is the
smallest density on the path from it up to body. Walking down from body through nodes whose
density reaches the threshold, ``selection="densitysum"`` marks in each such node the subtree
of its largest-DensitySum descendant (the paper's method); ``selection="threshold"`` keeps the
text held directly by each such node, without the DensitySum step. The text of marked nodes is
the content; the loose text of their unmarked ancestors is not (the paper's output is the
marked subtrees). Elements hidden with inline ``display:none`` are removed first.
"""

from __future__ import annotations

import math

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.extractors.dom_stats import DomStats, dom_stats

DENSITIES = ("td", "ctd")
SELECTIONS = ("densitysum", "threshold")


def text_density(stats: DomStats) -> np.ndarray:
    """TD = C / T per element (T = 0 read as 1; 0 for an element without text)."""
    return stats.C / np.maximum(stats.T, 1)


def composite_text_density(stats: DomStats) -> np.ndarray:
    """CTD per element (sec. 3.2, with the authors' replacement of zeros by ones)."""
    C = stats.C.astype(np.float64)
    ratio = stats.LC[0] / stats.C[0] if stats.C[0] else 0.0
    T = np.maximum(stats.T, 1)
    LC = np.maximum(stats.LC, 1)
    LT = np.maximum(stats.LT, 1)
    nLC = np.maximum(stats.C - stats.LC, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ctd = (C / T) * np.log(C * T / (LC * LT)) / np.log(np.log(C * LC / nLC + ratio * C + math.e))
    return np.where(stats.C > 0, ctd, 0.0)


def loose_text_density(length: np.ndarray, density: str, ratio: float) -> np.ndarray:
    """The density of a run of loose text of ``length`` characters (see the module docstring)."""
    length = length.astype(np.float64)
    if density == "td":
        return length
    with np.errstate(divide="ignore", invalid="ignore"):
        value = length * np.log(length) / np.log(np.log(1.0 + ratio * length + math.e))
    return np.where(length > 0, value, 0.0)


def density_sum(stats: DomStats, density: np.ndarray, kind: str) -> np.ndarray:
    """DensitySum per element: children's densities plus loose text, or its own density for a leaf."""
    n = len(stats)
    kept = ~stats.removed
    children = np.flatnonzero(kept[1:]) + 1
    parents = stats.parent[children]
    child_sum = np.bincount(parents, weights=density[children], minlength=n)
    has_children = np.bincount(parents, minlength=n) > 0
    ratio = stats.LC[0] / stats.C[0] if stats.C[0] else 0.0
    owned = stats.block_owner >= 0
    loose = np.bincount(
        stats.block_owner[owned],
        weights=loose_text_density(stats.block_chars[owned], kind, ratio),
        minlength=n,
    )
    ds = np.where(has_children, child_sum + loose, density)
    return np.where(kept, ds, -np.inf)


def select_content(stats: DomStats, density: np.ndarray, dsum: np.ndarray, selection: str) -> np.ndarray:
    """Elements whose directly held text is content (sec. 4.3; see the module docstring)."""
    n = len(stats)
    target = int(np.argmax(dsum))
    threshold = float(density[stats.path_to_body(target)].min())
    if selection == "threshold":
        return threshold_walk(stats, density, threshold)
    removed, end = stats.removed, stats.end
    marked = stats.subtree_mask([target])
    i = 0
    while i < n:
        if removed[i] or marked[i] or density[i] < threshold:
            i = int(end[i])
            continue
        j = i + int(np.argmax(dsum[i : end[i]]))
        if not marked[j]:
            marked[j : end[j]] = True
        i += 1
    return marked


def threshold_walk(stats: DomStats, density: np.ndarray, threshold: float, root: int = 0) -> np.ndarray:
    """Walk down from ``root`` through elements whose density reaches ``threshold``; return them.

    A kept element's children are visited; an element below the threshold is skipped with its
    whole subtree, so the result is a connected region hanging from ``root``.
    """
    keep = np.zeros(len(stats), dtype=bool)
    removed, end = stats.removed, stats.end
    i, stop = root, int(end[root])
    while i < stop:
        if removed[i] or density[i] < threshold:
            i = int(end[i])
            continue
        keep[i] = True
        i += 1
    return keep


def densities(stats: DomStats, kind: str) -> np.ndarray:
    """TD or CTD per element, 0 for removed elements."""
    values = text_density(stats) if kind == "td" else composite_text_density(stats)
    return np.where(stats.removed, 0.0, values)


def cetd_content(stats: DomStats, density: str, selection: str) -> np.ndarray:
    """The elements CETD keeps (their directly held text is the content)."""
    values = densities(stats, density)
    return select_content(stats, values, density_sum(stats, values, density), selection)


class CETD(BaseExtractor):
    """Content extraction via (composite) text density with DensitySum or threshold-only selection."""

    def __init__(self, density: str = "ctd", selection: str = "densitysum") -> None:
        check_choice("extractor.density", density, DENSITIES)
        check_choice("extractor.selection", selection, SELECTIONS)
        self.density = density
        self.selection = selection

    def extract(self, page: Page) -> Extraction:
        blocks = page.blocks
        stats = dom_stats(blocks)
        if stats is None or stats.C[0] == 0:
            return Extraction.from_labels(page, np.zeros(len(blocks), dtype=np.int8))
        return Extraction.from_labels(page, stats.block_labels(cetd_content(stats, self.density, self.selection)))
