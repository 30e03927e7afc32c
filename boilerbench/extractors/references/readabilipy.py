"""ReadabiliPy: Mozilla's Readability.js run through node, or ReadabiliPy's pure-Python fallback.

Which one ran is explicit: ``engine: node`` needs ``node`` on the PATH and ReadabiliPy's
JavaScript dependencies installed (``npm install`` in the package's ``javascript`` folder:
``make install`` does it where npm exists) and fails at once without them; ``engine: python``
runs the fallback (ReadabiliPy's own HTML simplification, not Readability's content scoring);
``auto`` (default) takes node when both are there, else the fallback. The engine used is in
every page's row (``readabilipy_engine``) and in the run's ``summary.json``
(``extractor_info``). ReadabiliPy itself would run ``npm install`` (a download) on first use
when the dependencies are missing; the adapter never lets it (it checks first).

Departure from ReadabiliPy's own node path, for speed: ReadabiliPy starts one node process per
page (loading jsdom takes most of a second); here one node process per extractor (and per
forked worker) parses every page (``readability_server.js``: the same Readability.js, jsdom and
handling of the HTML as ReadabiliPy's ``ExtractArticle.js``), and ReadabiliPy's own Python code
turns its article into the plain text (``plain_content``, ``extract_text_blocks_js``), as
``simple_json_from_html_string`` does. ``studies/readabilipy_speed.py`` measures both ways
and checks that they give the same text. A page on which node dies or that takes longer than
``timeout_s`` is a per-page error (:class:`ReadabilityJsError`); the next page starts a fresh
node process.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import time
import weakref
from pathlib import Path

from boilerbench.datasets.page import Page
from boilerbench.errors import MissingDependencyError, check_choice
from boilerbench.extractors.base import Extraction
from boilerbench.extractors.references.base import ReferenceExtractor

ENGINES = ("auto", "node", "python")
SERVER = Path(__file__).with_name("readability_server.js")


class ReadabilityJsError(RuntimeError):
    """Readability.js failed on a page: node died, timed out, or reported an error."""


class ReadabilityServer:
    """One node process running ``readability_server.js``, started on first use in the process
    that uses it (a forked worker starts its own) and restarted after a failure."""

    def __init__(self, javascript_dir: Path, timeout_s: float) -> None:
        self.javascript_dir = javascript_dir
        self.timeout_s = timeout_s
        self._process: subprocess.Popen | None = None
        self._owner = 0
        self._buffer = b""

    def _start(self) -> subprocess.Popen:
        if self._process is None or self._owner != os.getpid() or self._process.poll() is not None:
            process = subprocess.Popen(
                ["node", str(SERVER)],
                cwd=self.javascript_dir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            weakref.finalize(self, process.kill)
            self._process, self._owner, self._buffer = process, os.getpid(), b""
        return self._process

    def stop(self) -> None:
        """End this process's node server (a forked copy leaves its parent's alone)."""
        if self._process is not None and self._owner == os.getpid():
            self._process.kill()
            self._process.wait()
        self._process = None

    def parse(self, html: str) -> dict | None:
        """Readability's ``parse()`` result for ``html`` (None when it finds no article)."""
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps({"html": html}).encode() + b"\n")
            process.stdin.flush()
            reply = json.loads(self._read_line(process))
        except (BrokenPipeError, ReadabilityJsError) as error:
            self.stop()
            raise ReadabilityJsError(f"node: {error or type(error).__name__}") from None
        if "error" in reply:
            raise ReadabilityJsError(reply["error"])
        return reply["article"]

    def _read_line(self, process: subprocess.Popen) -> bytes:
        assert process.stdout is not None
        deadline = time.monotonic() + self.timeout_s
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise ReadabilityJsError(f"no answer within {self.timeout_s:g} s")
                chunk = os.read(process.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise ReadabilityJsError(f"the node process exited (status {process.wait()})")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line


class ReadabiliPy(ReferenceExtractor):
    """ReadabiliPy's ``simple_json_from_html_string``: its ``plain_text`` paragraphs, one a line."""

    MODULE = "readabilipy"
    DISTRIBUTION = "readabilipy"

    def __init__(
        self, engine: str = "auto", max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS, timeout_s: float = 60.0
    ) -> None:
        check_choice("extractor.engine", engine, ENGINES)
        self.engine = engine
        self.max_html_chars = max_html_chars
        self.timeout_s = timeout_s
        self._lib = self._require()
        self._engine = self._resolve(engine)
        self._server = ReadabilityServer(self._javascript_dir(), timeout_s)

    def _javascript_dir(self) -> Path:
        return Path(str(self._lib.__file__)).parent / "javascript"

    def _node_ready(self) -> tuple[bool, str]:
        """Whether Readability.js can run through node, and why not."""
        modules = self._javascript_dir() / "node_modules"
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
        if self._engine == "python":
            article = self._lib.simple_json_from_html_string(page.html, use_readability=False)
            blocks = article.get("plain_text") or ()
        else:
            blocks = self.node_blocks(page.html)
        return "\n".join(p["text"] for p in blocks)

    def node_blocks(self, html: str) -> list[dict]:
        """ReadabiliPy's ``plain_text`` for ``html`` through the node server: its own Python
        post-processing of Readability's article, as in ``simple_json_from_html_string``."""
        article = self._server.parse(html)
        if not article or not article.get("content"):
            return []
        simple = self._lib.simple_json
        return simple.extract_text_blocks_js(simple.plain_content(article["content"], False, False))
