"""The extractor interface (scikit-learn estimator conventions) and its result type.

Hyperparameters are constructor arguments, so a Hydra ``_target_`` config is the whole
description of an extractor. A constructor stores its arguments under their own names and
validates them (a bad value raises :class:`~boilerbench.errors.ConfigError` before any page is
read), and does nothing else: it reads no data, loads no model and computes nothing;
learning happens in ``fit``.
``extract`` returns the main text and, for block-based methods, labels over the page's
canonical blocks (``page.blocks``); a method that returns only text is scored at block level
by aligning its text to the blocks. Extractors read ``page.blocks`` and its lxml tree but
never modify them: they are shared with the runner.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from boilerbench.datasets.page import Page


@dataclass
class Extraction:
    """An extractor's output for one page: text, optional block labels, optional extra columns,
    and, for methods that output structure, ``markup``: the same text in CleanEval's format
    (each paragraph, heading and list item opened by ``<p>``, ``<h>`` or ``<l>``), scored by
    the text-and-markup CleanEval score (:mod:`boilerbench.evaluation.cleaneval_score`)."""

    text: str
    labels: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    markup: str | None = None

    @classmethod
    def from_labels(cls, page: Page, labels: np.ndarray, kinds: Sequence[str] | None = None, **info) -> Extraction:
        """The extraction made of the blocks labelled 1, with the page's separators; with
        ``kinds`` (one per block: ``p``, ``h`` or ``l`` where a paragraph, heading or list item
        starts, ``""`` where the block continues the current one) also its CleanEval markup."""
        labels = np.asarray(labels, dtype=np.int8)
        markup = None if kinds is None else block_markup(page.blocks.texts, page.blocks.seps, labels, kinds)
        return cls(text=page.blocks.join(labels.astype(bool)), labels=labels, info=info, markup=markup)


def block_markup(texts: Sequence[str], seps: Sequence[str], labels: np.ndarray, kinds: Sequence[str]) -> str:
    """CleanEval markup of the selected blocks: a segment opens at each block whose kind is
    ``p``, ``h`` or ``l`` (and at the first selected block, as ``p`` when it has no kind); a
    block of kind ``""`` continues the open segment, after a space (or nothing when it continues
    a word: separator ``""`` from the previous block, which is selected too)."""
    segments: list[list[str]] = []
    previous = -2
    for i in map(int, np.flatnonzero(labels)):
        kind = kinds[i]
        if kind or not segments:
            segments.append([f"<{kind or 'p'}>", texts[i]])
        else:
            glue = "" if seps[i] == "" and previous == i - 1 else " "
            segments[-1].append(glue + texts[i])
        previous = i
    return "\n".join("".join(parts) for parts in segments)


@runtime_checkable
class Extractor(Protocol):
    """What the runner needs of an extraction algorithm."""

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> Extractor: ...

    def extract(self, page: Page) -> Extraction: ...


@runtime_checkable
class Persistent(Protocol):
    """Learned extractors can be saved and loaded, so the runner can cache fitted models."""

    def save(self, directory: str | os.PathLike[str]) -> None: ...

    def load(self, directory: str | os.PathLike[str]) -> Persistent: ...


class Estimator:
    """``get_params`` and ``repr`` from the constructor's arguments, which a learned extractor
    stores under their own names (scikit-learn's convention); saved models record them."""

    def get_params(self) -> dict:
        names = [n for n in inspect.signature(type(self).__init__).parameters if n != "self"]
        return {n: getattr(self, n) for n in names}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.get_params().items())})"

    def check_saved_params(self, saved: dict, directory: str | os.PathLike[str]) -> None:
        """Refuse to load a model saved with other hyperparameters (compared as JSON, so a
        tuple argument equals the list it was saved as)."""
        if saved != json.loads(json.dumps(self.get_params())):
            raise ValueError(f"model in {directory} was trained with other hyperparameters: {saved}")


class HeuristicExtractor:
    """Base for methods that learn nothing: ``fit`` is a no-op."""

    #: Heuristics need no training pages; the runner uses this to skip fitting.
    learns = False

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> HeuristicExtractor:
        return self

    def extract(self, page: Page) -> Extraction:
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"
