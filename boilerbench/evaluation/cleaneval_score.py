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
starting and ending in the same places" (devset page of the competition). Its source is not
available here, so TM is defined as the same word edit-distance score over token streams in
which each marker is a token of its own kind (``<p>``, ``<h>``, ``<l>``) placed before the
words of its segment: a marker counts as matched only when the alignment puts a marker of the
same kind before the same words, i.e. a segment of the right type starts in the same place; a
missing, extra or mistyped marker costs what a missing or extra word costs. Text before the
first marker has no marker.

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

from rapidfuzz.distance import LCSseq

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
    return CleanEvalCounts(int(LCSseq.similarity(pred, ref)), len(pred), len(ref))


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


def cleaneval_markup_counts(prediction_markup: str, gold_markup: str, tokenizer: str | None = None) -> CleanEvalCounts:
    """LCS length and token counts of the TM streams of a prediction and a gold in CleanEval format."""
    tokenizer = page_tokenizer(prediction_markup, gold_markup, tokenizer)
    pred, ref = markup_tokens(prediction_markup, tokenizer), markup_tokens(gold_markup, tokenizer)
    return CleanEvalCounts(int(LCSseq.similarity(pred, ref)), len(pred), len(ref))


def cleaneval_markup_score(prediction_markup: str, gold_markup: str, tokenizer: str | None = None) -> float:
    """CleanEval text-and-markup score in [0, 100] of one page."""
    return cleaneval_markup_counts(prediction_markup, gold_markup, tokenizer).score
