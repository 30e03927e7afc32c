"""boilerbench: a research harness for web-page main-content extraction.

The Python API (:mod:`boilerbench.api`) is imported on first use, so ``import boilerbench``
stays cheap: ``boilerbench.extract(html)``, ``boilerbench.load_model(path)``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["DEFAULT_MODEL", "Model", "ModelNotFoundError", "extract", "load_model"]

if TYPE_CHECKING:
    from boilerbench.api import DEFAULT_MODEL, Model, ModelNotFoundError, extract, load_model


def __getattr__(name: str) -> Any:
    """The API's names, from :mod:`boilerbench.api` on first access (PEP 562)."""
    if name in __all__:
        return getattr(importlib.import_module("boilerbench.api"), name)
    raise AttributeError(f"module 'boilerbench' has no attribute {name!r}")
