"""Extraction algorithms, one module (or sub-package) per algorithm, over one contract (:mod:`.base`)."""

from boilerbench.extractors.base import BaseExtractor, Extraction, Extractor, Persistent, Tags, clone, tags

__all__ = ["BaseExtractor", "Extraction", "Extractor", "Persistent", "Tags", "clone", "tags"]
