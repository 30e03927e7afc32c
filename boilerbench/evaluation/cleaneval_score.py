"""The CleanEval 2007 text score ("text only"), as the official scorer computes it.

Both texts: drop the ``URL:`` line, replace ``<p> <h> <l>`` markers by spaces, split on
whitespace, lowercase, delete ``, ; : . ? !`` and drop empty tokens. With L the length of the
longest common subsequence of the two token lists, a = |prediction| and b = |gold|:
``score = 100 * L / (a + b - L)``, which equals 100 minus 100 x the edit distance (insert =
delete = 1, substitute = 2) over the alignment length. Both empty: 100.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz.distance import LCSseq

from boilerbench.text import normalise_tokens, strip_cleaneval_markup


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


def cleaneval_tokens(text: str) -> list[str]:
    """Tokens as the CleanEval scorer compares them (markup removed, normalised)."""
    return normalise_tokens(strip_cleaneval_markup(text))


def cleaneval_counts(prediction: str, gold: str) -> CleanEvalCounts:
    """LCS length and token counts of ``prediction`` against ``gold``."""
    pred, ref = cleaneval_tokens(prediction), cleaneval_tokens(gold)
    return CleanEvalCounts(int(LCSseq.similarity(pred, ref)), len(pred), len(ref))


def cleaneval_score(prediction: str, gold: str) -> float:
    """CleanEval text score in [0, 100] of one page."""
    return cleaneval_counts(prediction, gold).score


def cleaneval_micro(counts: Iterable[CleanEvalCounts]) -> float:
    """Micro aggregate: 100 * sum of L over sum of (a + b - L); 100 when everything is empty."""
    lcs = total = 0
    for c in counts:
        lcs += c.lcs
        total += c.alignment_length
    return 100.0 if total == 0 else 100.0 * lcs / total
