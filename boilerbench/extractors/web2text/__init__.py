"""Web2Text (Vogels, Ganea, Eickhoff, ECIR 2018): CNN unary and pairwise potentials over the
collapsed-DOM blocks, decoded with Viterbi.

``Web2Text`` is imported on first use: the stack reads the block features
(:mod:`boilerbench.extractors.web2text.features`) without the network, and importing the model
would import torch (about a second of every command-line run's start-up)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boilerbench.extractors.web2text.model import Web2Text

__all__ = ["Web2Text"]


def __getattr__(name: str) -> Any:
    if name == "Web2Text":
        from boilerbench.extractors.web2text.model import Web2Text

        return Web2Text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
