"""The tag-path LSTM (papers/001): fastText tag vectors and an LSTM over each text leaf's tag path."""

from boilerbench.extractors.tagpath_lstm.model import TagPathLSTM

__all__ = ["TagPathLSTM"]
