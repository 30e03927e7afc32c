"""The CleanEval 2007 scores: text only, text and markup, and the competition's average of the two.

**Text only** (TO), as the official scorer computes it: both texts drop the ``URL:`` line,
replace ``<p> <h> <l>`` markers by spaces, and are tokenized by the page's tokenizer
(:mod:`boilerbench.tokenizer`: for Latin script, whitespace split, lowercase, ``, ; : . ? !``
deleted, empty tokens dropped). With L the length of the longest common subsequence of the two
token lists, a = |prediction| and b = |gold|: ``score = 100 * L / (a + b - L)``, which equals
100 minus 100 x the edit distance (insert = delete = 1, substitute = 2) over the alignment
length. Both empty: 100.

**Text and markup** (TM). The 2007 task asked for the text *with* its structure: every
paragraph, heading and list item opened by ``<p>``, ``<h>`` or ``<l>`` (annotation guidelines,
cleaneval.sigwac.org.uk; papers/002: "markup-text - test na spravnost prirazeni znacek <p>,
<l>, <h>"). The organisers' scorer (Chantree's ``cleaneval.prl``) scored "the edit distance
between the two and the extent to which contestant-inserted markup tags indicate blocks of text
starting and ending in the same places" (the competition's devset page). Its source is not
available here, so TM is defined from that sentence as the mean of two parts, each in [0, 100]:

1. *markup edit score*: the text-only score over token streams in which each marker is a
   token of its own kind (``<p>``, ``<h>``, ``<l>``) placed before the words of its segment:
   a marker is matched only when the alignment puts a marker of the same kind before the same
   words; a missing, extra or mistyped marker costs what a missing or extra word costs.
2. *segment validity*: align the two text token streams (the text-only LCS); a predicted
   segment (the words after one marker, up to the next; text before the first marker is a
   segment too) is *valid* when its first and last words are matched to the first and last
   words of one gold segment, i.e. it starts and ends in the same places. Precision = valid /
   predicted segments, recall = valid / gold segments, score = 100 x F1 (100 when neither
   side has a segment, 0 when only one has). Segments without words are ignored.

The markers are the only structure either part sees: the words' order and identity are already
in TO. Without part 2, TM sits 2-4 points under TO on CleanEval (a marker is one token in
about 30); the organisers' Table 5 has TM 17-23 points under TO for every system, which needs a
segment-level term of this kind (with it, TM sits 11-14 points under TO on CleanEval).

**2007 score**: the competition ranked systems by the average of TM and TO (LREC 2008 paper,
Table 5: "Text and Markup", "Text Only", "Ave"; Victor 65.3 / 84.1 / 74.7). The published
figures of papers/002 (Victor 74.7, Kimatu 74.3, WCC 74.2, HTMLCleaner 74.0, GenieKnows 73.6,
StupidOS 71.6, FIASCO 63.5) are that average. The mean over pages of the per-page average is
the average of the two means.

An extractor that outputs structure gives its text in CleanEval format
(:attr:`boilerbench.extractors.base.Extraction.markup`); one that does not gets the text-only
structure: each non-empty line of its text is a ``<p>`` paragraph (:func:`text_only_markup`),
which is what the 2007 WCC baseline did ("all blocks as <p>").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from boilerbench.lcs import lcs_alignment, lcs_length
from boilerbench.text import CLEANEVAL_MARKER, CLEANEVAL_URL_LINE, strip_cleaneval_markup
from boilerbench.tokenizer import normalise_tokens, tokenizer_for


@dataclass(frozen=True)
class CleanEvalCounts:
    """The quantities behind one page's score: LCS length, prediction and gold token counts."""

    lcs: int
    n_pred: int
    n_gold: int

    @property
    def alignment_length(self) -> int:
        return self.n_pred + self.n_gold - self.lcs

    @property
    def score(self) -> float:
        return 100.0 if self.alignment_length == 0 else 100.0 * self.lcs / self.alignment_length


def page_tokenizer(prediction: str, gold: str, tokenizer: str | None) -> str:
    """``tokenizer`` when given, else the one detected from the gold text (from the prediction
    when the gold has no script-specific character)."""
    if tokenizer is not None:
        return tokenizer
    detected = tokenizer_for(None, gold)
    return detected if detected != "whitespace" else tokenizer_for(None, prediction)


def cleaneval_tokens(text: str, tokenizer: str | None = None) -> list[str]:
    """Tokens as the CleanEval scorer compares them (markup removed, normalised)."""
    return normalise_tokens(strip_cleaneval_markup(text), tokenizer)


def cleaneval_counts(prediction: str, gold: str, tokenizer: str | None = None) -> CleanEvalCounts:
    """LCS length and token counts of ``prediction`` against ``gold`` (text only)."""
    tokenizer = page_tokenizer(prediction, gold, tokenizer)
    pred, ref = cleaneval_tokens(prediction, tokenizer), cleaneval_tokens(gold, tokenizer)
    return CleanEvalCounts(lcs_length(pred, ref), len(pred), len(ref))


def cleaneval_score(prediction: str, gold: str, tokenizer: str | None = None) -> float:
    """CleanEval text-only score in [0, 100] of one page."""
    return cleaneval_counts(prediction, gold, tokenizer).score


def cleaneval_micro(counts: Iterable[CleanEvalCounts]) -> float:
    """Micro aggregate: 100 * sum of L over sum of (a + b - L); 100 when everything is empty."""
    lcs = total = 0
    for c in counts:
        lcs += c.lcs
        total += c.alignment_length
    return 100.0 if total == 0 else 100.0 * lcs / total


def has_markup(text: str) -> bool:
    """Whether ``text`` carries at least one CleanEval segment marker."""
    return CLEANEVAL_MARKER.search(text) is not None


def text_only_markup(text: str) -> str:
    """The text-only structure of an unstructured extraction: every non-empty line a ``<p>``."""
    return "\n".join(f"<p>{line.strip()}" for line in text.splitlines() if line.strip())


def markup_tokens(markup: str, tokenizer: str | None = None) -> list[str]:
    """The TM token stream: each ``<p> <h> <l>`` marker a token (lowercased kind) before the
    normalised tokens of its segment; the ``URL:`` line dropped."""
    text = CLEANEVAL_URL_LINE.sub("", markup.lstrip("\ufeff"), count=1)
    pieces = CLEANEVAL_MARKER.split(text)  # [before, kind, text, kind, text, ...]
    tokens = normalise_tokens(pieces[0], tokenizer)
    for kind, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        tokens.append(f"<{kind.lower()}>")
        tokens.extend(normalise_tokens(piece, tokenizer))
    return tokens


def segments(markup: str, tokenizer: str | None = None) -> tuple[list[str], np.ndarray]:
    """The text tokens of a CleanEval-format text and, per token, the index of its segment."""
    text = CLEANEVAL_URL_LINE.sub("", markup.lstrip("\ufeff"), count=1)
    pieces = CLEANEVAL_MARKER.split(text)
    tokens: list[str] = []
    owner: list[int] = []
    for k, piece in enumerate(pieces[0::2]):
        words = normalise_tokens(piece, tokenizer)
        tokens.extend(words)
        owner.extend([k] * len(words))
    return tokens, np.asarray(owner, dtype=np.int64)


def segment_validity(prediction_markup: str, gold_markup: str, tokenizer: str | None = None) -> float:
    """100 x F1 of predicted segments that start and end where a gold segment does (see the module doc)."""
    tokenizer = page_tokenizer(prediction_markup, gold_markup, tokenizer)
    pred, pred_seg = segments(prediction_markup, tokenizer)
    ref, ref_seg = segments(gold_markup, tokenizer)
    n_pred, n_ref = len(np.unique(pred_seg)), len(np.unique(ref_seg))
    if n_pred == 0 or n_ref == 0:
        return 100.0 if n_pred == n_ref else 0.0
    match = lcs_alignment(pred, ref)
    # first and last token of every segment, on both sides
    pred_first = np.flatnonzero(np.r_[True, pred_seg[1:] != pred_seg[:-1]])
    pred_last = np.r_[pred_first[1:] - 1, len(pred) - 1]
    ref_starts = np.zeros(len(ref), dtype=bool)
    ref_starts[np.flatnonzero(np.r_[True, ref_seg[1:] != ref_seg[:-1]])] = True
    ref_ends = np.r_[ref_starts[1:], True]
    a, b = match[pred_first], match[pred_last]
    valid = (a >= 0) & (b >= 0)
    valid[valid] &= ref_starts[a[valid]] & ref_ends[b[valid]] & (ref_seg[a[valid]] == ref_seg[b[valid]])
    hits = int(valid.sum())
    if hits == 0:
        return 0.0
    precision, recall = hits / n_pred, hits / n_ref
    return 100.0 * 2 * precision * recall / (precision + recall)


def markup_edit_counts(prediction_markup: str, gold_markup: str, tokenizer: str | None = None) -> CleanEvalCounts:
    """LCS length and token counts of the TM streams (markers as tokens) of a prediction and a gold."""
    tokenizer = page_tokenizer(prediction_markup, gold_markup, tokenizer)
    pred, ref = markup_tokens(prediction_markup, tokenizer), markup_tokens(gold_markup, tokenizer)
    return CleanEvalCounts(lcs_length(pred, ref), len(pred), len(ref))


def cleaneval_markup_score(prediction_markup: str, gold_markup: str, tokenizer: str | None = None) -> float:
    """CleanEval text-and-markup score in [0, 100] of one page: the mean of the markup edit
    score and the segment validity."""
    tokenizer = page_tokenizer(prediction_markup, gold_markup, tokenizer)
    edit = markup_edit_counts(prediction_markup, gold_markup, tokenizer).score
    return (edit + segment_validity(prediction_markup, gold_markup, tokenizer)) / 2
