"""A page-level arbiter between two extractors (issue 29): both extract every page, and a small
model learnt on the validation pages says whose extraction to keep.

The stack decides block by block; Readability (Arc90's algorithm) takes one element for the whole
article. On a short article beside a rail of teaser summaries the stack keeps the teasers with the
article, which no block feature tells apart from a news story's paragraphs in a language the
training pages barely hold, while Readability's single element leaves them out (DANIEL's Greek and
Russian sites where the stack loses to it). Where Readability is wrong the two disagree the other
way: its element misses a forum's replies, a listing's items, the headings and lists CleanEval's
gold keeps. Which of the two to trust is a page-level question, asked of what the two extractions
are and how they overlap (:func:`arbiter_features`), not of the page's language.

The selector is a logistic regression of "the alternative's token F1 is higher" on those features,
each validation page weighted by how much the choice changes its F1 (a page where both agree
teaches nothing), so that it learns the pages where the choice matters. It is fitted on the
validation pages: the base stack's early stopping reads them, but it is not trained on them, so
its extractions there are as it makes them on new pages, and their errors are what the selector
must learn to see. A page goes to the alternative when the predicted probability is above
``threshold``. It is saved as numbers in JSON; nothing is unpickled.

The alternative is a fallback's opposite: the base's extraction stands where the alternative
extracts nothing, fails or refuses the page (Readability on a page nested deeper than libxml2
reads, or over its size limit), so the arbiter accepts every page its base accepts. Such pages are
left out of the selector's rows, as they are of its choices.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from boilerbench.atomic import atomic_write_text
from boilerbench.cache import code_version, content_key
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.evaluation.token import token_prf
from boilerbench.extractors.base import (
    BaseExtractor,
    Extraction,
    Tags,
    dependency_versions,
    feature_names,
    members,
    require_fitted,
    tags,
)
from boilerbench.extractors.members import Member
from boilerbench.extractors.sharing import sharing
from boilerbench.extractors.training import hold_out
from boilerbench.tokenizer import detect_tokenizer, split_tokens

#: The two extractors, in the order they run.
SIDES = ("base", "alternative")
STATE_FILE = "arbiter.json"
#: The selector's inputs (:func:`arbiter_features`).
FEATURES = (
    "log_tokens_ratio",
    "log_base_tokens",
    "log_alternative_tokens",
    "alternative_in_base",
    "base_in_alternative",
    "base_doubt",
    "base_article",
)


def arbiter_features(base: Extraction, alternative: Extraction) -> np.ndarray:
    """The selector's row for one page: the log ratio of the two extractions' token counts, each
    count's log, the share of the alternative's tokens that the base's text holds and the other way
    round (bag of tokens, the page's script's tokenizer read from the base's text), the base's
    ``doubt`` and its page-type classifier's confidence that the page is an article (0 when it
    predicts another type; both NaN when the base does not report them)."""
    text = base.text or alternative.text
    tokenizer = detect_tokenizer(text)
    ours = Counter(split_tokens(base.text, tokenizer))
    theirs = Counter(split_tokens(alternative.text, tokenizer))
    n_ours, n_theirs = sum(ours.values()), sum(theirs.values())
    common = sum((ours & theirs).values())
    page_type = base.info.get("predicted_page_type")
    article = float(base.info.get("page_type_confidence", np.nan)) if page_type == "article" else 0.0
    return np.array(
        [
            np.log1p(n_theirs) - np.log1p(n_ours),
            np.log1p(n_ours),
            np.log1p(n_theirs),
            common / n_theirs if n_theirs else 1.0,
            common / n_ours if n_ours else 1.0,
            float(base.info.get("doubt", np.nan)),
            article if page_type is not None else np.nan,
        ]
    )


def extract_or_empty(extractor: BaseExtractor, page: Page) -> Extraction:
    """The extractor's extraction, or an empty one with ``arbiter_alternative_error`` where it
    fails on the page (the base's extraction then stands)."""
    try:
        return extractor.extract(page)
    except Exception as err:  # noqa: BLE001 -- any failure of the alternative leaves the base's extraction
        return Extraction("", info={"arbiter_alternative_error": f"{type(err).__name__}: {err}"[:200]})


def page_gain(base: Extraction, alternative: Extraction, page: Page) -> float:
    """How much higher the alternative's token F1 is than the base's on a page with gold text."""
    gold, tokenizer = page.gold_text, page.tokenizer
    return token_prf(alternative.text, gold, tokenizer).f1 - token_prf(base.text, gold, tokenizer).f1


class Selector:
    """A weighted logistic regression on standardised features, a missing value (NaN) read as the
    training rows' mean; its state is plain numbers (``to_json``/``from_json``)."""

    def __init__(self, mean: np.ndarray, scale: np.ndarray, coef: np.ndarray, intercept: float) -> None:
        self.mean, self.scale, self.coef, self.intercept = mean, scale, coef, intercept

    @classmethod
    def fit(cls, X: np.ndarray, gain: np.ndarray, c: float, seed: int) -> Selector:
        """Fit "the alternative is better" on the rows of pages where the two differ, each
        weighted by ``|gain|`` and standardised over those rows (a page where both agree changes
        nothing). A side that never wins gives a constant selector."""
        from sklearn.linear_model import LogisticRegression

        differ = gain != 0
        rows = X[differ]
        known = ~np.isnan(rows)
        counts = known.sum(axis=0)
        mean = np.where(counts > 0, np.where(known, rows, 0.0).sum(axis=0) / np.maximum(counts, 1), 0.0)
        Z = np.where(known, rows, mean)
        scale = Z.std(axis=0) if len(Z) else np.ones(X.shape[1])
        scale = np.where(scale > 0, scale, 1.0)
        y = (gain[differ] > 0).astype(int)
        if len(np.unique(y)) < 2:
            return cls(mean, scale, np.zeros(X.shape[1]), 10.0 if y.size and y[0] else -10.0)
        model = LogisticRegression(C=c, random_state=seed, max_iter=1000)
        model.fit((Z - mean) / scale, y, sample_weight=np.abs(gain[differ]))
        return cls(mean, scale, model.coef_[0].copy(), float(model.intercept_[0]))

    def probability(self, X: np.ndarray) -> np.ndarray:
        """P(the alternative is better) of each row."""
        X = np.atleast_2d(X)
        Z = (np.where(np.isnan(X), self.mean, X) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(Z @ self.coef + self.intercept)))

    def to_json(self) -> dict:
        return {
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept,
        }

    @classmethod
    def from_json(cls, state: dict) -> Selector:
        return cls(
            np.asarray(state["mean"], dtype=np.float64),
            np.asarray(state["scale"], dtype=np.float64),
            np.asarray(state["coef"], dtype=np.float64),
            float(state["intercept"]),
        )


class Arbiter(BaseExtractor):
    """``base`` and ``alternative`` on every page; the alternative's extraction where the selector
    learnt on the validation pages gives it a probability above ``threshold`` of the higher token
    F1. ``c``: the logistic regression's inverse regularisation; ``validation_share``: the share of
    the training pages held out for the selector when the split has no validation pages."""

    def __init__(
        self,
        base: BaseExtractor | None = None,
        alternative: BaseExtractor | None = None,
        threshold: float = 0.5,
        c: float = 1.0,
        validation_share: float = 0.1,
        seed: int = 0,
    ) -> None:
        if base is None or alternative is None:
            raise ConfigError("an arbiter needs both extractors: extractor.base and extractor.alternative")
        if not 0.0 < threshold < 1.0:
            raise ConfigError(f"extractor.threshold={threshold} must be between 0 and 1")
        if not c > 0.0:
            raise ConfigError(f"extractor.c={c} must be above 0")
        if not 0.0 < validation_share < 1.0:
            raise ConfigError(f"extractor.validation_share={validation_share} must be between 0 and 1")
        self.base = base
        self.alternative = alternative
        self.threshold = threshold
        self.c = c
        self.validation_share = validation_share
        self.seed = seed

    def _sides(self) -> tuple[BaseExtractor, BaseExtractor]:
        return self.base, self.alternative

    def _named(self) -> list[tuple[str, BaseExtractor]]:
        return list(zip(SIDES, self._sides(), strict=True))

    def __boilerbench_tags__(self) -> Tags:
        sides = [tags(s) for s in self._sides()]
        return replace(
            super().__boilerbench_tags__(),
            learns=True,
            persistent=all(t.persistent or not t.learns for t in sides),
            loads_pickle=any(t.loads_pickle for t in sides),
            has_members=True,
            has_feature_names=True,
            distributions=tuple(dict.fromkeys(d for t in sides for d in t.distributions)),
            max_html_chars=tags(self.base).max_html_chars,
        )

    def saved_params(self) -> dict:
        """Each side's saved hyperparameters and the selector's."""
        return {
            "base": self.base.saved_params(),
            "alternative": self.alternative.saved_params(),
            "threshold": self.threshold,
            "c": self.c,
            "validation_share": self.validation_share,
            "seed": self.seed,
        }

    def built_members(self) -> list[Member]:
        """Both sides' members, once each by name."""
        return list({m.name: m for s in self._sides() for m in members(s)}.values())

    def dependency_versions(self) -> list[str]:
        """The code version of each side's module with what its output depends on."""
        return [content_key(code_version(type(s).__module__), *dependency_versions(s))[:16] for s in self._sides()]

    def feature_names(self) -> list[str]:
        """The selector's inputs, then each side's feature names prefixed with the side."""
        names = [f"arbiter.{f}" for f in FEATURES]
        return names + [f"{name}.{n}" for name, s in self._named() for n in feature_names(s) or ()]

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> Arbiter:
        """Fit both sides on the training pages (the validation pages for their early stopping),
        then the selector on the validation pages (a ``validation_share`` of the training pages
        held out when there are none)."""
        train, validation = hold_out(train, validation, self.validation_share, random.Random(self.seed))
        for side in self._sides():
            if tags(side).learns:
                side.fit(train, validation)
        rows, gains = [], []
        for page in validation:
            with sharing(page):
                ours, theirs = self.base.extract(page), extract_or_empty(self.alternative, page)
            if not theirs.text.strip():
                continue
            rows.append(arbiter_features(ours, theirs))
            gains.append(page_gain(ours, theirs, page))
        X = np.array(rows).reshape(len(rows), len(FEATURES))
        self.selector_ = Selector.fit(X, np.array(gains), self.c, self.seed)
        self.fit_info_ = {
            "selector_pages": len(rows),
            "alternative_better": int(np.sum(np.array(gains) > 0)),
            "base_better": int(np.sum(np.array(gains) < 0)),
        }
        return self

    def extract(self, page: Page) -> Extraction:
        """The base's extraction, or the alternative's where the selector prefers it and it has text. Both run in
        one :func:`sharing` scope (a member both read votes once). ``info``: the chosen side's,
        each side's ms summed, ``arbiter_probability``, ``arbiter_choice`` and, where the alternative
        failed, ``arbiter_alternative_error``."""
        require_fitted(self, "selector_")
        with sharing(page):
            ours = self.base.extract(page)
            theirs = extract_or_empty(self.alternative, page)
        probability = float(self.selector_.probability(arbiter_features(ours, theirs))[0])
        chosen = theirs if probability > self.threshold and theirs.text.strip() else ours
        other = ours if chosen is theirs else theirs
        times = {k: v + other.info.get(k, 0.0) for k, v in chosen.info.items() if k.endswith("_ms")}
        chosen.info.update(times, arbiter_probability=probability, arbiter_choice=SIDES[chosen is theirs])
        if "arbiter_alternative_error" in theirs.info:
            chosen.info["arbiter_alternative_error"] = theirs.info["arbiter_alternative_error"]
        return chosen

    def run_info(self) -> dict:
        require_fitted(self, "selector_")
        return {
            "selector": self.selector_.to_json(),
            **self.fit_info_,
            **{name: s.run_info() for name, s in self._named() if tags(s).learns},
        }

    def save(self, directory: str | os.PathLike[str]) -> None:
        require_fitted(self, "selector_")
        directory = Path(directory)
        for name, side in self._named():
            if tags(side).learns:
                (directory / name).mkdir(parents=True, exist_ok=True)
                side.save(directory / name)  # type: ignore[attr-defined]
        state = {"params": self.saved_params(), "selector": self.selector_.to_json(), "fit_info": self.fit_info_}
        atomic_write_text(directory / STATE_FILE, json.dumps(state, indent=1))

    def load(self, directory: str | os.PathLike[str]) -> Arbiter:
        directory = Path(directory)
        state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        self.check_saved_params(state["params"], directory)
        for name, side in self._named():
            if tags(side).learns:
                side.load(directory / name)  # type: ignore[attr-defined]
        self.selector_ = Selector.from_json(state["selector"])
        self.fit_info_ = dict(state["fit_info"])
        return self
