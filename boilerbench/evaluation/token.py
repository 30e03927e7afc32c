"""Token-level bag-of-words precision, recall and F1: multiset overlap of normalised tokens.

Cheap and comparable with many public benchmarks. Tokens are the CleanEval score's tokens
(lowercased, ``, ; : . ? !`` deleted, markup removed, Chinese / Japanese / Thai segmented), so
the two metrics agree on what a word is; order is ignored here.
"""

from __future__ import annotations

from collections import Counter

from boilerbench.evaluation.classification import PRF, prf_from_counts
from boilerbench.evaluation.cleaneval_score import cleaneval_tokens, page_tokenizer


def token_prf(prediction: str, gold: str, tokenizer: str | None = None) -> PRF:
    """Bag-of-words P/R/F1 of one page (``tokenizer``: the page's, detected from the gold when None)."""
    tokenizer = page_tokenizer(prediction, gold, tokenizer)
    pred, ref = Counter(cleaneval_tokens(prediction, tokenizer)), Counter(cleaneval_tokens(gold, tokenizer))
    overlap = sum((pred & ref).values())
    return prf_from_counts(overlap, sum(pred.values()), sum(ref.values()))
