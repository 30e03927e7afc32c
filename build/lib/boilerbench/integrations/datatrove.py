"""A datatrove pipeline step: boilerbench's extraction in a FineWeb-style pipeline.

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    from boilerbench.integrations.datatrove import BoilerbenchExtractor

    LocalPipelineExecutor(
        [WarcReader("crawl/"), BoilerbenchExtractor(), JsonlWriter("out/")], tasks=4
    ).run()

:class:`BoilerbenchExtractor` is a datatrove ``BaseExtractor`` (as datatrove's own
``Trafilatura`` step): each document's ``text`` (its HTML, as the WARC reader gives it) is
replaced by the main text, or the markdown with ``output="markdown"``; a document with no main
text is dropped, and datatrove's sandbox turns a timeout or a crashed extraction into a counted,
skipped document. The model is the package's default, a model file (``model=PATH``) or an
extractor that needs no training (``extractor="trafilatura"``); it is loaded once per task,
before datatrove forks its extraction sandbox, which then inherits it
(:func:`boilerbench.api.load_model`). Needs the ``datatrove`` extra
(``pip install "boilerbench[datatrove]"``: datatrove and what its WARC reader and JSONL writer
import).
"""

from __future__ import annotations

import os
from typing import Any

from boilerbench import api
from boilerbench.errors import check_choice, import_optional

_base = import_optional(
    "datatrove.pipeline.extractors.base", "datatrove", 'install it with: pip install -e ".[datatrove]"'
)


class BoilerbenchExtractor(_base.BaseExtractor):  # type: ignore[name-defined]
    """boilerbench's extraction as a datatrove step (see the module docstring)."""

    name = "🧹 boilerbench"

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        extractor: str | None = None,
        output: str = "text",
        timeout: float = 10.0,
    ) -> None:
        super().__init__(timeout)
        check_choice("output", output, ("text", "markdown"))
        self.model, self.extractor, self.output = model, extractor, output
        self._loaded: api.Model | None = None

    def _model(self) -> api.Model:
        if self._loaded is None:
            self._loaded = api.load_extractor(self.extractor) if self.extractor else api.load_model(self.model)
        return self._loaded

    def run(self, data: Any, rank: int = 0, world_size: int = 1) -> Any:
        """Load the model here, so the sandbox that datatrove forks for extraction inherits it."""
        self._model()
        yield from super().run(data, rank, world_size)

    def extract(self, text: str) -> str:
        """The main text (or markdown) of one document's HTML; ``""`` when it has none."""
        return api.extract(text, output=self.output, model=self._model()) or ""
