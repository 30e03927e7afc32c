"""A page-level arbiter between two extractors (issue 29): both extract every page, and a small
model learnt on out-of-fold extractions of the training pages says whose extraction to keep.

The stack decides block by block; Readability (Arc90's algorithm) takes one element for the whole
article. On a short article beside a rail of teaser summaries the stack keeps the teasers with the
article, which no block feature tells apart from a news story's paragraphs in a language the
training pages barely hold, while Readability's single element leaves them out (DANIEL's Greek and
Russian sites where the stack loses to it). Where Readability is wrong the two disagree the other
way: its element misses a forum's replies, a listing's items, the headings and lists CleanEval's
gold keeps. Which of the two to trust is a page-level question, asked of what the two extractions
are and how they overlap (:func:`extraction_features`) and of what they disagree on, block by block
(:func:`structure_features`): a rail of teasers is short linked items after the text both keep, a
thread's replies long unlinked ones. It is never asked of the page's language.

The selector is a small set of gradient-boosted trees (LightGBM) for "the alternative's token F1
is higher", each page weighted by how much the choice changes its F1 (a page where both agree
teaches nothing). It must learn the base's errors as they fall on pages the base never saw, so its
rows are out of fold (stacked generalisation, Wolpert 1992): the training pages are cut into
``selector_folds`` folds by site (``meta["group"]``; a page a balanced mixture repeats stays in one
fold), a clone of the base is fitted on the other folds and extracts each fold's pages; the
validation pages add their rows from the final base, fitted on all training pages. The base's
extractions of its own training pages would teach it nothing: the base fits them. With
``threshold`` None the probability above which a page goes to the alternative is chosen on the same
rows, by the selector's own out-of-fold predictions (the candidate with the largest mean gain).
The trees are saved as LightGBM's text in JSON; nothing is unpickled.

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
from typing import Any

import numpy as np

from boilerbench.atomic import atomic_write_text
from boilerbench.cache import code_version, content_key
from boilerbench.datasets.base import group_folds
from boilerbench.datasets.blocks import Blocks
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, import_optional
from boilerbench.evaluation.token import token_prf
from boilerbench.extractors.base import (
    BaseExtractor,
    Extraction,
    Tags,
    clone,
    dependency_versions,
    feature_names,
    members,
    require_fitted,
    tags,
)
from boilerbench.extractors.cleaneval2007.lines import in_link
from boilerbench.extractors.members import Member
from boilerbench.extractors.sharing import sharing
from boilerbench.extractors.training import hold_out
from boilerbench.tokenizer import detect_tokenizer, split_tokens

#: The two extractors, in the order they run.
SIDES = ("base", "alternative")
STATE_FILE = "arbiter.json"
#: What the two extractions are and how they overlap (:func:`extraction_features`).
EXTRACTION_FEATURES = (
    "log_tokens_ratio",
    "log_base_tokens",
    "log_alternative_tokens",
    "alternative_in_base",
    "base_in_alternative",
    "base_doubt",
    "base_article",
)
#: What the base keeps and the alternative leaves out, and the other way round, as blocks
#: (:func:`structure_features`).
STRUCTURE_FEATURES = (
    "extra_words_share",
    "extra_link_share",
    "kept_link_share",
    "extra_block_words",
    "extra_repeated_share",
    "extra_runs",
    "extra_after_share",
    "extra_before_share",
    "missing_words_share",
    "extra_covered_path_share",
    "extra_dropped_path_share",
)
#: The selector's inputs (:func:`arbiter_features`).
FEATURES = EXTRACTION_FEATURES + STRUCTURE_FEATURES
#: Below this share of its token pairs in the alternative's text, a block the base keeps is
#: "extra": the base's and not the alternative's.
COVERED = 0.5


def extraction_features(base: Extraction, alternative: Extraction) -> np.ndarray:
    """The log ratio of the two extractions' token counts, each count's log, the share of the
    alternative's tokens that the base's text holds and the other way round (bag of tokens, the
    page's script's tokenizer read from the base's text), the base's ``doubt`` and its page-type
    classifier's confidence that the page is an article (0 when it predicts another type; both NaN
    when the base does not report them)."""
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


def token_pairs(tokens: Sequence[str]) -> list[tuple[str, ...]]:
    """The successive token pairs of a text (its one token alone when it has one): specific enough
    to find a block's text within another extraction where single tokens (Chinese characters, the
    commonest words) are found anywhere."""
    return list(zip(tokens, tokens[1:], strict=False)) if len(tokens) > 1 else [tuple(tokens)] if tokens else []


def block_cover(blocks: Blocks, text: str) -> np.ndarray:
    """Per block, the share of its token pairs that ``text`` holds (1 for a block without tokens),
    both split by the page's tokenizer, case and punctuation kept. The blocks' cached metric tokens
    (:attr:`Blocks.tokens`, lowercased, punctuation deleted) would be four times faster, but match
    single-word blocks anywhere and cover punctuation-only ones: by the site-grouped CV's replayed
    rows (``studies.arbiter_structure``) the selector then chose worse in four of DANIEL's five
    languages (Russian −0.005)."""
    tokens = split_tokens(text, blocks.tokenizer)
    held = {*token_pairs(tokens), *((t,) for t in tokens)}
    cover = np.ones(len(blocks))
    for i, block in enumerate(blocks.texts):
        pairs = token_pairs(split_tokens(block, blocks.tokenizer))
        if pairs:
            cover[i] = round(sum(p in held for p in pairs) / len(pairs), 3)
    return cover


def block_structure(blocks: Blocks) -> tuple[np.ndarray, np.ndarray]:
    """Per block: 1 where it sits in a link (:func:`~boilerbench.extractors.cleaneval2007.lines.in_link`),
    and its tag path's number in the page (blocks of one path share it)."""
    numbers: dict[str, int] = {}
    link = in_link(blocks).astype(np.int8)
    return link, np.array([numbers.setdefault(path, len(numbers)) for path in blocks.paths], dtype=np.int64)


def structure_features(
    words: np.ndarray, label: np.ndarray, link: np.ndarray, cover: np.ndarray, path: np.ndarray
) -> np.ndarray:
    """What the base keeps and the alternative leaves out (``extra``: kept blocks with less than
    :data:`COVERED` of their token pairs in its text) and the other way round (``missing``: blocks
    the base drops whose pairs it holds), from the blocks' ``words``, the base's ``label``, ``link``,
    ``cover`` (:func:`block_cover`) and tag ``path`` numbers: the extra words' share of the kept
    ones, their linked share and the kept words' linked share, the log of their mean block length,
    the share of them in blocks whose tag path repeats three times or more among the extra blocks
    (items), the log of their number of runs (contiguous in the kept blocks), their shares after
    the last and before the first covered kept block, the missing words against the kept ones, and
    the shares of the extra words in blocks whose tag path a covered kept block has (the text both
    keep goes on: a thread's replies after its first post) and whose tag path a block the base drops
    has (a template's slot the base keeps only in part: teasers).
    A teaser rail beside a short article is extra, linked, in short repeated items after the text;
    a forum's replies are extra, unlinked, long and repeated. NaN where a share has nothing to count
    (the two path shares where no kept block is covered)."""
    kept = label.astype(bool) & (words > 0)
    if not kept.any():
        return np.full(len(STRUCTURE_FEATURES), np.nan)
    extra = kept & (cover < COVERED)
    covered = kept & ~extra
    missing = ~label.astype(bool) & (words > 0) & (cover >= COVERED)
    w = words.astype(np.float64)
    total, extra_words = w[kept].sum(), w[extra].sum()

    def share(mask: np.ndarray, of: float) -> float:
        return float(w[mask].sum() / of) if of > 0 else np.nan

    repeated = np.zeros(len(words), dtype=bool)
    if extra.any():
        paths, counts = np.unique(path[extra], return_counts=True)
        repeated = extra & np.isin(path, paths[counts >= 3])
    flags = extra[np.flatnonzero(kept)]
    runs = int(flags[0]) + int(np.sum(flags[1:] & ~flags[:-1]))
    position = np.arange(len(words))
    after = before = np.zeros(len(words), dtype=bool)
    on_covered_path = on_dropped_path = np.nan
    if covered.any():
        first, last = np.flatnonzero(covered)[[0, -1]]
        after, before = extra & (position > last), extra & (position < first)
        dropped = ~label.astype(bool) & (words > 0)
        on_covered_path = share(extra & np.isin(path, path[covered]), extra_words)
        on_dropped_path = share(extra & np.isin(path, path[dropped]), extra_words)
    return np.array(
        [
            extra_words / total,
            share(extra & link.astype(bool), extra_words),
            share(kept & link.astype(bool), total),
            np.log1p(extra_words / max(int(extra.sum()), 1)),
            share(repeated, extra_words),
            np.log1p(runs),
            share(after, extra_words),
            share(before, extra_words),
            w[missing].sum() / total,
            on_covered_path,
            on_dropped_path,
        ]
    )


def arbiter_features(page: Page, base: Extraction, alternative: Extraction) -> np.ndarray:
    """The selector's row for one page: :func:`extraction_features`, then :func:`structure_features`
    of the page's blocks (NaN where the base gives no block labels)."""
    blocks = page.blocks
    if base.labels is None or len(base.labels) != len(blocks):
        structure = np.full(len(STRUCTURE_FEATURES), np.nan)
    else:
        link, path = block_structure(blocks)
        structure = structure_features(
            blocks.word_counts, base.labels, link, block_cover(blocks, alternative.text), path
        )
    return np.concatenate([extraction_features(base, alternative), structure])


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


#: The candidate thresholds ``fit`` chooses from when ``threshold`` is None.
THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


class Selector:
    """Gradient-boosted trees (LightGBM) for P(the alternative is better), from its model text."""

    PARAMS = {
        "objective": "binary",
        "learning_rate": 0.05,
        "num_leaves": 8,
        "min_data_in_leaf": 20,
        "num_threads": 1,
        "deterministic": True,
        "force_row_wise": True,
        "verbosity": -1,
    }
    ROUNDS = 100

    def __init__(self, text: str | None, constant: float = 0.5) -> None:
        self.text, self.constant = text, constant
        self._booster: Any = None

    @classmethod
    def fit(cls, X: np.ndarray, gain: np.ndarray, seed: int) -> Selector:
        """Fit "the alternative is better" on the rows of pages where the two differ, each
        weighted by ``|gain|``. A side that never wins gives a constant selector."""
        differ = gain != 0
        y = (gain[differ] > 0).astype(int)
        if len(np.unique(y)) < 2:
            return cls(None, 1.0 if y.size and y[0] else 0.0)
        lgb = import_optional("lightgbm", "lightgbm", 'install it with: pip install -e ".[stack]"')
        data = lgb.Dataset(X[differ], y, weight=np.abs(gain[differ]), free_raw_data=True)
        booster = lgb.train({**cls.PARAMS, "seed": seed}, data, cls.ROUNDS)
        return cls(booster.model_to_string())

    def probability(self, X: np.ndarray) -> np.ndarray:
        """P(the alternative is better) of each row."""
        X = np.atleast_2d(X)
        if self.text is None:
            return np.full(len(X), self.constant)
        if self._booster is None:
            lgb = import_optional("lightgbm", "lightgbm", 'install it with: pip install -e ".[stack]"')
            self._booster = lgb.Booster(model_str=self.text)
        return np.asarray(self._booster.predict(X, num_threads=1))

    def to_json(self) -> dict:
        return {"text": self.text, "constant": self.constant}

    @classmethod
    def from_json(cls, state: dict) -> Selector:
        return cls(state["text"], float(state["constant"]))


def out_of_fold_probability(
    X: np.ndarray, gain: np.ndarray, groups: Sequence[str], folds: int, seed: int
) -> np.ndarray:
    """Each row's P(the alternative is better) from a selector fitted on the rows of the other
    ``folds`` folds of ``groups`` (sites: a row is never judged by a selector that saw its site)."""
    probability = np.zeros(len(gain))
    for held in group_folds(list(groups), min(folds, len(set(groups))), seed):
        rest = np.setdiff1d(np.arange(len(gain)), held)
        probability[held] = Selector.fit(X[rest], gain[rest], seed).probability(X[held])
    return probability


def best_threshold(probability: np.ndarray, gain: np.ndarray) -> float:
    """The candidate of :data:`THRESHOLDS` whose choices (the alternative above it) give the
    largest mean gain over the rows; the highest candidate on a tie (the base's extraction is the
    default)."""
    means = [float(np.where(probability > t, gain, 0.0).mean()) for t in THRESHOLDS]
    best = max(means)
    return max(t for t, m in zip(THRESHOLDS, means, strict=True) if m >= best - 1e-12)


def choose_threshold(X: np.ndarray, gain: np.ndarray, groups: Sequence[str], folds: int, seed: int) -> float:
    """:func:`best_threshold` of the rows' :func:`out_of_fold_probability`; the highest candidate
    with rows of fewer than two groups."""
    if len(set(groups)) < 2:
        return THRESHOLDS[-1]
    return best_threshold(out_of_fold_probability(X, gain, groups, folds, seed), gain)


def page_group(page: Page) -> str:
    """The fold group of a page: its site where the dataset names one, else the page itself."""
    return str(page.meta.get("group") or f"{page.source}/{page.id}")


class Arbiter(BaseExtractor):
    """``base`` and ``alternative`` on every page; the alternative's extraction where the selector
    gives it a probability above ``threshold`` (None: chosen in ``fit``) of the higher token F1.
    ``selector_folds``: the folds of training pages whose out-of-fold extractions the selector
    learns from; ``validation_share``: the share of the training pages held out for the sides'
    early stopping when the split has no validation pages."""

    def __init__(
        self,
        base: BaseExtractor | None = None,
        alternative: BaseExtractor | None = None,
        threshold: float | None = None,
        selector_folds: int = 2,
        validation_share: float = 0.1,
        seed: int = 0,
    ) -> None:
        if base is None or alternative is None:
            raise ConfigError("an arbiter needs both extractors: extractor.base and extractor.alternative")
        if threshold is not None and not 0.0 < threshold < 1.0:
            raise ConfigError(f"extractor.threshold={threshold} must be between 0 and 1, or null (chosen in fit)")
        if selector_folds < 2:
            raise ConfigError(f"extractor.selector_folds={selector_folds} must be 2 or more")
        if not 0.0 < validation_share < 1.0:
            raise ConfigError(f"extractor.validation_share={validation_share} must be between 0 and 1")
        self.base = base
        self.alternative = alternative
        self.threshold = threshold
        self.selector_folds = selector_folds
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
            "selector_folds": self.selector_folds,
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

    def _rows(self, base: BaseExtractor, pages: Sequence[Page]) -> tuple[list[np.ndarray], list[float], list[str]]:
        """The selector's rows of ``pages`` with ``base`` (each distinct page extracted once, its
        row repeated as often as the pages repeat it), its gains and fold groups; a page the
        alternative leaves empty is no row."""
        rows: list[np.ndarray] = []
        gains: list[float] = []
        groups: list[str] = []
        done: dict[int, tuple[np.ndarray, float] | None] = {}
        for page in pages:
            if id(page) not in done:
                with sharing(page):
                    ours, theirs = base.extract(page), extract_or_empty(self.alternative, page)
                done[id(page)] = (
                    (arbiter_features(page, ours, theirs), page_gain(ours, theirs, page))
                    if theirs.text.strip()
                    else None
                )
            row = done[id(page)]
            if row is not None:
                rows.append(row[0])
                gains.append(row[1])
                groups.append(page_group(page))
        return rows, gains, groups

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> Arbiter:
        """Fit the alternative (if it learns) and the base on the training pages (the validation
        pages for their early stopping), the selector on the out-of-fold rows of the training pages
        and the validation pages' rows, and, with ``threshold`` None, the threshold on them."""
        train, validation = hold_out(train, validation, self.validation_share, random.Random(self.seed))
        if tags(self.alternative).learns:
            self.alternative.fit(train, validation)
        groups = [page_group(page) for page in train]
        rows: list[np.ndarray] = []
        gains: list[float] = []
        row_groups: list[str] = []

        def add(part: tuple[list[np.ndarray], list[float], list[str]]) -> None:
            rows.extend(part[0])
            gains.extend(part[1])
            row_groups.extend(part[2])

        # out of fold where the training pages come from two sites or more (with one, a fold fit
        # would see no page)
        sites = len(set(groups))
        for held in group_folds(groups, min(self.selector_folds, sites), self.seed) if sites > 1 else []:
            kept = set(held.tolist())
            fold_base = clone(self.base).fit([p for i, p in enumerate(train) if i not in kept], validation)
            add(self._rows(fold_base, [train[i] for i in sorted(kept)]))
        self.base.fit(train, validation)
        add(self._rows(self.base, validation))
        X, gain = np.array(rows).reshape(len(rows), len(FEATURES)), np.array(gains)
        self.selector_ = Selector.fit(X, gain, self.seed)
        self.threshold_ = (
            self.threshold
            if self.threshold is not None
            else choose_threshold(X, gain, row_groups, self.selector_folds, self.seed)
        )
        self.fit_info_ = {
            "selector_rows": len(rows),
            "alternative_better": int(np.sum(gain > 0)),
            "base_better": int(np.sum(gain < 0)),
            "threshold": self.threshold_,
        }
        return self

    def extract(self, page: Page) -> Extraction:
        """The base's extraction, or the alternative's where the selector prefers it and it has
        text. Both run in one :func:`sharing` scope (a member both read votes once). ``info``: the
        chosen side's, each side's ms summed, ``arbiter_probability``, ``arbiter_choice`` and,
        where the alternative failed, ``arbiter_alternative_error``."""
        require_fitted(self, "selector_")
        with sharing(page):
            ours = self.base.extract(page)
            theirs = extract_or_empty(self.alternative, page)
        probability = float(self.selector_.probability(arbiter_features(page, ours, theirs))[0])
        chosen = theirs if probability > self.threshold_ and theirs.text.strip() else ours
        other = ours if chosen is theirs else theirs
        times = {k: v + other.info.get(k, 0.0) for k, v in chosen.info.items() if k.endswith("_ms")}
        chosen.info.update(times, arbiter_probability=probability, arbiter_choice=SIDES[chosen is theirs])
        if "arbiter_alternative_error" in theirs.info:
            chosen.info["arbiter_alternative_error"] = theirs.info["arbiter_alternative_error"]
        return chosen

    def run_info(self) -> dict:
        require_fitted(self, "selector_")
        return {**self.fit_info_, **{name: s.run_info() for name, s in self._named() if tags(s).learns}}

    def save(self, directory: str | os.PathLike[str]) -> None:
        require_fitted(self, "selector_")
        directory = Path(directory)
        for name, side in self._named():
            if tags(side).learns:
                (directory / name).mkdir(parents=True, exist_ok=True)
                side.save(directory / name)  # type: ignore[attr-defined]
        state = {
            "params": self.saved_params(),
            "selector": self.selector_.to_json(),
            "threshold": self.threshold_,
            "fit_info": self.fit_info_,
        }
        atomic_write_text(directory / STATE_FILE, json.dumps(state, indent=1))

    def load(self, directory: str | os.PathLike[str]) -> Arbiter:
        directory = Path(directory)
        state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        self.check_saved_params(state["params"], directory)
        for name, side in self._named():
            if tags(side).learns:
                side.load(directory / name)  # type: ignore[attr-defined]
        self.selector_ = Selector.from_json(state["selector"])
        self.threshold_ = float(state["threshold"])
        self.fit_info_ = dict(state["fit_info"])
        return self
