"""The linear-chain CRF over a page's block sequence (python-crfsuite, L-BFGS).

Victor labels each block header / paragraph / list / continuation / other; every label but
``other`` is content. Training is deterministic (L-BFGS from zero weights), so equal inputs
give equal models. The fitted model is kept in memory as crfsuite's binary format and saved as
that file plus a JSON of the hyperparameters.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pycrfsuite

from boilerbench.atomic import atomic_write_bytes, atomic_write_text
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, check_choice
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.crf.features import FEATURE_SETS, page_features
from boilerbench.extractors.crf.labels import LABELS, crf_labels

MODEL_FILE = "model.crfsuite"
#: Victor's labels as CleanEval segment markers (continuation and other open no segment)
_MARKER = {"header": "h", "paragraph": "p", "list": "l"}
CONFIG_FILE = "crf.json"


class CRF(BaseExtractor):
    """Victor's CRF block labeller (hyperparameters: crfsuite's ``c1``/``c2``/``max_iterations``,
    and the feature set: one of Victor's three settings, minus any ``exclude``d features)."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)

    def __init__(
        self,
        c1: float = 0.05,
        c2: float = 0.01,
        max_iterations: int = 200,
        feature_set: str = "all",
        exclude: Sequence[str] = (),
    ) -> None:
        check_choice("extractor.feature_set", feature_set, tuple(FEATURE_SETS))
        if c1 < 0 or c2 < 0 or max_iterations < 1:
            raise ConfigError(f"need c1, c2 >= 0 and max_iterations >= 1, got {c1}, {c2}, {max_iterations}")
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.feature_set = feature_set
        self.exclude = exclude

    def _excluded(self) -> frozenset[str]:
        return frozenset(FEATURE_SETS[self.feature_set]) | frozenset(self.exclude)

    def features(self, page: Page) -> list[dict[str, float]]:
        """The feature dicts of ``page``'s blocks under this feature setting."""
        return page_features(page, self._excluded())

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> CRF:
        """Train on the training pages (validation pages are not used: crfsuite's L-BFGS has no
        early stopping, and Victor's protocol has none)."""
        trainer = pycrfsuite.Trainer(verbose=False)
        for page in train:  # each page released after it: the trainer holds the features
            if len(page.blocks):
                trainer.append(self.features(page), crf_labels(page))
            page.release()
        trainer.set_params(
            {"c1": self.c1, "c2": self.c2, "max_iterations": self.max_iterations, "feature.possible_transitions": True}
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / MODEL_FILE
            trainer.train(str(path))
            self.model_ = path.read_bytes()
        self._open()
        return self

    def _open(self) -> None:
        self._tagger = pycrfsuite.Tagger()
        self._tagger.open_inmemory(self.model_)

    def predict(self, page: Page) -> list[str]:
        """The label of each block."""
        require_fitted(self, "model_")
        if len(page.blocks) == 0:
            return []
        return list(self._tagger.tag(self.features(page)))

    def extract(self, page: Page) -> Extraction:
        """Content = every block not labelled ``other``; the labels are also the CleanEval markup
        (header ``<h>``, paragraph ``<p>``, list ``<l>``, continuation: the open segment goes on)."""
        tags = self.predict(page)
        labels = np.fromiter((t != "other" for t in tags), dtype=np.int8, count=len(tags))
        return Extraction.from_labels(page, labels, kinds=[_MARKER.get(t, "") for t in tags])

    def save(self, directory: str | os.PathLike[str]) -> None:
        directory = Path(directory)
        atomic_write_bytes(directory / MODEL_FILE, self.model_)
        atomic_write_text(directory / CONFIG_FILE, json.dumps({"labels": LABELS, **self.saved_params()}, indent=2))

    def load(self, directory: str | os.PathLike[str]) -> CRF:
        directory = Path(directory)
        saved = json.loads((directory / CONFIG_FILE).read_text())
        self.check_saved_params({k: saved.get(k) for k in self.saved_params()}, directory)
        self.model_ = (directory / MODEL_FILE).read_bytes()
        self._open()
        return self
