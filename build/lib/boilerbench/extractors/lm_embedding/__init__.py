"""The LM-embedding block classifier (papers/003): sentence embedding + positional encoding +
ancestor-tag counts, logistic regression."""

from boilerbench.extractors.lm_embedding.model import LMEmbedding

__all__ = ["LMEmbedding"]
