"""ReadabiliPy: Mozilla's Readability.js run through node, or ReadabiliPy's pure-Python fallback.

Which one ran is explicit: ``engine: node`` needs ``node`` on the PATH and ReadabiliPy's
JavaScript dependencies installed (``npm install`` in the package's ``javascript`` folder:
``make install`` does it where npm exists) and fails at once without them; ``engine: python``
runs the fallback (ReadabiliPy's own HTML simplification, not Readability's content scoring);
``auto`` (default) takes node when both are there, else the fallback. The engine used is in
every page's row (``readabilipy_engine``) and in the run's ``summary.json``
(``extractor_info``). ReadabiliPy itself would run ``npm install`` (a download) on first use
when the dependencies are missing; the adapter never lets it (it checks first).

Node is one process per page (ReadabiliPy's design): about 1.5 to 2 seconds a page here, so
this is the slowest reference by far.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from boilerbench.datasets.page import Page
from boilerbench.errors import MissingDependencyError, check_choice
from boilerbench.extractors.base import Extraction
from boilerbench.extractors.references.base import ReferenceExtractor

ENGINES = ("auto", "node", "python")


class ReadabiliPy(ReferenceExtractor):
    """ReadabiliPy's ``simple_json_from_html_string``: its ``plain_text`` paragraphs, one a line."""

    MODULE = "readabilipy"
    DISTRIBUTION = "readabilipy"

    def __init__(self, engine: str = "auto", max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        check_choice("extractor.engine", engine, ENGINES)
        self.engine = engine
        self.max_html_chars = max_html_chars
        self._lib = self._require()
        self._engine = self._resolve(engine)

    def _node_ready(self) -> tuple[bool, str]:
        """Whether Readability.js can run through node, and why not."""
        modules = Path(str(self._lib.__file__)).parent / "javascript" / "node_modules"
        if shutil.which("node") is None:
            return False, "no 'node' executable on the PATH"
        if not modules.is_dir():
            return False, f"ReadabiliPy's JavaScript dependencies are missing: run 'npm install' in {modules.parent}"
        return True, ""

    def _resolve(self, engine: str) -> str:
        if engine == "python":
            return "python"
        ready, why = self._node_ready()
        if engine == "node" and not ready:
            raise MissingDependencyError(f"extractor.engine=node: {why} (or choose engine=python or auto)")
        return "node" if ready else "python"

    def run_info(self) -> dict:
        """What the run summary records: the engine that ran."""
        return {"readabilipy_engine": self._engine}

    def extract(self, page: Page) -> Extraction:
        extraction = super().extract(page)
        extraction.info["readabilipy_engine"] = self._engine
        return extraction

    def _text(self, page: Page) -> str:
        article = self._lib.simple_json_from_html_string(page.html, use_readability=self._engine == "node")
        return "\n".join(p["text"] for p in article.get("plain_text") or ())
