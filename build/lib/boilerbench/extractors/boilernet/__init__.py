"""BoilerNet (Leonhardt, Anand, Khosla, WWW 2020): a bidirectional LSTM over a page's text leaves."""

from boilerbench.extractors.boilernet.model import BoilerNet

__all__ = ["BoilerNet"]
