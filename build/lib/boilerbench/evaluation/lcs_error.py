"""The SCEDD paper's per-page error measure (papers/004, sec. 4.3.2).

``error = 1 - LCS(result, gold) / len(result)``: the share of the extracted text that is not
part of the reference. We count on the CleanEval scorer's normalised tokens (the LCS is the
one the CleanEval score already computes); the paper's Chinese pages were counted in
characters, which for English would credit common letters of unrelated words; Chinese pages
are counted in jieba words here (:mod:`boilerbench.tokenizer`). An empty
result has error 1 when the gold is not empty (nothing was found) and 0 when it is. A page
is *wrong* when its error exceeds 0.2 (the paper raised the bar to 20 % because source and
author lines around short texts are not strictly noise).
"""

from __future__ import annotations

from boilerbench.evaluation.cleaneval_score import CleanEvalCounts, cleaneval_counts

#: Error above which the paper counts a page as wrongly extracted.
WRONG_THRESHOLD = 0.2


def lcs_error_from_counts(counts: CleanEvalCounts) -> float:
    """The error of one page from its CleanEval counts (LCS and token counts)."""
    if counts.n_pred == 0:
        return 0.0 if counts.n_gold == 0 else 1.0
    return 1.0 - counts.lcs / counts.n_pred


def lcs_error(prediction: str, gold: str, tokenizer: str | None = None) -> float:
    """SCEDD's error of ``prediction`` against ``gold``, in [0, 1]."""
    return lcs_error_from_counts(cleaneval_counts(prediction, gold, tokenizer))


def is_wrong(error: float, threshold: float = WRONG_THRESHOLD) -> bool:
    """The paper's verdict: wrong when the error exceeds the threshold."""
    return error > threshold
