"""The Python API, in the style of trafilatura's ``extract``::

    import boilerbench
    text = boilerbench.extract(html)                        # the shipped default model
    md = boilerbench.extract(html, url, output="markdown")
    record = boilerbench.extract(html, output="json", metadata=True)
    model = boilerbench.load_model("my.bbmodel")            # loaded once, reused
    text = boilerbench.extract(html, model=model)
    text = boilerbench.extract(html, extractor="trafilatura")  # any extractor that needs no training

A model is loaded once per file (keyed by its path, size and modification time) and an
extractor once per name and options, under a lock, and then shared: ``extract`` reloads
nothing, and is safe to call from several threads (extractors read pages, never change shared
state) and after ``fork`` (the lock is renewed in the child; loaded models are inherited).

:func:`extract_document` is the one extraction step that the API, the command line and the
datatrove step share: text, markdown, metadata, and the warnings a user must see (an extractor
that returns nothing on a Chinese, Japanese or Thai page; members of an ensemble that refuse a
page over their size limit).
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

from boilerbench.datasets.align import align_labels
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.engine.pieces import PIECE_ABOVE, PIECE_CHARS, piece_pages
from boilerbench.errors import BoilerbenchError, check_choice
from boilerbench.extractors.base import members, tags
from boilerbench.tokenizer import detect_tokenizer

log = logging.getLogger(__name__)

OUTPUTS = ("text", "markdown", "json")


class ShippedModel(NamedTuple):
    """A pretrained model shipped inside the package: its file in ``boilerbench/models/`` and the
    extractor config it holds (its manifest's ``extractor``)."""

    file: str
    extractor: str


#: The models shipped inside the package, by the name that ``load_model`` and ``--model`` take for
#: them (``Makefile``'s ``model`` target makes them all): ``default``, the fast stack, what
#: ``extract`` uses when no model is given; ``accurate``, the cascade of the fast and the headline
#: stack; ``multilingual``, the arbiter between the fast stack and Readability, the one that beats
#: Readability in every language of DANIEL's site-grouped cross-validation.
SHIPPED_MODELS = {
    "default": ShippedModel("default.bbmodel", "stack_fast"),
    "accurate": ShippedModel("accurate.bbmodel", "cascade"),
    "multilingual": ShippedModel("multilingual.bbmodel", "arbiter"),
}
#: Where the default model ships inside the package.
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / SHIPPED_MODELS["default"].file
#: Scripts on which word-based heuristics (jusText's stoplists, BTE's word counts) may find nothing.
SEGMENTED_SCRIPTS = {"zh": "Chinese", "ja": "Japanese", "th": "Thai"}


class ModelNotFoundError(BoilerbenchError):
    """No model file where one was asked for (or no default model in this installation)."""


@dataclass(eq=False)
class Model:
    """A loaded extractor, ready for :func:`extract`: from a model file, or a named extractor."""

    extractor: Any
    name: str
    manifest: dict | None = None

    def extract(
        self, html: str | bytes, url: str | None = None, *, output: str = "text", metadata: bool = False
    ) -> str | None:
        """:func:`extract` with this model."""
        return extract(html, url, output=output, metadata=metadata, model=self)


@dataclass
class Document:
    """The result of one page: its main text, markdown (when asked), metadata (when asked) and warnings."""

    text: str
    markdown: str | None = None
    metadata: dict[str, str | None] | None = None
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of ``output="json"``: ``text``, ``markdown`` when made, each metadata field."""
        record: dict[str, Any] = {"text": self.text}
        if self.markdown is not None:
            record["markdown"] = self.markdown
        if self.metadata is not None:
            record.update(self.metadata)
        if self.warnings:
            record["warnings"] = self.warnings
        return record


_loaded: dict[tuple, Model] = {}
_lock = threading.Lock()


def _renew_lock() -> None:
    global _lock
    _lock = threading.Lock()  # a lock held by another thread at fork time would never be released


os.register_at_fork(after_in_child=_renew_lock)


def _prepared(model: Model) -> Model:
    """Build what an extractor builds lazily (an ensemble's members) now, under the load lock,
    so that concurrent first calls never build it twice."""
    members(model.extractor)
    return model


def model_path(path: str | os.PathLike[str] | None) -> Path:
    """The file of model ``path``: :data:`DEFAULT_MODEL` for None, the shipped model of a name in
    :data:`SHIPPED_MODELS` when no file of that name exists, else ``path`` itself."""
    if path is None:
        return DEFAULT_MODEL
    if str(path) in SHIPPED_MODELS and not Path(path).exists():
        return DEFAULT_MODEL.parent / SHIPPED_MODELS[str(path)].file
    return Path(path)


def load_model(path: str | os.PathLike[str] | None = None) -> Model:
    """The model in the file ``path`` (default: :data:`DEFAULT_MODEL`; a name of
    :data:`SHIPPED_MODELS` where no such file exists: that shipped model), loaded once and reused.

    Raises :class:`ModelNotFoundError` when there is no such file and
    :class:`~boilerbench.experiments.model_file.ModelFileError` when it cannot be read or used."""
    from boilerbench.experiments.model_file import ModelFileError, load_model_file

    file = model_path(path)
    if not file.is_file():
        if path is None:
            raise ModelNotFoundError(
                f"this installation has no default model ({DEFAULT_MODEL}); pass model=PATH "
                "(a file from 'python run.py ... save_model=PATH') or extractor=NAME"
            )
        raise ModelNotFoundError(f"no such model file: {file}")
    stat = file.stat()
    key = ("file", str(file.resolve()), stat.st_size, stat.st_mtime_ns)
    with _lock:
        if key not in _loaded:
            try:
                extractor, manifest = load_model_file(file)
            except BoilerbenchError:
                raise
            except Exception as err:  # a truncated file (EOFError), a manifest naming an unknown class...
                raise ModelFileError(f"cannot load the model file {file}: {type(err).__name__}: {err}") from None
            _loaded[key] = _prepared(Model(extractor, str(manifest.get("extractor")), manifest))
        return _loaded[key]


def load_extractor(name: str, options: tuple[str, ...] = (), allow_learned: bool = False) -> Model:
    """The extractor ``conf/extractor/<name>.yaml`` with ``options`` (``"key=value"``), built once
    and reused. A learned extractor needs its training: it is refused unless ``allow_learned``."""
    from boilerbench.configs import make_extractor

    key = ("extractor", name, tuple(options))
    with _lock:
        if key not in _loaded:
            extractor = make_extractor(name, list(options))
            if tags(extractor).learns and not allow_learned:
                raise BoilerbenchError(
                    f"extractor {name!r} learns from training pages: train it and save it with "
                    f"'python run.py extractor={name} ... save_model=PATH', then use that model file"
                )
            _loaded[key] = _prepared(Model(extractor, name))
        return _loaded[key]


def _model(model: Model | str | os.PathLike[str] | None, extractor: str | None) -> Model:
    if model is not None and extractor is not None:
        raise BoilerbenchError("give model or extractor, not both")
    if isinstance(model, Model):
        return model
    if extractor is not None:
        return load_extractor(extractor)
    return load_model(model)


def as_text(html: str | bytes, charset: str | None = None) -> str:
    """``html`` as text: bytes are decoded with the project's detector (``charset`` first)."""
    return decode_bytes(html, (charset,) if charset else ()) if isinstance(html, bytes) else html


def _size_warning(extractor: Any, page: Page) -> str | None:
    """Members of an ensemble that refuse ``page`` as too large, if any."""
    refusing = [m.name for m in members(extractor) if len(page.html) > (tags(m.extractor).max_html_chars or math.inf)]
    if not refusing:
        return None
    return f"{len(page.html):,} characters is over the size limit of members {', '.join(refusing)}"


class PageTooLargeForMembersError(BoilerbenchError):
    """Every member of an ensemble refused the page as too large: nothing could be extracted."""


def extract_document(
    extractor: Any, page: Page, *, markdown: bool = False, metadata: bool = False, name: str = ""
) -> Document:
    """Extract ``page`` with ``extractor``: its text, and its markdown and metadata when asked.
    A page over :data:`~boilerbench.engine.pieces.PIECE_ABOVE` characters is extracted piece by
    piece (:mod:`boilerbench.engine.pieces`): the pieces' texts and markdown joined in page order,
    the first piece's metadata, and a warning that says so.

    Raises what the extractor raises, and :class:`PageTooLargeForMembersError` when an
    ensemble's members all refused the page (or a piece) for its size (an empty text would be
    silent loss)."""
    if len(page.html) <= PIECE_ABOVE:
        document, refused = _whole_document(extractor, page, markdown=markdown, metadata=metadata, name=name)
        parts, pieces = [document], 1
    else:
        parts, refused = [], None
        for k, piece in enumerate(piece_pages(page, PIECE_ABOVE, PIECE_CHARS)):
            part, refused_here = _whole_document(
                extractor, piece, markdown=markdown, metadata=metadata and k == 0, name=name
            )
            parts.append(part)
            refused = refused or refused_here
        pieces = len(parts)
    document = Document("\n".join(part.text for part in parts if part.text), metadata=parts[0].metadata)
    if refused and not document.text.strip():
        raise PageTooLargeForMembersError(refused + "; no member could vote, so nothing was extracted")
    if markdown:
        document.markdown = "\n\n".join(part.markdown for part in parts if part.markdown)
    document.warnings = list(dict.fromkeys(warning for part in parts for warning in part.warnings))
    if pieces > 1:
        document.warnings.append(
            f"{len(page.html):,} characters of HTML: extracted in {pieces} pieces of at most about "
            f"{PIECE_CHARS:,}, each without the rest of the page"
        )
    return document


def _whole_document(
    extractor: Any, page: Page, *, markdown: bool, metadata: bool, name: str
) -> tuple[Document, str | None]:
    """:func:`extract_document` of a page extracted whole, and what its members' size limits
    refused (:func:`_size_warning`), if anything."""
    extraction = extractor.extract(page)
    text = extraction.text or ""
    document = Document(text)
    refused = _size_warning(extractor, page)
    if refused and text.strip():
        document.warnings.append(refused)
    if not text.strip() and len(page.blocks):
        script = SEGMENTED_SCRIPTS.get(detect_tokenizer("\n".join(page.blocks.texts)))
        if script:
            who = name or type(extractor).__name__
            document.warnings.append(f"{who} returned no text on a {script} page: it may not handle {script} text")
    if markdown:
        from boilerbench.markdown import to_markdown

        labels = extraction.labels
        if labels is None or len(labels) != len(page.blocks):
            labels = align_labels(page.blocks, text)
        document.markdown = to_markdown(page.blocks, labels.astype(bool)) if text.strip() else ""
    if metadata:
        from boilerbench.metadata import extract_metadata

        page_type = extraction.info.get("predicted_page_type") if extraction.info else None
        document.metadata = extract_metadata(page.blocks.root, page.html, page.url, text, page_type)
    return document, refused


def extract(
    html: str | bytes,
    url: str | None = None,
    *,
    output: Literal["text", "markdown", "json"] | str = "text",
    metadata: bool = False,
    model: Model | str | os.PathLike[str] | None = None,
    extractor: str | None = None,
) -> str | None:
    """The main content of one page, or None when there is none (trafilatura's convention; the
    JSON object is always returned, with its ``warnings`` when the text is empty).

    ``html``: the page, text or bytes (bytes are decoded with the project's encoding detector);
    ``url``: where it came from (for the canonical URL and site name); ``output``: ``"text"``,
    ``"markdown"`` (headings, lists, tables, code and quotes kept) or ``"json"`` (an object with
    ``text``, ``markdown``... as a string); ``metadata``: add title, author, date, language,
    site name, canonical URL and page type (to the JSON; in text and markdown a header of
    ``key: value`` lines between ``---`` lines); ``model``: a :class:`Model`, a model file path,
    or None for the shipped default model; ``extractor``: instead of a model, the name of an
    extractor that needs no training (``"trafilatura"``, ``"majority_vote"``...).

    Raises :class:`ModelNotFoundError` (no such model), a
    :class:`~boilerbench.errors.BoilerbenchError` for a bad option, and what the extractor
    raises on the page."""
    check_choice("output", output, OUTPUTS)
    chosen = _model(model, extractor)
    page = Page("page", as_text(html), "", url)
    document = extract_document(
        chosen.extractor,
        page,
        markdown=output in ("markdown", "json"),
        metadata=metadata,
        name=chosen.name,
    )
    for warning in document.warnings:
        log.warning("%s: %s", url or "page", warning)
    if output == "json":
        return json.dumps(document.as_dict(), ensure_ascii=False)
    if not document.text.strip():
        return None
    body = document.markdown if output == "markdown" else document.text
    assert body is not None
    if document.metadata is None:
        return body
    return with_header(document.metadata, body)


def with_header(metadata: dict[str, str | None], body: str) -> str:
    """``body`` after a front-matter header of the metadata found (``key: value`` lines between ``---``)."""
    header = "\n".join(f"{key}: {value}" for key, value in metadata.items() if value is not None)
    return f"---\n{header}\n---\n{body}"
