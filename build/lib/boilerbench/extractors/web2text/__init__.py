"""Web2Text (Vogels, Ganea, Eickhoff, ECIR 2018): CNN unary and pairwise potentials over the
collapsed-DOM blocks, decoded with Viterbi."""

from boilerbench.extractors.web2text.model import Web2Text

__all__ = ["Web2Text"]
