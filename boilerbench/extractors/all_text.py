"""Keep everything: the floor every extractor must beat."""

from __future__ import annotations

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.extractors.base import BaseExtractor, Extraction


class AllText(BaseExtractor):
    """Keeps every block (recall 1; precision is the share of content blocks)."""

    def extract(self, page: Page) -> Extraction:
        return Extraction.from_labels(page, np.ones(len(page.blocks), dtype=np.int8))
