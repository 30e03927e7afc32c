"""Token-level bag-of-words precision, recall and F1: multiset overlap of normalised tokens.

Cheap and comparable with many public benchmarks. Tokens are the CleanEval score's tokens
(lowercased, ``, ; : . ? !`` deleted, markup removed), so the two metrics agree on what a word
is; order is ignored here.
"""

from __future__ import annotations

from collections import Counter

from boilerbench.evaluation.classification import PRF, prf_from_counts
from boilerbench.evaluation.cleaneval_score import cleaneval_tokens


def token_prf(prediction: str, gold: str) -> PRF:
    """Bag-of-words P/R/F1 of one page."""
    pred, ref = Counter(cleaneval_tokens(prediction)), Counter(cleaneval_tokens(gold))
    overlap = sum((pred & ref).values())
    return prf_from_counts(overlap, sum(pred.values()), sum(ref.values()))
