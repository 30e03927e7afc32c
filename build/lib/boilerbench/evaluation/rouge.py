"""ROUGE-LSum as the Web Content Extraction Benchmark computes it (Bevendorff et al., SIGIR 2023).

Their scorer is ``rouge_score``'s ``rougeLsum`` with whitespace tokens (case kept, no
stemming) and summary-level LCS (Lin 2004, sec. 3.2): each reference sentence is matched
against every predicted sentence, the union of the LCS hits counts, and a token is credited at
most as often as it occurs on both sides. Recall = hits / reference tokens, precision = hits /
predicted tokens. An empty reference gives recall 1, and precision and F1 1 when the
prediction is empty too (their convention).

One approximation: they split sentences with NLTK's Punkt model, which is a download; we split
at line breaks and after ``. ! ?`` followed by whitespace (after ``。！？`` for CJK), which gives
the same sentences on ordinary prose. Chinese, Japanese and Thai runs are segmented as the
other metrics segment them (:mod:`boilerbench.tokenizer`). Which of several equally long LCSs
is taken (rapidfuzz's choice here, a fixed
back-trace there) can change the union slightly.
"""

from __future__ import annotations

import re
from collections import Counter

from rapidfuzz.distance import LCSseq

from boilerbench.evaluation.classification import PRF
from boilerbench.evaluation.cleaneval_score import page_tokenizer
from boilerbench.tokenizer import split_tokens

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")


def sentences(text: str, tokenizer: str = "whitespace") -> list[list[str]]:
    """Tokens of each sentence (empty sentences dropped): whitespace tokens, with Chinese /
    Japanese / Thai runs segmented by ``tokenizer`` (case and punctuation kept)."""
    return [tokens for part in _SENTENCE_END.split(text) if (tokens := split_tokens(part, tokenizer))]


def union_lcs(reference: list, candidates: list[list]) -> list[int]:
    """Positions in ``reference`` that lie on an LCS with at least one candidate sentence, in order."""
    hit: set[int] = set()
    for candidate in candidates:
        for block in LCSseq.editops(reference, candidate).as_matching_blocks():
            hit.update(range(block.a, block.a + block.size))
    return sorted(hit)


def rouge_lsum(prediction: str, gold: str, tokenizer: str | None = None) -> PRF:
    """ROUGE-LSum precision, recall and F1 of ``prediction`` against ``gold``."""
    tokenizer = page_tokenizer(prediction, gold, tokenizer)
    reference, candidate = sentences(gold, tokenizer), sentences(prediction, tokenizer)
    n_ref = sum(map(len, reference))
    n_pred = sum(map(len, candidate))
    if n_ref == 0:
        return PRF(1.0, 1.0, 1.0) if n_pred == 0 else PRF(0.0, 1.0, 0.0)
    if n_pred == 0:
        return PRF(0.0, 0.0, 0.0)
    # tokens as integer ids: rapidfuzz compares integer sequences much faster than strings
    ids: dict[str, int] = {}
    ref_ids = [[ids.setdefault(t, len(ids)) for t in s] for s in reference]
    pred_ids = [[ids.setdefault(t, len(ids)) for t in s] for s in candidate]
    ref_left = Counter(t for s in ref_ids for t in s)
    pred_left = Counter(t for s in pred_ids for t in s)
    candidate_sets = [set(c) for c in pred_ids]
    hits = 0
    for sentence in ref_ids:
        words = set(sentence)
        # a candidate sentence sharing no token with this one adds nothing to the union
        sharing = [
            c for c, vocabulary in zip(pred_ids, candidate_sets, strict=True) if not words.isdisjoint(vocabulary)
        ]
        for position in union_lcs(sentence, sharing):
            token = sentence[position]
            if ref_left[token] > 0 and pred_left[token] > 0:
                hits += 1
                ref_left[token] -= 1
                pred_left[token] -= 1
    precision, recall = hits / n_pred, hits / n_ref
    f1 = 0.0 if hits == 0 else 2 * precision * recall / (precision + recall)
    return PRF(precision, recall, f1)
