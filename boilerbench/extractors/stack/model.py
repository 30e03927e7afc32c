"""The stacked extractor: gradient-boosted trees over block features and member votes, with an
optional HMM smoothing over the block order.

Training rows are the blocks of the training pages, labelled by the gold aligner, weighted by
their number of words by default (``weighting``), so the trees spend their capacity on the
blocks that the token metrics count; trees are added until the weighted log-loss on the
validation pages (10 % of the training pages when the split has none) stops improving for
``early_stopping`` rounds. Decoding (``decoding``):

- ``threshold``: a block is content when its probability reaches ``threshold``; with
  ``smoothing`` > 0 the labels are the Viterbi path of ``log p`` plus ``smoothing`` times the log
  transition probabilities between neighbouring blocks' labels counted on the training pages
  (Web2Text's decoding, with the trees as unary potentials and a first-order HMM as pairwise);
- ``expected_f1``: the blocks that maximise the page's expected token F1 under the model
  (:func:`expected_f1_labels`). Trees fitted with word-weighted rows estimate, per block, the
  share of its words that are content, so a page's expected content is ``sum p w``; where the
  model hesitates over a whole page (a thread's replies, a listing's items) the page's
  attainable F1 is lower, and so is the probability worth keeping a block at (half that F1:
  Lipton, Elkan and Narayanaswamy, ECML PKDD 2014), where a fixed threshold drops them all;
- ``by_page_type``: one of the two per page, by the page's predicted type
  (:mod:`boilerbench.extractors.stack.page_types`: which type gets which is learnt on the
  training pages, out of fold, and the validation pages).

With ``second_stage`` the probabilities come from a second set of trees whose rows add, to the
same features, the first stage's view of each block's structural kin
(:func:`~boilerbench.extractors.stack.features.context_features`: the blocks with the same tag
path, the blocks around it, the page): the first stage judges each block alone and keeps the
best paragraph of a listing or a forum thread, while its items and posts share one structure.
The second stage learns from first-stage probabilities of the training pages predicted by trees
that did not see them (``stage_folds`` folds of pages, stacked generalisation), so that it sees
the first stage's errors as they fall on new pages; a page repeated by a balanced mixture stays
in one fold.

With ``type_features`` (on in the headline, ``conf/headline/stack.yaml``) the second stage also
reads the page-type classifier's probabilities of the block's page: out of fold for the typed
training pages (the classifier fitted on the other folds, at its calibrated temperature), the
classifier's own for the untyped ones and at extraction. The first stage judges a block alone, and
the same group of items is content on a forum or a listing and teasers under a news article:
with the page's type the second stage can tell them apart. The classifier is then fitted before
the second stage (on the first stage's rows, which it reads alone).

Pages as items and structured data (issue 33; off by default, on in ``conf/extractor/stack.yaml``,
chosen on WCXB's validation pages): ``item_groups`` gives the second stage the features of each
block's item group (:mod:`boilerbench.extractors.stack.items`: a thread's posts, a listing's items,
a collection's cards as repeated sibling subtrees) and ``item_pooling`` takes the decision per role
of a group; ``structured_blocks`` adds schema.org block features, ``type_evidence`` gives the
page-type classifier the page's schema.org types, URL words and item-group shape, and
``product_fallback`` appends a JSON-LD product description the extraction lacks
(:mod:`boilerbench.extractors.stack.structured`).

With ``class_names`` the second stage also reads what the page's own class and id names say of
each block's container (:mod:`boilerbench.extractors.stack.class_names`: comments, related
teasers, navigation, chrome, sharing, body), read through the page's type (times P(article) and
times P(forum)), since a comment section is boilerplate under an article and the posts of a
thread. With ``consent`` the blocks inside a consent-management platform's container are dropped
after decoding (:mod:`boilerbench.extractors.stack.consent`).

With ``main_candidate`` the block features also say whether the block lies in the element that
Readability would take for the article, and how well its best-scored holder scores
(:mod:`boilerbench.extractors.stack.candidates`): the one page-level structural decision that the
block-by-block features lack, and what wins on a short article beside a long list of teasers.

Backends: LightGBM (default; saved as its text model format) or scikit-learn's
HistGradientBoostingClassifier (saved with pickle, so only load those you made). The choice of
the default is measured in ``studies/stack_gbt.py``.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import pickle
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from boilerbench.atomic import atomic_write_bytes, atomic_write_text
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, check_choice, import_optional
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.derived import derive
from boilerbench.extractors.members import Member, WithMembers, check_members, vote_matrix
from boilerbench.extractors.sequence import viterbi
from boilerbench.extractors.sharing import is_shared, shared
from boilerbench.extractors.stack.candidates import CANDIDATE_FEATURES, candidate_features
from boilerbench.extractors.stack.class_names import container_shares, gated_share_names, gated_shares
from boilerbench.extractors.stack.compiled_trees import SavedTrees, compile_trees
from boilerbench.extractors.stack.consent import consent_mask
from boilerbench.extractors.stack.features import (
    CONTEXT_FEATURES,
    FEATURE_GROUPS,
    TEXT_RULES,
    context_features,
    crf_vocabulary,
    feature_names,
    page_matrix,
)
from boilerbench.extractors.stack.items import item_feature_names, item_features, item_layout, pool_by_items
from boilerbench.extractors.stack.page_types import (
    TypeGate,
    choose_decodings,
    decoding_gains,
    fit_classifier,
    fit_temperature,
    out_of_fold_probabilities,
    page_summary,
    type_evidence,
    word_f1,
)
from boilerbench.extractors.stack.structured import BLOCK_EVIDENCE_NAMES, block_evidence, fallback_text

log = logging.getLogger(__name__)


class Layout(NamedTuple):
    """What the second stage and the page-type gate read of a page besides its rows: its blocks'
    tag paths and word counts, its item groups (:func:`~boilerbench.extractors.stack.items.item_layout`;
    None without ``item_groups``), its page-type evidence (empty without ``type_evidence``) and its
    blocks' container-name shares (:func:`~boilerbench.extractors.stack.class_names.container_shares`;
    None without ``class_names``)."""

    paths: list[str]
    words: np.ndarray
    items: np.ndarray | None
    evidence: np.ndarray
    names: np.ndarray | None = None


BACKENDS = ("lightgbm", "sklearn")
WEIGHTINGS = ("words", "log_words", "blocks")
DECODINGS = ("threshold", "expected_f1", "by_page_type")
ITEM_LEVELS = ("inner", "outer")
STATE_FILE = "stack.json"
MODEL_FILES = {"lightgbm": "stack.lgb.txt", "sklearn": "stack.sklearn.pkl"}
#: Hyperparameters added after models were shipped (issue 33), whose defaults keep the behaviour
#: from before them: a saved model without them loads as fitted with their defaults.
ADDED_PARAMS = (
    "item_groups",
    "item_pooling",
    "item_level",
    "structured_blocks",
    "type_evidence",
    "product_fallback",
    "type_features",
    "main_candidate",
    "class_names",
    "consent",
)
#: The second stage's model file: the first stage's name with this before the suffix.
STAGE_TWO = ".stage2"


def block_weights(words: np.ndarray, weighting: str) -> np.ndarray:
    """Training weight of each block: its words (at least 1), 1 + log of them, or 1."""
    if weighting == "words":
        return np.maximum(words, 1).astype(np.float64)
    if weighting == "log_words":
        return 1.0 + np.log1p(words)
    return np.ones(len(words))


def expected_f1_labels(p: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The labels that maximise the plug-in expected F1 ``2 sum_S p w / (sum_S w + sum p w)`` of
    the kept set ``S`` (Jansche, HLT/EMNLP 2005; Nan et al., ICML 2012): the blocks in order of
    ``p``, the best prefix (ties: the shortest). Nothing is kept where no block is expected to be
    content (``sum p w`` = 0)."""
    labels = np.zeros(len(p), dtype=np.int8)
    w = np.maximum(words, 1).astype(np.float64)
    expected = float(p @ w)
    if not len(p) or expected <= 0:
        return labels
    order = np.argsort(-p, kind="stable")
    f1 = 2 * np.cumsum(p[order] * w[order]) / (np.cumsum(w[order]) + expected)
    labels[order[: int(np.argmax(f1)) + 1]] = 1
    return labels


def _shared_votes(member: Member, page: Page) -> np.ndarray:
    """``member``'s votes on ``page``, made once inside the page's sharing scope for each member
    version and configuration."""
    config = json.dumps(member.config, sort_keys=True, default=str)
    return shared(page, f"member votes {member.version} {config}", lambda: vote_matrix([member], page)[:, 0])


def page_doubt(p: np.ndarray, words: np.ndarray) -> float:
    """The share of the page's words the model would label wrongly if its probabilities were
    right, ``sum(words * min(p, 1 - p)) / sum(words)``: how unsure it is of the page (0: sure of
    every block), what a cascade (:mod:`boilerbench.extractors.cascade`) routes pages by."""
    total = float(words.sum())
    return float(words @ np.minimum(p, 1 - p)) / total if total > 0 else 0.0


def split_pages(values: np.ndarray, layouts: Sequence[Layout]) -> list[np.ndarray]:
    """Rows (or per-block values) concatenated over pages, cut back into one array per page."""
    return np.split(values, np.cumsum([len(layout.paths) for layout in layouts])[:-1])


class StageClock:
    """Milliseconds between successive :meth:`lap` calls, by stage name."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        """Record the time since the previous lap (or the clock's start) as ``stage``'s."""
        now = time.perf_counter()
        self.laps[stage] = 1000 * (now - self._last)
        self._last = now


def transition_log_probs(label_sequences: Sequence[np.ndarray]) -> np.ndarray:
    """log P(next label | label) over 2 x 2 label pairs, counted over the sequences (add-one)."""
    counts = np.ones((2, 2))
    for labels in label_sequences:
        if len(labels) > 1:
            np.add.at(counts, (labels[:-1], labels[1:]), 1)
    return np.log(counts / counts.sum(axis=1, keepdims=True))


class Stack(WithMembers, BaseExtractor):
    """Gradient-boosted trees over block features (``features``: ``blocks``), member votes
    (``votes``) or both (``all``, default); hyperparameters are the trees' and the decoding's."""

    def __boilerbench_tags__(self) -> Tags:
        trees = "lightgbm" if self.backend == "lightgbm" else "scikit-learn"
        return replace(
            super().__boilerbench_tags__(),
            learns=True,
            persistent=True,
            # scikit-learn's trees have no format but pickle: a model file from others is then refused
            loads_pickle=self.backend != "lightgbm",
            has_members=True,
            has_feature_names=True,
            distributions=(trees, *self.member_distributions()),
        )

    def __init__(
        self,
        members: Mapping[str, BaseExtractor] | None = None,
        features: str = "all",
        backend: str = "lightgbm",
        n_estimators: int = 1000,
        learning_rate: float = 0.05,
        num_leaves: int = 31,
        min_child_samples: int = 20,
        subsample: float = 0.8,
        colsample: float = 0.8,
        reg_lambda: float = 1.0,
        early_stopping: int = 50,
        weighting: str = "words",
        threshold: float = 0.5,
        smoothing: float = 0.0,
        decoding: str = "threshold",
        second_stage: bool = True,
        stage_folds: int = 3,
        validation_share: float = 0.1,
        n_jobs: int = 1,
        seed: int = 0,
        text_rules: str = "multilingual",
        crf: bool = True,
        compiled_trees: bool = False,
        item_groups: bool = False,
        item_pooling: float = 0.0,
        item_level: str = "outer",
        structured_blocks: bool = False,
        type_evidence: bool = False,
        product_fallback: bool = False,
        type_features: bool = False,
        main_candidate: bool = False,
        class_names: bool = False,
        consent: bool = False,
    ) -> None:
        check_choice("extractor.features", features, FEATURE_GROUPS)
        check_choice("extractor.text_rules", text_rules, TEXT_RULES)
        check_choice("extractor.backend", backend, BACKENDS)
        check_choice("extractor.weighting", weighting, WEIGHTINGS)
        check_choice("extractor.decoding", decoding, DECODINGS)
        check_choice("extractor.item_level", item_level, ITEM_LEVELS)
        if not 0.0 <= item_pooling <= 1.0:
            raise ConfigError(f"extractor.item_pooling is a weight in [0, 1], got {item_pooling}")
        if decoding == "expected_f1" and smoothing:
            raise ConfigError("extractor.smoothing applies to decoding=threshold: set smoothing=0 with expected_f1")
        if not 0.0 < threshold < 1.0 or smoothing < 0 or n_estimators < 1 or learning_rate <= 0 or stage_folds < 2:
            raise ConfigError(
                "need 0 < threshold < 1, smoothing >= 0, n_estimators >= 1, learning_rate > 0 and stage_folds >= 2, "
                f"got {threshold}, {smoothing}, {n_estimators}, {learning_rate}, {stage_folds}"
            )
        if class_names and not type_features:
            raise ConfigError(
                "extractor.class_names reads the container names through the page's type: "
                "set extractor.type_features=true"
            )
        if features != "blocks":
            check_members(members)
        self.members = members
        self.features = features
        self.backend = backend
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_child_samples = min_child_samples
        self.subsample = subsample
        self.colsample = colsample
        self.reg_lambda = reg_lambda
        self.early_stopping = early_stopping
        self.weighting = weighting
        self.threshold = threshold
        self.smoothing = smoothing
        self.decoding = decoding
        self.second_stage = second_stage
        self.stage_folds = stage_folds
        self.validation_share = validation_share
        self.n_jobs = n_jobs
        self.seed = seed
        self.text_rules = text_rules
        self.crf = crf
        self.compiled_trees = compiled_trees
        self.item_groups = item_groups
        self.item_pooling = item_pooling
        self.item_level = item_level
        self.structured_blocks = structured_blocks
        self.type_evidence = type_evidence
        self.product_fallback = product_fallback
        self.type_features = type_features
        self.main_candidate = main_candidate
        self.class_names = class_names
        self.consent = consent

    # -- members and rows -------------------------------------------------------------------

    @property
    def uses_votes(self) -> bool:  # type: ignore[override]
        """False for ``features=blocks``: no member is built or run."""
        return self.features != "blocks"

    def _votes(self, page: Page) -> np.ndarray | None:
        """The members' votes (:func:`vote_matrix`); inside an enclosing
        :func:`~boilerbench.extractors.sharing.sharing` scope, the votes of a member that another
        extractor of the page has already run are its (a cascade's two stages run a member they
        have in common once)."""
        if not self.uses_votes:
            return None
        members = self.built_members()
        if not is_shared(page):
            return vote_matrix(members, page)
        shared_votes = [_shared_votes(m, page) for m in members]
        return np.column_stack(shared_votes).astype(np.int8).reshape(len(page.blocks), len(members))

    def _rows(self, page: Page, votes: np.ndarray | None = None) -> np.ndarray:
        """The page's feature rows, from its members' ``votes`` (run now when not given)."""
        if votes is None:
            votes = self._votes(page)
        parts = [page_matrix(page, self.features, votes, self.vocabulary_, self.text_rules)]
        parts += [block_evidence(page.blocks)] if self.structured_blocks else []
        parts += [candidate_features(page.blocks)] if self.main_candidate else []
        return np.hstack(parts) if len(parts) > 1 else parts[0]

    def _layout(self, page: Page) -> Layout:
        """The page's :class:`Layout` (item groups and type evidence only where the stack uses them)."""
        blocks = page.blocks
        items = item_layout(blocks) if self.item_groups or self.item_pooling or self.type_evidence else None
        evidence = type_evidence(blocks, page.url, items) if self.type_evidence else np.zeros(0)
        names = container_shares(blocks) if self.class_names else None
        return Layout(blocks.paths, blocks.word_counts, items, evidence, names)

    def _example(self, page: Page) -> tuple[np.ndarray, np.ndarray, Layout]:
        """A training page's feature rows, gold labels and layout."""
        return self._rows(page), page.gold_labels.astype(np.int64), self._layout(page)

    def _dataset(self, pages: Sequence[Page]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Layout]]:
        """Rows, labels and weights of the pages' blocks, and each page's layout (pages released:
        :func:`~boilerbench.extractors.derived.derive`)."""
        examples = derive(pages, self._example)
        layouts = [layout for _, _, layout in examples]
        weights = [block_weights(layout.words, self.weighting) for layout in layouts]
        rows, labels = [x for x, _, _ in examples], [y for _, y, _ in examples]
        return np.concatenate(rows), np.concatenate(labels), np.concatenate(weights), layouts

    def _context(self, layouts: Sequence[Layout], p: np.ndarray, types: np.ndarray | None = None) -> np.ndarray:
        """The second stage's context columns of the pages' blocks, from first-stage ``p`` (rows in
        page order): with ``item_groups`` the item features, then :func:`context_features`, then
        with ``type_features`` the page's type probabilities ``types`` (a row per page) on each of
        its blocks, then with ``class_names`` the blocks' container-name shares times the page's
        P(article) and times its P(forum) (:func:`~boilerbench.extractors.stack.class_names.gated_shares`)."""
        parts = []
        for k, (layout, q) in enumerate(zip(layouts, split_pages(p, layouts), strict=True)):
            words = layout.words.astype(np.float64)
            columns = [context_features(layout.paths, words, q)]
            if self.item_groups:
                assert layout.items is not None
                columns.insert(0, item_features(layout.items, layout.paths, words, q))
            if self.type_features:
                assert types is not None, "type_features needs the pages' type probabilities"
                columns.append(np.broadcast_to(types[k], (len(q), types.shape[1])))
            if self.class_names:
                assert layout.names is not None and types is not None
                columns.append(gated_shares(layout.names, *self._article_and_forum(types[k])))
            parts.append(np.hstack(columns))
        width = len(self._context_names())
        return np.concatenate(parts) if parts else np.zeros((0, width))

    def _context_names(self) -> list[str]:
        """The names of :meth:`_context`'s columns (the page types' once the gate is fitted)."""
        names = (item_feature_names() if self.item_groups else []) + [f"context.{f}" for f in CONTEXT_FEATURES]
        gate = self.__dict__.get("gate_")
        names += [f"page_type.{c}" for c in gate.classes] if self.type_features and gate else []
        return names + (gated_share_names() if self.class_names else [])

    def _article_and_forum(self, types: np.ndarray) -> tuple[float, float]:
        """The page's P(article) and P(forum) among its type probabilities ``types`` (0 for a type
        that the typed training pages lacked)."""
        assert self.gate_ is not None, "class_names needs type_features, hence a fitted page-type gate"
        p = dict(zip(self.gate_.classes, types.tolist(), strict=True))
        return float(p.get("article", 0.0)), float(p.get("forum", 0.0))

    def _pool(self, p: np.ndarray, layout: Layout) -> np.ndarray:
        """The probabilities with ``item_pooling`` of the way to their item group's decision
        (:func:`~boilerbench.extractors.stack.items.pool_by_items`)."""
        if not self.item_pooling or layout.items is None:
            return p
        return pool_by_items(p, layout.items, layout.paths, layout.words, self.item_pooling, self.item_level)

    def _out_of_fold(self, pages: Sequence[Page], layouts: Sequence[Layout], X, y, w, Xv, yv, wv) -> np.ndarray:
        """First-stage probabilities of the training rows, each page's from trees fitted on the
        other folds (``stage_folds`` folds of distinct pages, seeded)."""
        distinct = list(dict.fromkeys(id(page) for page in pages))
        order = np.random.default_rng(self.seed).permutation(len(distinct))
        fold_of = {key: int(order[k]) % self.stage_folds for k, key in enumerate(distinct)}
        row_fold = np.repeat([fold_of[id(page)] for page in pages], [len(layout.paths) for layout in layouts])
        p = np.zeros(len(y))
        for fold in range(self.stage_folds):
            held = row_fold == fold
            if held.any() and (~held).any():
                trees = self._fit_trees(X[~held], y[~held], w[~held], Xv, yv, wv)
                p[held] = self._predict(trees, X[held])
        return p

    # -- learning ---------------------------------------------------------------------------

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> Stack:
        # imported here: the training helpers import torch, which extraction never needs (about a
        # second of every command-line run's start-up)
        from boilerbench.extractors.training import hold_out

        start = time.perf_counter()
        train, validation = hold_out(train, validation, self.validation_share, random.Random(self.seed))
        if not train:
            raise ConfigError("the stack needs training pages with text")
        by_type = self.decoding == "by_page_type"
        typed = by_type or (self.type_features and self.second_stage)
        if typed and (len({page.page_type for page in train} - {None}) < 2 or not validation):
            raise ConfigError(
                "extractor.decoding=by_page_type and extractor.type_features need training pages of two page types "
                "or more (as WCXB's) and validation pages"
            )
        self.vocabulary_ = crf_vocabulary(train) if self.features != "votes" and self.crf else []
        X, y, w, layouts = self._dataset(train)
        Xv, yv, wv, held = self._dataset(validation) if validation else (None, None, None, [])
        self.model_ = self._fit_trees(X, y, w, Xv, yv, wv)
        self.stage_two_ = None
        self.gate_ = None
        oof = self._out_of_fold(train, layouts, X, y, w, Xv, yv, wv) if self.second_stage or by_type else None
        types = types_v = None
        if typed:
            assert Xv is not None
            self.gate_, types = self._fit_types(train, X, layouts)
            types_v = np.array(
                [
                    self.gate_.probabilities(self._summary(r, v))
                    for r, v in zip(split_pages(Xv, held), held, strict=True)
                ]
            )
        if self.second_stage and oof is not None:
            C = self._context(layouts, oof, types)
            if Xv is not None:
                Xv = np.hstack([Xv, self._context(held, self._predict(self.model_, Xv), types_v)])
            self.stage_two_ = self._fit_trees(np.hstack([X, C]), y, w, Xv, yv, wv)
        if by_type:
            assert self.gate_ is not None and types is not None and types_v is not None and oof is not None
            self._choose_decodings(self.gate_, (y, oof, layouts, types), (Xv, yv, held, types_v))
        self.transitions_ = transition_log_probs(split_pages(y, layouts))
        self.fit_info_ = {
            "train_pages": len(train),
            "validation_pages": len(validation),
            "train_blocks": int(len(y)),
            "n_features": int(X.shape[1]),
            "n_trees": self._n_trees(self.model_),
            "n_trees_stage_two": self._n_trees(self.stage_two_) if self.stage_two_ is not None else 0,
            "page_type_decoding": self.gate_.decoding if by_type and self.gate_ is not None else None,
            "page_type_gains": self.decoding_gains_ if by_type else None,
            "page_type_temperature": self.gate_.temperature if self.gate_ is not None else None,
            "fit_s": time.perf_counter() - start,
        }
        log.info("stack fitted: %s", self.fit_info_)
        return self

    def _fit_types(
        self, train: Sequence[Page], X: np.ndarray, layouts: Sequence[Layout]
    ) -> tuple[TypeGate, np.ndarray]:
        """The page-type classifier, fitted (and calibrated) on the distinct training pages that have
        a type, and each training page's type probabilities: out of fold for the typed pages (stacked
        generalisation, so that what learns from them sees the classifier's errors as they fall on new
        pages), the classifier's for the others."""
        summaries = np.array(
            [self._summary(rows, layout) for rows, layout in zip(split_pages(X, layouts), layouts, strict=True)]
        )
        typed = {id(page): k for k, page in enumerate(train) if page.page_type is not None}
        types = [str(train[k].page_type) for k in typed.values()]
        rows = summaries[list(typed.values())]
        gate = fit_classifier(rows, types, self.seed)
        gate.temperature = fit_temperature(gate, rows, types, self.stage_folds, self.seed)
        held_out = dict(
            zip(typed, out_of_fold_probabilities(gate, rows, types, self.stage_folds, self.seed), strict=True)
        )
        probabilities = [held_out.get(id(page)) for page in train]
        return gate, np.array(
            [gate.probabilities(s) if q is None else q for q, s in zip(probabilities, summaries, strict=True)]
        )

    def _choose_decodings(self, gate: TypeGate, fitted: tuple, validation: tuple) -> None:
        """Each predicted type's decoding (``gate.decoding``), chosen over the training pages (their
        out-of-fold first-stage probabilities and types) and the validation pages (the final
        probabilities, the gate's types). ``fitted``: the training labels, out-of-fold
        probabilities, layouts and type probabilities; ``validation``: the validation rows (with
        the second stage's context columns when there is one), labels, layouts and type
        probabilities."""
        y, oof, layouts, types = fitted
        Xv, yv, held, types_v = validation
        predicted = [gate.classes[int(k)] for k in np.argmax(np.vstack([types, types_v]), axis=1)]
        pages = zip(split_pages(oof, layouts), split_pages(y, layouts), layouts, strict=True)
        scores = [self._scorer(self._pool(q, layout), gold, layout.words) for q, gold, layout in pages]
        p = self._predict(self.stage_two_ if self.stage_two_ is not None else self.model_, Xv)
        for q, gold, layout in zip(split_pages(p, held), split_pages(yv, held), held, strict=True):
            scores.append(self._scorer(self._pool(q, layout), gold, layout.words))
        self.decoding_gains_ = decoding_gains(predicted, scores)
        gate.decoding = choose_decodings(gate.classes, self.decoding_gains_)

    @staticmethod
    def _summary(rows: np.ndarray, layout: Layout) -> np.ndarray:
        """The page-type classifier's row of a page: :func:`page_summary` and the page's evidence."""
        return np.concatenate([page_summary(rows, layout.words), layout.evidence])

    def _scorer(self, p: np.ndarray, gold: np.ndarray, words: np.ndarray) -> Callable[[str], float]:
        """A page's word F1 with a given decoding of ``p``."""
        return lambda decoding: word_f1(self.decode(p, words, decoding), gold, words)

    def _fit_trees(self, X, y, w, Xv, yv, wv) -> Any:
        if self.backend == "lightgbm":
            lgb = import_optional("lightgbm", "lightgbm", 'install it with: pip install -e ".[stack]"')
            params = {
                "objective": "binary",
                "learning_rate": self.learning_rate,
                "num_leaves": self.num_leaves,
                "min_child_samples": self.min_child_samples,
                "bagging_fraction": self.subsample,
                "bagging_freq": 1 if self.subsample < 1 else 0,
                "feature_fraction": self.colsample,
                "lambda_l2": self.reg_lambda,
                "num_threads": self.n_jobs,
                "seed": self.seed,
                "deterministic": True,
                "force_row_wise": True,
                "verbosity": -1,
            }
            data = lgb.Dataset(X, y, weight=w, free_raw_data=True)
            callbacks = []
            valid_sets = []
            if Xv is not None and len(yv):
                valid_sets = [lgb.Dataset(Xv, yv, weight=wv, reference=data)]
                callbacks = [lgb.early_stopping(self.early_stopping, verbose=False)]
            return lgb.train(params, data, self.n_estimators, valid_sets=valid_sets, callbacks=callbacks)
        from sklearn.ensemble import HistGradientBoostingClassifier

        # scikit-learn's binning fails on a column with no value at all (every training page in a
        # language without a stoplist): such a column says nothing, so it is filled with zeros
        X = np.where(np.isnan(X).all(axis=0), 0.0, X)
        validated = Xv is not None and len(yv) > 0 and len(np.unique(yv)) == 2
        model = HistGradientBoostingClassifier(
            learning_rate=self.learning_rate,
            max_iter=self.n_estimators,
            max_leaf_nodes=self.num_leaves,
            min_samples_leaf=self.min_child_samples,
            l2_regularization=self.reg_lambda,
            max_features=self.colsample,
            early_stopping=validated,
            n_iter_no_change=self.early_stopping,
            random_state=self.seed,
        )
        if validated:
            return model.fit(X, y, sample_weight=w, X_val=Xv, y_val=yv, sample_weight_val=wv)
        return model.fit(X, y, sample_weight=w)

    def _n_trees(self, model: Any) -> int:
        if self.backend == "lightgbm":
            return int(model.best_iteration or model.num_trees())
        return int(model.n_iter_)

    # -- prediction -------------------------------------------------------------------------

    def _predict(self, model: Any, rows: np.ndarray, compiled: bool = False) -> np.ndarray:
        """P(content) of ``rows`` by ``model``; ``compiled``: by its lleaves build (extraction only:
        the models of training's folds are never compiled). LightGBM predicts on ``n_jobs`` threads,
        as the compiled build does: its default, OpenMP's thread count (every core), took five times
        as long on one page's rows on the busy 2-core machine (studies/speed_profile.py), and
        hangs a worker forked after its parent predicted unless the worker resets OpenMP."""
        if not len(rows):
            return np.zeros(0)
        if compiled and self.backend == "lightgbm":
            return self._compiled(model)(rows)
        if self.backend == "lightgbm":
            return model.predict(rows, num_iteration=model.best_iteration or None, num_threads=self.n_jobs)
        return model.predict_proba(rows)[:, 1]

    def _compiled(self, model: Any) -> Callable[[np.ndarray], np.ndarray]:
        """The lleaves build of a fitted LightGBM model (:mod:`.compiled_trees`), made once."""
        builds = self.__dict__.setdefault("_builds", {})
        if id(model) not in builds:
            builds[id(model)] = compile_trees(model.model_to_string())
        return builds[id(model)]

    def probabilities(
        self, rows: np.ndarray, page: Page | None = None, layout: Layout | None = None, types: np.ndarray | None = None
    ) -> np.ndarray:
        """P(content) of each row of ``page`` (needed by the second stage, whose context is the
        page's; ``layout``: the page's, made now when not given; ``types``: the page-type
        classifier's probabilities of the page, computed now when the second stage reads them
        and they are not given)."""
        p = self._predict(self.model_, rows, self.compiled_trees)
        if self.stage_two_ is None:
            return p
        assert page is not None, "the second stage needs the page"
        layout = layout or self._layout(page)
        if self.type_features and self.gate_ and types is None:
            types = self.gate_.probabilities(self._summary(rows, layout))
        read = types[None, :] if self.type_features and types is not None else None
        return self._predict(self.stage_two_, np.hstack([rows, self._context([layout], p, read)]), self.compiled_trees)

    def decode(self, p: np.ndarray, words: np.ndarray, decoding: str | None = None) -> np.ndarray:
        """Labels from the probabilities of blocks of ``words`` words: the threshold, the Viterbi
        path when smoothing, or the expected-F1 set; ``decoding`` (``threshold`` or
        ``expected_f1``) defaults to the stack's (``by_page_type``: the threshold; :meth:`extract`
        picks the page's)."""
        if (decoding or self.decoding) == "expected_f1":
            return expected_f1_labels(p, words)
        if self.smoothing == 0 or len(p) < 2:
            return (p >= self.threshold).astype(np.int8)
        eps = 1e-6
        unary = np.column_stack([np.log(np.clip(1 - p, eps, 1)), np.log(np.clip(p, eps, 1))])
        unary[:, 1] += np.log((1 - self.threshold) / self.threshold)  # the threshold as a prior shift
        pairwise = np.broadcast_to(self.transitions_, (len(p) - 1, 2, 2))
        return viterbi(unary, pairwise, self.smoothing).astype(np.int8)

    def extract(self, page: Page) -> Extraction:
        """The page's content blocks. ``info`` holds the milliseconds of each stage (what
        ``benchmarks/speed.py`` reports): ``segment_ms`` (parse and blocks, unless the page was
        segmented before), ``members_ms`` (the members' runs and their alignment),
        ``features_ms`` (block features and vote features), ``trees_ms`` (both stages and the
        context columns, and the page-type probabilities), ``decode_ms`` (the decoding), and ``stack_ms``: all but
        the members; ``doubt`` is :func:`page_doubt` of the decoded probabilities."""
        require_fitted(self, "model_")
        clock = StageClock()
        words = page.blocks.word_counts
        clock.lap("segment_ms")
        votes = self._votes(page)
        clock.lap("members_ms")
        rows = self._rows(page, votes)
        layout = self._layout(page)
        clock.lap("features_ms")
        types = self.gate_.probabilities(self._summary(rows, layout)) if self.gate_ is not None else None
        p = self._pool(self.probabilities(rows, page, layout, types), layout)
        clock.lap("trees_ms")
        page_type = decoding = None
        if self.gate_ is not None and types is not None:
            page_type = self.gate_.type_of(types)
            decoding = self.gate_.decoding_for(page_type) if self.decoding == "by_page_type" else None
        labels = self.decode(p, words, decoding)
        if self.consent:
            labels[consent_mask(page.blocks)] = 0
        clock.lap("decode_ms")
        info: dict = clock.laps
        info["stack_ms"] = sum(ms for stage, ms in info.items() if stage != "members_ms")
        info["doubt"] = page_doubt(p, words.astype(np.float64))
        if page_type is not None and types is not None:
            info["predicted_page_type"] = page_type
            info["page_type_confidence"] = float(types.max())
        extraction = Extraction.from_labels(page, labels, None, **info)
        extra = fallback_text(page.blocks, extraction.text) if self.product_fallback else ""
        if extra:
            extraction.text = f"{extraction.text}\n\n{extra}" if extraction.text else extra
            extraction.info["fallback_words"] = len(extra.split())
        return extraction

    def feature_names(self) -> list[str]:
        """The names of the trees' input columns."""
        require_fitted(self, "model_")
        names = feature_names(self.features, list(self.members or ()), self.vocabulary_)
        names += list(BLOCK_EVIDENCE_NAMES) if self.structured_blocks else []
        names += [f"candidate.{f}" for f in CANDIDATE_FEATURES] if self.main_candidate else []
        return names + self._context_names() if self.second_stage else names

    def run_info(self) -> dict:
        """What the run summary records about the fitted model."""
        return dict(self.__dict__.get("fit_info_", {}))

    # -- persistence ------------------------------------------------------------------------

    def save(self, directory: str | os.PathLike[str]) -> None:
        require_fitted(self, "model_")
        directory = Path(directory)
        for model, path in (
            (self.model_, self._model_path(directory, 1)),
            (self.stage_two_, self._model_path(directory, 2)),
        ):
            if model is None:
                continue
            if self.backend == "lightgbm":
                atomic_write_bytes(path, model.model_to_string().encode("utf-8"))
            else:
                atomic_write_bytes(path, pickle.dumps(model))
        state = {
            "params": self.saved_params(),
            "vocabulary": self.vocabulary_,
            "transitions": self.transitions_.tolist(),
            "gate": self.gate_.to_json() if self.gate_ is not None else None,
            "fit_info": self.fit_info_,
        }
        atomic_write_text(directory / STATE_FILE, json.dumps(state, indent=1))

    def load(self, directory: str | os.PathLike[str]) -> Stack:
        directory = Path(directory)
        state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        self.check_saved_params({**self._added_defaults(), **state["params"]}, directory)
        self.model_ = self._load_trees(self._model_path(directory, 1))
        self.stage_two_ = self._load_trees(self._model_path(directory, 2)) if self.second_stage else None
        self.vocabulary_ = list(state["vocabulary"])
        self.transitions_ = np.asarray(state["transitions"])
        self.gate_ = TypeGate.from_json(state["gate"]) if state.get("gate") else None
        self.fit_info_ = state["fit_info"]
        for model in (self.model_, self.stage_two_):
            if isinstance(model, SavedTrees):  # made now, not on the first page (forked workers share it)
                _ = self._compiled(model) if self.compiled_trees else model.booster
        return self

    @classmethod
    def _added_defaults(cls) -> dict:
        """The defaults of :data:`ADDED_PARAMS`: a model saved before they existed was fitted with them."""
        parameters = inspect.signature(cls.__init__).parameters
        return {name: parameters[name].default for name in ADDED_PARAMS}

    def _model_path(self, directory: Path, stage: int) -> Path:
        name = MODEL_FILES[self.backend]
        if stage == 2:
            stem, _, suffix = name.partition(".")
            name = f"{stem}{STAGE_TWO}.{suffix}"
        return directory / name

    def _load_trees(self, path: Path) -> Any:
        if self.backend == "lightgbm":  # LightGBM itself is imported only if the text will not do
            return SavedTrees(path.read_text(encoding="utf-8"))
        return pickle.loads(path.read_bytes())
