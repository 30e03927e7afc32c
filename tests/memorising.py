"""A tiny learned extractor for testing the runner's model cache: it keeps the blocks whose
text appeared as gold content in training, and counts how often it was fitted."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from boilerbench.extractors.base import BaseExtractor, Extraction, Tags


class Memorising(BaseExtractor):
    fits = 0

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True, persistent=True)

    def __init__(self, min_count: int = 1, delay: float = 0.0) -> None:
        self.min_count = min_count
        self.delay = delay

    def fit(self, train, validation=None):
        type(self).fits += 1
        time.sleep(self.delay)
        counts: dict[str, int] = {}
        for page in train:
            for text, label in zip(page.blocks.texts, page.gold_labels, strict=True):
                if label:
                    counts[text] = counts.get(text, 0) + 1
        self.content_ = sorted(t for t, c in counts.items() if c >= self.min_count)
        return self

    def extract(self, page):
        known = set(self.content_)
        labels = np.array([t in known for t in page.blocks.texts], dtype=np.int8)
        return Extraction.from_labels(page, labels)

    def save(self, directory):
        (Path(directory) / "content.json").write_text(json.dumps(self.content_))

    def load(self, directory):
        self.content_ = json.loads((Path(directory) / "content.json").read_text())
        return self
