"""Extraction algorithms, one module (or sub-package) per algorithm."""

from boilerbench.extractors.base import Extraction, Extractor, HeuristicExtractor, Persistent

__all__ = ["Extraction", "Extractor", "HeuristicExtractor", "Persistent"]
