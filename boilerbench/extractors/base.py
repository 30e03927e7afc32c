"""The extractor contract: the interface the runner, the caches, the command line and the model
file rely on, in this one module (scikit-learn's estimator conventions and estimator tags).

- :class:`Extractor` (``fit`` and ``extract``) is all an extraction algorithm must have;
  :class:`BaseExtractor` is the one base class of the project's extractors.
- Hyperparameters are constructor arguments, stored under their own names, so a Hydra
  ``_target_`` config is the whole description of an extractor and :meth:`BaseExtractor.get_params`,
  :meth:`~BaseExtractor.set_params` and :func:`clone` (same class, same parameters, unfitted)
  work from the signature alone. A constructor stores its arguments as given and validates them:
  a bad value raises :class:`~boilerbench.errors.ConfigError` before any page is read (at
  composition, in the command line's ``--extractor`` as in a run), which a validation deferred to
  ``fit`` would not give a heuristic, whose ``fit`` does nothing. It reads no data, loads no
  model and computes nothing; the only other attributes it may set are private handles (``_lib``:
  a reference library imported, so a missing optional package fails at once). Learning happens in
  ``fit``, and fitted state is held in attributes whose names end in ``_`` (:func:`require_fitted`).
- What else an extractor can do is declared once per class, as tags (:class:`Tags`, returned by
  ``__boilerbench_tags__``: scikit-learn's ``__sklearn_tags__``): whether it learns, saves and
  loads its fitted state, prepares pages in batches, reads member extractors, which third-party
  distributions its output depends on... Code outside this module asks :func:`tags` and the
  helpers below (:func:`run_info`, :func:`prepare`, :func:`members`, :func:`dependency_versions`,
  :func:`feature_names`), never the extractor's attributes: the probes live here only.
- :mod:`boilerbench.extractors.checks` checks an extractor against this contract
  (:func:`~boilerbench.extractors.checks.check_extractor`); the test suite runs it on every
  ``conf/extractor`` config.

``extract`` returns the main text and, for block-based methods, labels over the page's
canonical blocks (``page.blocks``); a method that returns only text is scored at block level
by aligning its text to the blocks. Extractors read ``page.blocks`` and its lxml tree but
never modify them: they are shared with the runner.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar, cast, runtime_checkable

import numpy as np

from boilerbench.datasets.page import Page

if TYPE_CHECKING:
    from boilerbench.extractors.members import Member


@dataclass
class Extraction:
    """An extractor's output for one page: text, optional block labels, optional extra columns,
    and, for methods that output structure, ``markup``: the same text in CleanEval's format
    (each paragraph, heading and list item opened by ``<p>``, ``<h>`` or ``<l>``), scored by
    the text-and-markup CleanEval score (:mod:`boilerbench.evaluation.cleaneval_score`)."""

    text: str
    labels: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    markup: str | None = None

    @classmethod
    def from_labels(cls, page: Page, labels: np.ndarray, kinds: Sequence[str] | None = None, **info) -> Extraction:
        """The extraction made of the blocks labelled 1, with the page's separators; with
        ``kinds`` (one per block: ``p``, ``h`` or ``l`` where a paragraph, heading or list item
        starts, ``""`` where the block continues the current one) also its CleanEval markup."""
        labels = np.asarray(labels, dtype=np.int8)
        markup = None if kinds is None else block_markup(page.blocks.texts, page.blocks.seps, labels, kinds)
        return cls(text=page.blocks.join(labels.astype(bool)), labels=labels, info=info, markup=markup)


def block_markup(texts: Sequence[str], seps: Sequence[str], labels: np.ndarray, kinds: Sequence[str]) -> str:
    """CleanEval markup of the selected blocks: a segment opens at each block whose kind is
    ``p``, ``h`` or ``l`` (and at the first selected block, as ``p`` when it has no kind); a
    block of kind ``""`` continues the open segment, after a space (or nothing when it continues
    a word: separator ``""`` from the previous block, which is selected too)."""
    segments: list[list[str]] = []
    previous = -2
    for i in map(int, np.flatnonzero(labels)):
        kind = kinds[i]
        if kind or not segments:
            segments.append([f"<{kind or 'p'}>", texts[i]])
        else:
            glue = "" if seps[i] == "" and previous == i - 1 else " "
            segments[-1].append(glue + texts[i])
        previous = i
    return "\n".join("".join(parts) for parts in segments)


@runtime_checkable
class Extractor(Protocol):
    """What the runner needs of an extraction algorithm."""

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> Extractor: ...

    def extract(self, page: Page) -> Extraction: ...


@runtime_checkable
class Persistent(Protocol):
    """Learned extractors can be saved and loaded, so the runner can cache fitted models."""

    def save(self, directory: str | os.PathLike[str]) -> None: ...

    def load(self, directory: str | os.PathLike[str]) -> Persistent: ...


@dataclass(frozen=True)
class Tags:
    """What an extractor can do besides ``fit`` and ``extract``, declared by its class
    (``__boilerbench_tags__``) and read through :func:`tags`."""

    #: ``fit`` learns from the training pages (False: ``fit`` does nothing, and the runner needs
    #: no training pages; only such extractors may be an ensemble's members).
    learns: bool = False
    #: ``save(directory)`` and ``load(directory)`` write and read the fitted state (:class:`Persistent`).
    persistent: bool = False
    #: ``load`` unpickles (a model file from others, which must never run code, is then refused).
    loads_pickle: bool = False
    #: ``prepare(pages)`` does the pages' work in batches before they are extracted one by one.
    prepares: bool = False
    #: It reads the votes of member extractors (``built_members()``, ``dependency_versions()``).
    has_members: bool = False
    #: ``feature_names()`` names the columns its fitted model reads (a model file's feature schema).
    has_feature_names: bool = False
    #: The installed third-party distributions whose versions its output depends on.
    distributions: tuple[str, ...] = ()
    #: The largest page (characters of HTML) it accepts; None: no limit of its own.
    max_html_chars: int | None = None


T = TypeVar("T")

#: The tags of an object that follows :class:`Extractor` without :class:`BaseExtractor`: it is
#: assumed to learn (the safe side: the runner gives it training pages, no ensemble takes it).
FOREIGN_TAGS = Tags(learns=True)


class NotFittedError(RuntimeError):
    """An extractor used before ``fit`` or ``load``."""


def require_fitted(extractor: object, *attributes: str) -> None:
    """Raise :class:`NotFittedError` unless ``extractor`` has each fitted attribute in
    ``attributes`` (by default: any attribute whose name ends in ``_``; scikit-learn's
    ``check_is_fitted``)."""
    present = vars(extractor)
    fitted = all(a in present for a in attributes) if attributes else any(k.endswith("_") for k in present)
    if not fitted:
        raise NotFittedError(f"{type(extractor).__name__} used before fit or load")


def _param_names(cls: type) -> list[str]:
    """The constructor's argument names (none for a class without its own ``__init__``)."""
    init = next((vars(c)["__init__"] for c in cls.__mro__ if "__init__" in vars(c)), None)
    if init is None or init is vars(object)["__init__"]:
        return []
    parameters = inspect.signature(init).parameters.values()
    return [p.name for p in parameters if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


class BaseExtractor:
    """The base class of the project's extractors: parameters, ``repr``, tags, and the defaults
    of the optional hooks (a heuristic's ``fit`` does nothing)."""

    def __boilerbench_tags__(self) -> Tags:
        """This extractor's capabilities (a subclass returns ``dataclasses.replace`` of its parent's)."""
        return Tags()

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> BaseExtractor:
        return self

    def extract(self, page: Page) -> Extraction:
        raise NotImplementedError

    def get_params(self) -> dict:
        """The hyperparameters: the constructor's arguments, as stored."""
        return {n: getattr(self, n) for n in _param_names(type(self))}

    def set_params(self, **params: object) -> BaseExtractor:
        """Set hyperparameters, validated as the constructor validates them (ConfigError)."""
        unknown = sorted(set(params) - set(_param_names(type(self))))
        if unknown:
            raise ValueError(f"{type(self).__name__} has no parameters {unknown}")
        type(self)(**{**self.get_params(), **params})
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def saved_params(self) -> dict:
        """The hyperparameters as a fitted model's files record them (JSON; a member extractor by its name)."""
        return json.loads(json.dumps({k: _saved(v) for k, v in self.get_params().items()}, default=_plain))

    def check_saved_params(self, saved: dict, directory: str | os.PathLike[str]) -> None:
        """Refuse to load a model saved with other hyperparameters (compared as JSON, so a
        tuple argument equals the list it was saved as)."""
        if saved != self.saved_params():
            raise ValueError(f"model in {directory} was trained with other hyperparameters: {saved}")

    def run_info(self) -> dict:
        """What the run summary records about this extractor (``extractor_info``)."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.get_params().items())})"


def _saved(value: object) -> object:
    """A hyperparameter as saved: a mapping of member extractors by its names, others as they are."""
    if isinstance(value, Mapping) and value and all(isinstance(v, BaseExtractor) for v in value.values()):
        return list(value)
    return value


def _plain(value: object) -> object:
    """A mapping or sequence that JSON does not know (Hydra's DictConfig, ListConfig) as a dict or list."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    raise TypeError(f"hyperparameter {value!r} cannot be saved as JSON")


def clone(value: T) -> T:
    """A new unfitted extractor with the same parameters (member extractors cloned too; scikit-learn's ``clone``)."""
    if isinstance(value, BaseExtractor):
        return cast(T, type(value)(**{k: clone(v) for k, v in value.get_params().items()}))
    if isinstance(value, Mapping):
        return cast(T, {k: clone(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return cast(T, type(value)(clone(v) for v in value))
    return value


def tags(extractor: object) -> Tags:
    """The extractor's :class:`Tags` (:data:`FOREIGN_TAGS` for one that does not declare them)."""
    declared = getattr(extractor, "__boilerbench_tags__", None)
    return declared() if callable(declared) else FOREIGN_TAGS


#: The methods each capability tag promises.
TAG_HOOKS: dict[str, tuple[str, ...]] = {
    "persistent": ("save", "load"),
    "prepares": ("prepare",),
    "has_members": ("built_members", "dependency_versions"),
    "has_feature_names": ("feature_names",),
}


def missing_hooks(extractor: object) -> list[str]:
    """The methods (``tag: method``) that the extractor's tags promise and it does not have."""
    declared = tags(extractor)
    return [
        f"{tag}: {method}()"
        for tag, methods in TAG_HOOKS.items()
        if getattr(declared, tag)
        for method in methods
        if not callable(getattr(extractor, method, None))
    ]


def run_info(extractor: object) -> dict:
    """What the run summary records about the (fitted) extractor."""
    return extractor.run_info() if isinstance(extractor, BaseExtractor) else {}


def prepare(extractor: object, pages: Sequence[Page]) -> bool:
    """Let an extractor tagged ``prepares`` do the pages' work in batches; False when it has none."""
    if not tags(extractor).prepares:
        return False
    extractor.prepare(pages)  # type: ignore[attr-defined]
    return True


def members(extractor: object) -> list[Member]:
    """An ensemble's or a stack's members (built on first use), or none."""
    return extractor.built_members() if tags(extractor).has_members else []  # type: ignore[attr-defined]


def dependency_versions(extractor: object) -> list[str]:
    """The versions of what the extractor's output depends on beyond its own code (its members' votes)."""
    return extractor.dependency_versions() if tags(extractor).has_members else []  # type: ignore[attr-defined]


def feature_names(extractor: object) -> list[str] | None:
    """The names of the columns a fitted extractor's model reads, or None for one without a schema."""
    return extractor.feature_names() if tags(extractor).has_feature_names else None  # type: ignore[attr-defined]
