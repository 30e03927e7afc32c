"""The stacked extractor (:mod:`.model`) and its features (:mod:`.features`)."""

from boilerbench.extractors.stack.model import Stack

__all__ = ["Stack"]
