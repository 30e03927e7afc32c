"""Token-level bag-of-words precision, recall and F1: multiset overlap of normalised tokens.

Cheap and comparable with many public benchmarks. Tokens are the CleanEval score's tokens
(lowercased, ``, ; : . ? !`` deleted, markup removed, Chinese / Japanese / Thai segmented), so
the two metrics agree on what a word is; order is ignored here.

:func:`word_prf` is WCXB's "word F1" (its README and evaluation script): the same bag-of-words
F1 over ``\\w+`` runs of the lowercased texts, so that our figures sit beside its published ones
(``state-of-the-art`` is one token for :func:`token_prf`, four words for :func:`word_prf`).
"""

from __future__ import annotations

import re
from collections import Counter

from boilerbench.evaluation.classification import PRF, prf_from_counts
from boilerbench.evaluation.cleaneval_score import cleaneval_tokens, page_tokenizer

_WORD = re.compile(r"\w+")


def token_prf(prediction: str, gold: str, tokenizer: str | None = None) -> PRF:
    """Bag-of-words P/R/F1 of one page (``tokenizer``: the page's, detected from the gold when None)."""
    tokenizer = page_tokenizer(prediction, gold, tokenizer)
    return _bag_prf(Counter(cleaneval_tokens(prediction, tokenizer)), Counter(cleaneval_tokens(gold, tokenizer)))


def _bag_prf(pred: Counter, ref: Counter) -> PRF:
    return prf_from_counts(sum((pred & ref).values()), sum(pred.values()), sum(ref.values()))


def word_prf(prediction: str, gold: str) -> PRF:
    """WCXB's word P/R/F1 of one page: bag of lowercased ``\\w+`` runs."""
    return _bag_prf(Counter(_WORD.findall(prediction.lower())), Counter(_WORD.findall(gold.lower())))
