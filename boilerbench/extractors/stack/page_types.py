"""The stack's decoding by page type: which decoding suits which kind of page, learnt.

Datasets disagree where the stack hesitates: on a forum thread or a listing the blocks it scores
at 0.3 are mostly the replies or the items (WCXB's gold keeps them), on a news article they are
mostly its comments or teasers (Dragnet's gold drops them). Expected-F1 decoding keeps them and a
0.5 threshold drops them, so neither suits every page. ``decoding=by_page_type`` learns the
choice: a page-type classifier (multinomial logistic regression over a summary of the page's
feature rows, :func:`page_summary`) fitted on the training pages that carry a type (WCXB's
article, forum, listing, ...), then, for each type it predicts, the decoding with the higher
mean word-weighted block F1 over the pages it assigns that type: the training pages, with the
first stage's out-of-fold probabilities and, for the typed ones, out-of-fold types (stacked
generalisation, as the second stage learns), and the validation pages, with the final
probabilities. Pages of every dataset of the mixture count, so that an article of another
dataset taken for a forum counts against expected-F1 decoding there. A type leaves the threshold
only where expected-F1 decoding's mean gain is positive beyond its 95 % interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from boilerbench.datasets.blocks import Blocks
from boilerbench.evaluation.classification import prf_from_counts
from boilerbench.extractors.stack.items import item_layout, page_structure
from boilerbench.extractors.stack.structured import page_evidence


def page_summary(rows: np.ndarray, words: np.ndarray) -> np.ndarray:
    """One page's row: the mean of its blocks' feature rows, their word-weighted mean, and log
    of its number of blocks and of words. A missing feature (NaN: the stopword features of a
    language without a stoplist) counts as 0, since the classifier takes no missing values."""
    if not len(rows):
        return np.zeros(2 * rows.shape[1] + 2)
    rows = np.nan_to_num(rows, nan=0.0)
    weights = np.maximum(words, 1).astype(np.float64)
    return np.concatenate(
        [
            rows.mean(axis=0),
            weights @ rows / weights.sum(),
            [np.log1p(len(rows)), np.log1p(float(words.sum()))],
        ]
    )


def type_evidence(blocks: Blocks, url: str | None, items: np.ndarray | None = None) -> np.ndarray:
    """A page's evidence of its type beyond its blocks' features (the gate's ``type_evidence``):
    its schema.org families and URL words (:func:`~boilerbench.extractors.stack.structured.page_evidence`)
    and the shape of its item groups (:func:`~boilerbench.extractors.stack.items.page_structure`;
    ``items``: its :func:`~boilerbench.extractors.stack.items.item_layout`, made when not given)."""
    items = item_layout(blocks) if items is None else items
    return np.concatenate([page_evidence(blocks, url), page_structure(items, blocks.word_counts)])


def word_f1(labels: np.ndarray, gold: np.ndarray, words: np.ndarray) -> float:
    """F1 of the kept blocks' words against the gold blocks' words (one page)."""
    kept, wanted = labels.astype(bool), gold.astype(bool)
    return prf_from_counts(int(words[kept & wanted].sum()), int(words[kept].sum()), int(words[wanted].sum())).f1


@dataclass
class TypeGate:
    """A fitted page-type classifier (standardised features, multinomial logistic regression) and
    the decoding of each type."""

    classes: list[str]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    decoding: dict[str, str]
    #: the scores are divided by it before the softmax (temperature scaling: :func:`fit_temperature`)
    temperature: float = 1.0

    def page_type(self, summary: np.ndarray) -> str:
        """The predicted type of a page from its :func:`page_summary`."""
        return self.type_of(self.probabilities(summary))

    def type_of(self, probabilities: np.ndarray) -> str:
        """The type of a page whose :meth:`probabilities` are ``probabilities`` (the likeliest)."""
        return self.classes[int(np.argmax(probabilities))]

    def probabilities(self, summary: np.ndarray) -> np.ndarray:
        """The classifier's probability of each of :attr:`classes` (the softmax of its scores)."""
        scores = (self.coef @ ((summary - self.mean) / self.scale) + self.intercept) / self.temperature
        e = np.exp(scores - scores.max())
        return e / e.sum()

    def decoding_of(self, summary: np.ndarray) -> str:
        """The decoding of the page's predicted type."""
        return self.decoding_for(self.page_type(summary))

    def decoding_for(self, page_type: str) -> str:
        """The decoding of pages of type ``page_type`` (the threshold where none was chosen)."""
        return self.decoding.get(page_type, "threshold")

    def to_json(self) -> dict:
        return {
            "classes": self.classes,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept.tolist(),
            "decoding": self.decoding,
            "temperature": self.temperature,
        }

    @classmethod
    def from_json(cls, state: dict) -> TypeGate:
        arrays = {k: np.asarray(state[k], dtype=np.float64) for k in ("mean", "scale", "coef", "intercept")}
        return cls(
            classes=list(state["classes"]),
            decoding=dict(state["decoding"]),
            temperature=float(state.get("temperature", 1.0)),
            **arrays,
        )


def fit_classifier(summaries: np.ndarray, types: Sequence[str], seed: int) -> TypeGate:
    """The page-type classifier over ``summaries`` (one row per page), decoding left to choose."""
    from sklearn.linear_model import LogisticRegression

    mean = summaries.mean(axis=0)
    scale = summaries.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=0.1, max_iter=2000, random_state=seed)
    model.fit((summaries - mean) / scale, list(types))
    classes = [str(c) for c in model.classes_]
    coef, intercept = model.coef_, model.intercept_
    if len(classes) == 2:  # scikit-learn keeps one row for two classes: the second's score
        coef, intercept = np.vstack([-coef, coef]) / 2, np.array([-intercept[0], intercept[0]]) / 2
    return TypeGate(classes, mean, scale, coef, intercept, {})


def _folds(n: int, folds: int, seed: int) -> np.ndarray:
    """Each of ``n`` pages' fold, ``folds`` near-equal folds of a seeded permutation."""
    fold = np.empty(n, dtype=np.int64)
    fold[np.random.default_rng(seed).permutation(n)] = np.arange(n) % folds
    return fold


def out_of_fold_scores(
    summaries: np.ndarray, types: Sequence[str], classes: Sequence[str], folds: int, seed: int
) -> np.ndarray:
    """Each page's scores over ``classes`` (before the softmax) from a classifier fitted on the
    other ``folds - 1`` folds (seeded, shuffled): -inf for a class that classifier never saw
    (probability 0), a row of NaN where the other folds hold fewer than two types."""
    fold = _folds(len(types), folds, seed)
    scores = np.full((len(types), len(classes)), np.nan)
    for k in range(folds):
        held = fold == k
        rest = [t for t, h in zip(types, held, strict=True) if not h]
        if not held.any() or len(set(rest)) < 2:
            continue
        part = fit_classifier(summaries[~held], rest, seed)
        z = np.full((int(held.sum()), len(classes)), -np.inf)
        z[:, [list(classes).index(c) for c in part.classes]] = (
            (summaries[held] - part.mean) / part.scale
        ) @ part.coef.T + part.intercept
        scores[held] = z
    return scores


def fit_temperature(gate: TypeGate, summaries: np.ndarray, types: Sequence[str], folds: int, seed: int) -> float:
    """The temperature that minimises the log-loss of out-of-fold predictions
    (:func:`out_of_fold_scores`), searched on a log grid from 0.25 to 8: temperature scaling
    (Guo et al., ICML 2017, sec. 4.2), since a regularised classifier fitted on a few hundred pages
    is overconfident on new ones. Pages whose type their fold's classifier never saw are left out."""
    scores = out_of_fold_scores(summaries, types, gate.classes, folds, seed)
    truth = np.array([gate.classes.index(t) for t in types], dtype=np.int64)
    kept = ~np.isnan(scores).any(axis=1)
    kept[kept] = np.isfinite(scores[kept, truth[kept]])
    if not kept.any():
        return 1.0
    z, y = scores[kept], truth[kept]

    def log_loss(t: float) -> float:
        scaled = z / t
        top = scaled.max(axis=1, keepdims=True)
        log_norm = top[:, 0] + np.log(np.exp(scaled - top).sum(axis=1))
        return float(np.mean(log_norm - scaled[np.arange(len(y)), y]))

    grid = np.exp(np.linspace(np.log(0.25), np.log(8.0), 41))
    return float(min(grid, key=log_loss))


def out_of_fold_probabilities(
    gate: TypeGate, summaries: np.ndarray, types: Sequence[str], folds: int, seed: int
) -> np.ndarray:
    """Each typed page's probabilities over ``gate.classes`` from a classifier fitted on the other
    folds (:func:`out_of_fold_scores`, at the gate's temperature), so that what learns from them
    sees the classifier's errors as they fall on new pages; the gate's own where the other folds
    hold fewer than two types."""
    scores = out_of_fold_scores(summaries, types, gate.classes, folds, seed) / gate.temperature
    probabilities = np.empty_like(scores)
    for i, z in enumerate(scores):
        if np.isnan(z).any():
            probabilities[i] = gate.probabilities(summaries[i])
        else:
            e = np.exp(z - z.max())
            probabilities[i] = e / e.sum()
    return probabilities


def decoding_gains(predicted: Sequence[str], scores: Sequence[Callable[[str], float]]) -> dict[str, list[float]]:
    """Per predicted type: the number of pages, the mean gain of expected-F1 decoding over the
    threshold (``scores[i](decoding)``: page i's score with that decoding) and the half-width
    of its 95 % normal interval."""
    gains: dict[str, list[float]] = {}
    for page_type, score in zip(predicted, scores, strict=True):
        gains.setdefault(page_type, []).append(score("expected_f1") - score("threshold"))
    stats = {}
    for page_type, values in sorted(gains.items()):
        v = np.asarray(values)
        half = 1.96 * float(v.std(ddof=1)) / np.sqrt(len(v)) if len(v) > 1 else float("inf")
        stats[page_type] = [len(v), float(v.mean()), float(half)]
    return stats


def choose_decodings(classes: Sequence[str], gains: dict[str, list[float]]) -> dict[str, str]:
    """Expected-F1 decoding for the types where its gain over the threshold is positive beyond its
    95 % interval (:func:`decoding_gains`), the threshold elsewhere: the threshold is the default,
    left only where the pages show that the other decoding helps."""
    return {t: "expected_f1" if t in gains and gains[t][1] - gains[t][2] > 0 else "threshold" for t in classes}
