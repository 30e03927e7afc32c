"""Victor: the CRF web-page cleaner that won CleanEval 2007 (Marek, Pecina, Spousta; papers/002)."""

from boilerbench.extractors.crf.model import CRF

__all__ = ["CRF"]
