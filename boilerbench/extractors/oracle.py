"""The oracle: the ceiling that the canonical block segmentation allows."""

from __future__ import annotations

from boilerbench.datasets.page import Page
from boilerbench.extractors.base import BaseExtractor, Extraction


class Oracle(BaseExtractor):
    """Keeps exactly the blocks the gold labels mark as content (block F1 = 1 by construction;
    its CleanEval score shows how much text the segmentation and the 2/3 rule lose)."""

    def extract(self, page: Page) -> Extraction:
        return Extraction.from_labels(page, page.gold_labels)
