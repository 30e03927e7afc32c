"""The training protocols: what a run fits on and what it scores, as one configured object.

A protocol (``conf/protocol/``) is one of

- ``in_domain``: fit on the tested split's training and validation pages, score its test pages
  (or its validation pages: ``evaluate_on=validation``, what hyperparameter searches optimise);
- ``cv``: K-fold cross-validation over a pool of the split's pages (each fold optionally trained
  on a mixture of datasets in which the tested dataset brings the fold's training pages);
- ``cross_dataset``: fit on another dataset's training pages, score the tested split's test pages;
- ``mixture``: fit on a weighted mixture of datasets (:mod:`boilerbench.datasets.mixture`);
- ``fallback``: a learned extractor tested on a split with no training pages of its own fits on
  a mixture; everything else is the dataset's own protocol.

Some protocols become another once the split is read (:meth:`Protocol.resolve`): a cross-dataset
run trained on the tested dataset itself is the in-domain run, ``cv`` with ``auto`` cross-validates
only a split with no training pages, a fallback applies only where it is needed. The resolved
protocol :meth:`~Protocol.plan` s the run: the fits, each with its training split, the name and
identity that key the model cache, and the pages it scores. :meth:`~Protocol.summary` gives the
run's ``summary.json`` sections: ``protocol`` (its name and parameters, with ``configured`` when
the configured protocol resolved into another one) and, as before, ``cv``, ``trained_on`` and
``mixture``.

The switches of earlier versions (``cv.folds``, ``cv.pool``, ``cv.auto``, ``train_on``,
``train_weights``, ``dataset@train_dataset``, ``fallback_train_on``, ``evaluate_on``) are mapped
onto a protocol by :func:`legacy_protocol`; the config groups ``train_source/``, ``transfer/`` and
``headline/`` are named presets of those switches and of the extractor (a training source is a
sweep axis that spans two protocols, cross_dataset and mixture), so they stay.
"""

from __future__ import annotations

import dataclasses
import logging
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from omegaconf import DictConfig, OmegaConf

from boilerbench.configs import CONF_DIR, build
from boilerbench.datasets.base import Dataset, Split, kfold
from boilerbench.datasets.mixture import mixture
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, check_choice
from boilerbench.experiments.scoring import PageResult, aggregate

log = logging.getLogger(__name__)

#: The per-fold figures whose mean and standard deviation a cross-validated run reports.
CV_FIGURES = {
    "cleaneval_mean": ("cleaneval", "mean"),
    "block_accuracy": ("block", "accuracy"),
    "block_precision": ("block", "precision"),
    "block_recall": ("block", "recall"),
    "block_f1": ("block", "f1"),
    "token_f1": ("token", "f1"),
}


def choice_name(cfg: DictConfig, group: str) -> str:
    """The config-group option a run used (``bte``, ``cleaneval``), as Hydra records it; a
    packaged group (``dataset@train_dataset``) falls back to its node's class name."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return str(HydraConfig.get().runtime.choices[group])
    except (ValueError, KeyError):
        return str(cfg[group.rsplit("@", 1)[-1]]["_target_"]).rsplit(".", 1)[-1].lower()


@dataclass
class Fit:
    """One fit of a run and the pages it scores: the training split (named as it keys the model
    cache), the training data's name and further identity that key the cache, and the fold
    number a cross-validated run writes into each page row."""

    training: Split
    source: str
    test: list[Page]
    identity: dict = field(default_factory=dict)
    fold: int | None = None


@dataclass
class Plan:
    """What a run does: its split (counted in the summary, digested into the run key), its fits,
    the split's name in the summary, and the summary sections known before fitting.
    ``release_training``: the training pages are scored by no fit, so they may be freed once fitted."""

    split: Split
    fits: list[Fit]
    label: str
    sections: dict = field(default_factory=dict)
    release_training: bool = False


@dataclass
class Outcome:
    """One fit's page results, its seconds and whether its model came from the cache."""

    results: list[PageResult]
    fit_s: float
    loaded: bool


class Protocol(ABC):
    """What a run fits on and what it scores; its dataclass fields are its parameters."""

    name: ClassVar[str]

    def resolve(self, cfg: DictConfig, split: Split, learns: bool) -> Protocol:
        """The protocol this run follows, once its tested ``split`` is read."""
        return self

    def datasets(self, cfg: DictConfig, learns: bool) -> list[Dataset]:
        """The datasets the run may read besides the tested one (their files key the run)."""
        return []

    @abstractmethod
    def plan(self, cfg: DictConfig, split: Split) -> Plan:
        """The fits of a run on the tested ``split``."""

    def record(self) -> dict:
        """The ``protocol`` section of ``summary.json``: the name and the parameters."""
        params = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.repr}  # type: ignore[arg-type]
        return {"name": self.name, **params}

    def summary(self, plan: Plan, outcomes: Sequence[Outcome], configured: Protocol) -> dict:
        """The run's summary sections: ``protocol`` and those of the plan."""
        record = self.record()
        if configured.name != self.name:
            record["configured"] = configured.record()
        return {**plan.sections, "protocol": record}


def own_protocol(folds: int, pool: str, evaluate_on: str = "test") -> Protocol:
    """A dataset's own protocol: in-domain, or (``folds`` > 0) cross-validated where its split has
    no training pages (``cv`` with ``auto``)."""
    return CV(folds=folds, pool=pool, auto=True) if folds else InDomain(evaluate_on=evaluate_on)


@dataclass
class InDomain(Protocol):
    """Fit on the split's training and validation pages; score its test (or validation) pages."""

    name: ClassVar[str] = "in_domain"
    evaluate_on: str = "test"

    def plan(self, cfg: DictConfig, split: Split) -> Plan:
        check_choice("evaluate_on", self.evaluate_on, ("test", "validation"))
        training = Split(split.name, split.train, split.validation)
        if self.evaluate_on == "validation":
            if not split.validation:
                raise ConfigError(
                    "evaluate_on=validation needs a split with validation pages and no cv.folds "
                    f"(split {split.name!r} has 0)"
                )
            fit = Fit(training, choice_name(cfg, "dataset"), split.validation)
            return Plan(split, [fit], f"{split.name}/validation")
        return Plan(split, [Fit(training, choice_name(cfg, "dataset"), split.test)], split.name, release_training=True)


def cv_pool(split: Split, pool: str) -> list:
    """The pages cross-validation folds are cut from: the split's training and validation pages
    (``train``), every page of the split (``all``), or ``auto``: the training pages when there
    are any, else the test pages (L3S-GN1's split ``all`` has no training pages)."""
    check_choice("cv.pool", pool, ("auto", "train", "all"))
    training = [*split.train, *split.validation]
    if pool == "train" or (pool == "auto" and training):
        return training
    return [*training, *split.test]


@dataclass
class CV(Protocol):
    """K-fold cross-validation over :func:`cv_pool`; every page of the pool is tested once. Folds
    are cut by site where the pages name one (``meta["group"]``: :func:`kfold`). With ``train_on``
    each fold trains on that mixture, in which the tested dataset's entry brings the fold's
    training pages only (:func:`mixture_split`): a multilingual model cross-validated on DANIEL's
    sites. With ``auto`` only a split with no training pages of its own is cross-validated (the
    others are the in-domain run; with ``train_on``, the mixture run)."""

    name: ClassVar[str] = "cv"
    folds: int = 5
    pool: str = "auto"
    auto: bool = False
    train_on: list[str] | None = None
    train_weights: str = "balanced"

    def resolve(self, cfg: DictConfig, split: Split, learns: bool) -> Protocol:
        if self.auto and self.train_on is not None:
            return Mixture(train_on=self.train_on, train_weights=self.train_weights)
        if self.auto and (split.train or split.validation):
            return InDomain()
        return self

    def datasets(self, cfg: DictConfig, learns: bool) -> list[Dataset]:
        return [build(train_on_config(entry, cfg)) for entry in self.train_on or ()]

    def plan(self, cfg: DictConfig, split: Split) -> Plan:
        pool = cv_pool(split, self.pool)
        if not 2 <= self.folds <= len(pool):
            raise ConfigError(f"cv.folds={self.folds} needs 2 <= folds <= {len(pool)} (the pages in the pool)")
        fits = []
        loaded: dict[str, Split] = {}
        for number, fold in enumerate(kfold(pool, self.folds, seed=int(cfg.seed)), start=1):
            if self.train_on is None:
                fits.append(Fit(fold, choice_name(cfg, "dataset"), fold.test, fold=number))
                continue
            training, source, mixed = mixture_split(cfg, fold, self.train_on, self.train_weights, loaded)
            identity = {"train_on": list(self.train_on), "train_weights": mixed["weights"]}
            fits.append(Fit(training, source, fold.test, identity, fold=number))
        sections = {}
        if self.train_on is not None:
            sections["mixture"] = {"weights": self.train_weights, "sources": list(self.train_on), "per_fold": True}
        return Plan(split, fits, f"{split.name}/cv{self.folds}", sections)

    def summary(self, plan: Plan, outcomes: Sequence[Outcome], configured: Protocol) -> dict:
        """Adds the ``cv`` section: per fold, and mean and standard deviation over folds of
        :data:`CV_FIGURES`."""
        per_fold = []
        for fit, outcome in zip(plan.fits, outcomes, strict=True):
            metrics = aggregate(outcome.results)
            per_fold.append(
                {
                    "fold": fit.fold,
                    "n_train": len(fit.training.train),
                    "n_test": len(fit.test),
                    "fit_s": outcome.fit_s,
                    "model_loaded_from_cache": outcome.loaded,
                    **{name: metrics[a][b] for name, (a, b) in CV_FIGURES.items()},
                }
            )
        section = {
            "folds": self.folds,
            "pool": sum(len(fit.test) for fit in plan.fits),
            "per_fold": per_fold,
            "mean": {name: float(np.mean([f[name] for f in per_fold])) for name in CV_FIGURES},
            "std": {name: float(np.std([f[name] for f in per_fold], ddof=1)) for name in CV_FIGURES},
        }
        return {**super().summary(plan, outcomes, configured), "cv": section}


def check_no_leak(cfg: DictConfig, split: Split, training: str) -> None:
    """Raise :class:`ConfigError` when a test page of ``split`` is also one of its training or
    validation pages (same dataset and page id): a model must never be scored on what it saw."""
    tested = {(p.source, p.id) for p in split.test}
    leaked = sorted({p.id for p in (*split.train, *split.validation) if (p.source, p.id) in tested})
    if leaked:
        raise ConfigError(
            f"{training} trains on {len(leaked)} of the test pages of dataset {choice_name(cfg, 'dataset')} "
            f"({', '.join(leaked[:5])}...): train on another dataset, or test by cross-validation (cv.folds)"
        )


def dataset_config(name: str, cfg: DictConfig) -> DictConfig:
    """The config node of ``conf/dataset/<name>.yaml``, its ``paths`` interpolations resolved
    against the run's ``paths`` (a name with no config lists the valid ones)."""
    folder = CONF_DIR / "dataset"
    check_choice("train_on", name, sorted(p.stem for p in folder.glob("*.yaml")))
    holder = OmegaConf.create(
        {"paths": OmegaConf.to_container(cfg.paths, resolve=True), "node": OmegaConf.load(folder / f"{name}.yaml")}
    )
    node = holder.node
    assert isinstance(node, DictConfig)
    return node


def train_on_config(entry: str, cfg: DictConfig) -> DictConfig:
    """The dataset config of a ``train_on`` entry: a dataset config name, or ``name:split``."""
    name, _, split_name = entry.partition(":")
    node = dataset_config(name, cfg)
    if split_name:
        node.split = split_name
    return node


@dataclass
class CrossDataset(Protocol):
    """Train on one dataset, test on another: the training and validation pages of ``train``'s
    split (a dataset config name, or ``name:split``; every page of it when the split has none, as
    L3S-GN1's ``all``) and the test pages of the tested split. The model is keyed as the in-domain
    run on the training dataset would key it (one fit serves both). Trained on the tested dataset
    itself it is that dataset's own protocol: in-domain, or with ``folds`` > 0 cross-validated
    (with ``auto``: only where the split has no training pages)."""

    name: ClassVar[str] = "cross_dataset"
    train: str = ""
    folds: int = 0
    pool: str = "auto"
    auto: bool = True
    #: The training dataset's config node, where a command line gave it (``dataset@train_dataset``).
    node: DictConfig | None = field(default=None, repr=False)

    def training_config(self, cfg: DictConfig) -> DictConfig:
        if not self.train and self.node is None:
            raise ConfigError("protocol=cross_dataset needs the training dataset: protocol.train=NAME (or NAME:SPLIT)")
        return self.node if self.node is not None else train_on_config(self.train, cfg)

    def resolve(self, cfg: DictConfig, split: Split, learns: bool) -> Protocol:
        node = OmegaConf.to_container(self.training_config(cfg), resolve=True)
        if node == OmegaConf.to_container(cfg.dataset, resolve=True):
            own = CV(folds=self.folds, pool=self.pool, auto=self.auto) if self.folds else InDomain()
            return own.resolve(cfg, split, learns)
        if self.folds and not self.auto:
            raise ConfigError("cv.folds and dataset@train_dataset exclude each other: pick one protocol")
        return self

    def datasets(self, cfg: DictConfig, learns: bool) -> list[Dataset]:
        return [build(self.training_config(cfg))]

    def plan(self, cfg: DictConfig, split: Split) -> Plan:
        """The split of the run, the training data's name (``cleaneval/web2text``, recorded as
        ``trained_on``) and the (dataset, split) names that key the model cache."""
        training = build(self.training_config(cfg)).load()
        train, validation = training.train, training.validation
        if not train and not validation:
            train = training.test
        key_name = self.train.partition(":")[0] or choice_name(cfg, "dataset@train_dataset")
        name = f"{key_name}/{training.name}"
        run_split = Split(name=f"{split.name}<-{name}", train=train, validation=validation, test=split.test)
        check_no_leak(cfg, run_split, f"dataset@train_dataset={key_name}")
        fit = Fit(Split(training.name, train, validation), key_name, split.test)
        return Plan(run_split, [fit], run_split.name, {"trained_on": name}, release_training=True)


def mixture_split(
    cfg: DictConfig, test_split: Split, entries: Sequence[str], weights: str, loaded: dict[str, Split] | None = None
) -> tuple[Split, str, dict]:
    """The split of a run trained on a mixture of datasets (``entries``, such as
    ``[cleaneval,dragnet,wcxb]``; each entry a dataset config name, or ``name:split`` for another
    split than its default; an entry named twice weighs twice), weighted by ``weights``
    (:func:`boilerbench.datasets.mixture.mixture`), tested on the test pages of ``test_split``; an
    entry that is the tested dataset brings ``test_split``'s training pages. A test page that is
    also a training page of the mixture (its dataset has no training split, or the splits overlap)
    is a :class:`ConfigError` (:func:`check_no_leak`).

    ``loaded`` keeps the datasets read, for the next call (cross-validation folds).
    Returns the split, the mixture's name (which keys the model cache) and its summary section.
    """
    loaded = {} if loaded is None else loaded
    tested = OmegaConf.to_container(cfg.dataset, resolve=True)
    sources: dict[str, Split] = {}
    for entry in entries:
        if entry in sources:
            continue
        node = train_on_config(entry, cfg)
        same = OmegaConf.to_container(node, resolve=True) == tested
        if not same and entry not in loaded:
            loaded[entry] = build(node).load()
        sources[entry] = test_split if same else loaded[entry]
    train = mixture(sources, weights, seed=int(cfg.seed), shares=Counter(entries))
    used = [*train.train, *train.validation]
    section: dict = {"weights": weights, "sources": {}}
    for entry, split in sources.items():
        own = {id(p) for p in (*split.train, *split.validation, *split.test)}
        section["sources"][entry] = {
            "pages": len({id(p) for p in used if id(p) in own}),
            "train": sum(1 for p in train.train if id(p) in own),
            "validation": sum(1 for p in train.validation if id(p) in own),
        }
    split = Split(
        name=f"{test_split.name}<-{train.name}", train=train.train, validation=train.validation, test=test_split.test
    )
    check_no_leak(cfg, split, f"train_on={list(sources)}")
    return split, train.name, section


@dataclass
class Mixture(Protocol):
    """Train on a weighted mixture of datasets (``train_on``: dataset config names, or
    ``name:split``), test on the tested split's test pages (:func:`mixture_split`)."""

    name: ClassVar[str] = "mixture"
    train_on: list[str] = field(default_factory=lambda: ["cleaneval", "dragnet", "wcxb"])
    train_weights: str = "balanced"

    def datasets(self, cfg: DictConfig, learns: bool) -> list[Dataset]:
        return [build(train_on_config(entry, cfg)) for entry in self.train_on]

    def plan(self, cfg: DictConfig, split: Split) -> Plan:
        run_split, name, section = mixture_split(cfg, split, self.train_on, self.train_weights)
        identity = {"train_on": list(self.train_on), "train_weights": section["weights"]}
        fit = Fit(Split(name, run_split.train, run_split.validation), name, split.test, identity)
        return Plan(run_split, [fit], run_split.name, {"trained_on": name, "mixture": section}, release_training=True)


@dataclass
class Fallback(Protocol):
    """A learned extractor tested on a split with no training pages of its own (L3S-GN1,
    Scrapinghub, CleanPortalEval, Readability's pages) trains on the mixture ``train_on``: the
    out-of-domain test a model meets on new pages. Everything else follows the dataset's own
    protocol (:func:`own_protocol`: ``folds`` > 0 cross-validates a heuristic on such a split)."""

    name: ClassVar[str] = "fallback"
    train_on: list[str] = field(default_factory=lambda: ["cleaneval", "dragnet", "wcxb"])
    train_weights: str = "balanced"
    folds: int = 0
    pool: str = "auto"

    def resolve(self, cfg: DictConfig, split: Split, learns: bool) -> Protocol:
        if learns and not split.train and not split.validation:
            return Mixture(train_on=self.train_on, train_weights=self.train_weights)
        return own_protocol(self.folds, self.pool).resolve(cfg, split, learns)

    def datasets(self, cfg: DictConfig, learns: bool) -> list[Dataset]:
        return [build(train_on_config(entry, cfg)) for entry in self.train_on] if learns else []

    def plan(self, cfg: DictConfig, split: Split) -> Plan:
        raise AssertionError("a fallback is resolved into another protocol before it plans")


#: ``conf/protocol`` names -> classes.
PROTOCOLS: dict[str, type[Protocol]] = {p.name: p for p in (InDomain, CV, CrossDataset, Mixture, Fallback)}


def _entries(value: object) -> list[str] | None:
    return None if value is None else [str(e) for e in value]  # type: ignore[attr-defined]


def legacy_protocol(cfg: DictConfig) -> Protocol | None:
    """The protocol that the switches of earlier versions name (``cv.folds``, ``cv.pool``,
    ``cv.auto``, ``train_on``, ``train_weights``, ``dataset@train_dataset``, ``fallback_train_on``,
    ``evaluate_on``), with their precedence: explicit cross-validation, then a training source,
    then the fallback mixture; None when none is set."""
    cv = cfg.get("cv") or {}
    folds, pool, auto = int(cv.get("folds", 0) or 0), str(cv.get("pool", "auto")), bool(cv.get("auto", False))
    target = str(cfg.get("evaluate_on", "test"))
    check_choice("evaluate_on", target, ("test", "validation"))
    train_on, fallback = _entries(cfg.get("train_on")), _entries(cfg.get("fallback_train_on"))
    node = cfg.get("train_dataset")
    weights = str(cfg.get("train_weights", "balanced"))
    if not folds and train_on is None and node is None and fallback is None and target == "test":
        return None
    if train_on is not None and node is not None:
        raise ConfigError("train_on and dataset@train_dataset exclude each other: pick one training source")
    if target == "validation" and (folds or train_on is not None or node is not None):
        raise ConfigError(
            "evaluate_on=validation needs a split with validation pages and no cv.folds, train_on or "
            "dataset@train_dataset (it scores the split's own validation pages)"
        )
    if node is not None:
        train = choice_name(cfg, "dataset@train_dataset")
        return CrossDataset(train=train, folds=folds, pool=pool, auto=auto, node=node)
    if folds and not auto:
        return CV(folds=folds, pool=pool, train_on=train_on, train_weights=weights)
    if train_on is not None:
        return Mixture(train_on=train_on, train_weights=weights)
    if fallback is not None and target == "test":
        return Fallback(train_on=fallback, train_weights=weights, folds=folds, pool=pool)
    return own_protocol(folds, pool, target)


def configured_protocol(cfg: DictConfig) -> Protocol:
    """The run's protocol: ``cfg.protocol`` (``conf/protocol``), or the one the switches of
    earlier versions name (:func:`legacy_protocol`); both at once is a :class:`ConfigError`."""
    legacy = legacy_protocol(cfg)
    node = cfg.get("protocol")
    if node is None:
        return legacy or InDomain()
    values = OmegaConf.to_container(node, resolve=True)
    assert isinstance(values, dict)
    params = {str(k): v for k, v in values.items() if k != "name"}
    name = str(node.get("name", ""))
    check_choice("protocol", name, sorted(PROTOCOLS))
    try:
        protocol = PROTOCOLS[name](**params)
    except TypeError as err:
        raise ConfigError(f"protocol={name}: {err}") from err
    if legacy is not None:
        if protocol != InDomain():
            raise ConfigError(
                f"protocol={name} and the switches of earlier versions (cv.*, train_on, dataset@train_dataset, "
                "fallback_train_on, evaluate_on) exclude each other: give the protocol as protocol=NAME "
                "protocol.KEY=VALUE"
            )
        return legacy
    return protocol
