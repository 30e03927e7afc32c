"""Snippet checks (WCXB's ``with`` / ``without`` lists), scored as trafilatura's evaluation does.

trafilatura's benchmark (``tests/eval_common.py``, ``count_item``) normalises whitespace in the
extraction and in each snippet (runs of whitespace become one space, ends stripped) and counts,
by case-sensitive substring matching: a ``with`` snippet found is a true positive, one missing
a false negative; a ``without`` snippet found is a false positive, one absent a true negative.
Its F1 is ``2 tp / (2 tp + fp + fn)`` over counts pooled across pages.

Per page we report the share of ``with`` snippets found (``with_found``), the share of
``without`` snippets absent (``without_absent``) and that F1 on the page's own counts; each is
undefined (NaN) when its denominator is zero (no snippet of that kind, or for F1 no ``with``
snippet and no ``without`` snippet found). Over pages: the mean of each over the pages where it
is defined, and ``micro_f1``, trafilatura's pooled F1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_SPACE = re.compile(r"\s+")


def normalise_space(text: str) -> str:
    """Runs of whitespace as one space, ends stripped (trafilatura's ``norm``)."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class SnippetCounts:
    """One page's snippet outcomes: tp (with found), fn (with missing), fp (without found), tn (without absent)."""

    tp: int
    fn: int
    fp: int
    tn: int

    @property
    def with_found(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else math.nan

    @property
    def without_absent(self) -> float:
        return self.tn / (self.fp + self.tn) if self.fp + self.tn else math.nan

    @property
    def f1(self) -> float:
        denominator = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denominator if denominator else math.nan


def snippet_counts(prediction: str, with_: Sequence[str], without: Sequence[str]) -> SnippetCounts:
    """Count which snippets occur in ``prediction`` (whitespace-normalised, case-sensitive substring)."""
    text = normalise_space(prediction)
    tp = sum(1 for s in with_ if normalise_space(s) in text)
    fp = sum(1 for s in without if normalise_space(s) in text)
    return SnippetCounts(tp=tp, fn=len(with_) - tp, fp=fp, tn=len(without) - fp)


def _mean(values: Iterable[float]) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else math.nan


def snippet_summary(counts: Sequence[SnippetCounts]) -> dict[str, float]:
    """Means over pages of ``with_found``, ``without_absent`` and ``f1`` (each over the pages where
    it is defined), trafilatura's pooled ``micro_f1``, and the number of pages with snippets."""
    pooled = SnippetCounts(*(sum(getattr(c, k) for c in counts) for k in ("tp", "fn", "fp", "tn")))
    return {
        "with_found": _mean(c.with_found for c in counts),
        "without_absent": _mean(c.without_absent for c in counts),
        "f1": _mean(c.f1 for c in counts),
        "micro_f1": pooled.f1,
        "n_pages": len(counts),
    }
