"""Training on a mixture of datasets: one :class:`Split` made of the training and validation
pages of several datasets, each page keeping its ``source``.

How much each dataset weighs is set by resampling pages, which works the same for every
learner (a CRF, a CNN on block windows, a sequence model, a classifier over embeddings), since
each of them learns from the pages it is given; not every learner takes sample weights
(python-crfsuite does not). ``weights``:

- ``proportional``: every page once, so a dataset weighs as many pages as it has;
- ``balanced``: each dataset's pages repeated until it has as many as the largest one (whole
  copies, then a seeded sample without replacement for the remainder), so every dataset weighs
  the same whatever its size and no page is dropped. Pages, not blocks, are the unit: a
  dataset of longer pages still brings more blocks per page. The cost is training time, which
  grows with the number of pages (up to ``k x`` the largest dataset for ``k`` datasets); the
  repeated pages are the same objects, so memory does not grow;
- ``balanced_types``: as ``balanced``, and within a dataset whose pages have types (WCXB's
  article, forum, product, ...) each type gets the same share of the dataset's pages, so that
  the few listing or forum pages weigh as much as the many articles: a model meant for pages of
  every type should not learn articles only because most annotated pages are articles;
- ``balanced_languages``: as ``balanced_types``, with each (page type, language) pair as one
  stratum, the language being the dataset's label (``meta["language"]``: DANIEL's, never a
  guess), so that DANIEL's 134 Russian pages weigh as much as its 257 English ones.

A dataset can weigh more than one share (``shares``; ``train_on`` naming it twice): under the
balanced weightings it draws that many times the largest dataset's count, under ``proportional``
its pages come that many times.

Training and validation pages are weighted alike, so early stopping scores the mixture as it
is weighted. Pages that could not be loaded (``load_error``) are left out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import numpy as np

from boilerbench.datasets.base import Split
from boilerbench.datasets.page import Page
from boilerbench.errors import check_choice

WEIGHTS = ("balanced", "proportional", "balanced_types", "balanced_languages")
T = TypeVar("T")


def resample(pages: Sequence[T], size: int, rng: np.random.Generator) -> list[T]:
    """``size`` pages drawn from ``pages``: each page ``size // n`` times, then a sample without
    replacement of ``size % n`` more, in the original order (deterministic for a given ``rng``)."""
    n = len(pages)
    if n == 0 or size <= 0:
        return []
    repeats = np.full(n, size // n)
    repeats[rng.choice(n, size=size % n, replace=False)] += 1
    return [page for page, k in zip(pages, repeats.tolist(), strict=True) for _ in range(k)]


def page_type(page: Page) -> object:
    """The stratum of ``balanced_types``: the page's type."""
    return page.page_type


def type_and_language(page: Page) -> object:
    """The stratum of ``balanced_languages``: the page's type and its dataset's language label."""
    return page.page_type, page.meta.get("language")


def resample_strata(
    pages: Sequence[Page], size: int, rng: np.random.Generator, stratum: Callable[[Page], object] = page_type
) -> list[Page]:
    """``size`` pages drawn from ``pages`` with every stratum (``stratum(page)``: by default the
    page type, None being one type) drawn alike: ``size`` shared out evenly over the strata (the
    first strata take the remainder), each stratum's share drawn by :func:`resample`; in the
    original order of the pages."""
    strata: dict[object, list[int]] = {}
    for index, page in enumerate(pages):
        strata.setdefault(stratum(page), []).append(index)
    if len(strata) < 2:
        return resample(pages, size, rng)
    shares = np.full(len(strata), size // len(strata))
    shares[: size % len(strata)] += 1
    drawn = [
        (index, pages[index])
        for indices, share in zip(strata.values(), shares.tolist(), strict=True)
        for index in resample(indices, share, rng)
    ]
    return [page for _, page in sorted(drawn, key=lambda pair: pair[0])]


STRATA: dict[str, Callable[[Page], object]] = {"balanced_types": page_type, "balanced_languages": type_and_language}


def _weighted(parts: Sequence[list[Page]], shares: Sequence[int], weights: str, rng: np.random.Generator) -> list[Page]:
    """The pages of ``parts`` weighted by ``weights``, part ``i`` counting ``shares[i]`` times."""
    if weights == "proportional":
        return [p for part, share in zip(parts, shares, strict=True) for _ in range(share) for p in part]
    largest = max((len(part) for part in parts), default=0)
    draw = functools.partial(resample_strata, stratum=STRATA[weights]) if weights in STRATA else resample
    return [p for part, share in zip(parts, shares, strict=True) for p in draw(part, share * largest, rng)]


def mixture(
    sources: Mapping[str, Split], weights: str = "balanced", seed: int = 0, shares: Mapping[str, int] | None = None
) -> Split:
    """The training split of a mixture: each source's training and validation pages (every page of
    a source whose split has neither, as L3S-GN1's ``all``), weighted by ``weights``; no test
    pages. ``shares`` gives a source more than its one share (``{"daniel": 2}``: DANIEL weighs as
    two of the others; what ``train_on`` says by naming a dataset twice). The split's name lists
    the sources (``daniel*2`` for two shares) and the weighting."""
    check_choice("train_weights", weights, WEIGHTS)
    counts = {name: int((shares or {}).get(name, 1)) for name in sources}
    if any(count < 1 for count in counts.values()):
        raise ValueError(f"a mixture's shares are whole numbers from 1: {counts}")
    rng = np.random.default_rng(seed)
    train, validation = [], []
    for split in sources.values():
        part_train, part_validation = list(split.train), list(split.validation)
        if not part_train and not part_validation:
            part_train = list(split.test)
        train.append([p for p in part_train if not p.load_error])
        validation.append([p for p in part_validation if not p.load_error])
    names = ",".join(name if counts[name] == 1 else f"{name}*{counts[name]}" for name in sources)
    weighted = list(counts.values())
    return Split(
        name=f"mix({names})/{weights}",
        train=_weighted(train, weighted, weights, rng),
        validation=_weighted(validation, weighted, weights, rng),
    )
