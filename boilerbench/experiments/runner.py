"""The runner: load the split, fit (or load the cached model), extract and score every test
page, write ``pages.csv``, ``predictions.jsonl`` and ``summary.json``, print a summary."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from boilerbench.cache import set_cache_dir
from boilerbench.configs import CONF_DIR, build, make_extractor
from boilerbench.datasets.base import Dataset, Split, kfold
from boilerbench.datasets.mixture import mixture
from boilerbench.errors import ConfigError, check_choice
from boilerbench.evaluation.aggregates import add_intervals
from boilerbench.experiments.gate import apply_gate
from boilerbench.experiments.model_cache import extractor_version, load_cached, model_key, model_lock, save_cached
from boilerbench.experiments.model_file import save_model_file
from boilerbench.experiments.parallel import evaluate_pages
from boilerbench.experiments.resources import job_resources, start_job
from boilerbench.experiments.results import format_summary, write_results
from boilerbench.experiments.reuse import (
    file_fingerprint,
    package_versions,
    page_digest,
    previous_run,
    remember_quick_key,
    run_identity,
)
from boilerbench.experiments.scoring import PageResult, aggregate, by_column
from boilerbench.experiments.seed import seed_everything
from boilerbench.extractors import base as contract
from boilerbench.extractors.base import Extractor, Persistent

log = logging.getLogger(__name__)

#: Re-exported: tests and benchmarks build extractors through the runner module.
__all__ = ["CONF_DIR", "build", "make_extractor", "run"]


def choice_name(cfg: DictConfig, group: str) -> str:
    """The config-group option a run used (``bte``, ``cleaneval``), as Hydra records it; a
    packaged group (``dataset@train_dataset``) falls back to its node's class name."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return str(HydraConfig.get().runtime.choices[group])
    except (ValueError, KeyError):
        return str(cfg[group.rsplit("@", 1)[-1]]["_target_"]).rsplit(".", 1)[-1].lower()


def no_training_pages(cfg: DictConfig, dataset_name: str, split: Split) -> str:
    """The one-line refusal of a learned extractor whose split has no (loadable) training pages,
    naming the switches that would give it some: a model fitted on nothing is never made, cached
    or used (CRF's tagger segfaults on one; the torch models raise)."""
    return (
        f"extractor {choice_name(cfg, 'extractor')} learns from training pages, and split {split.name!r} of "
        f"{dataset_name} has none that load: train it on another dataset (dataset@train_dataset=cleaneval), "
        "on a mixture (train_on=[cleaneval,dragnet,wcxb], or fallback_train_on=[...] for splits without "
        "training pages), or cross-validate it (cv.folds=5, or cv.auto=true)"
    )


def fit_extractor(
    extractor: Extractor, cfg: DictConfig, dataset_name: str, split: Split, **identity: object
) -> tuple[float, bool]:
    """Fit on the split's training pages, or load the cached fitted model (keyed by config, data,
    code version and any further ``identity``, such as a mixture's weights:
    :mod:`boilerbench.experiments.model_cache`). Pages that could not be loaded are left out.
    Returns (seconds, loaded)."""
    start = time.perf_counter()
    split = Split(
        name=split.name,
        train=[p for p in split.train if not p.load_error],
        validation=[p for p in split.validation if not p.load_error],
    )
    if not contract.tags(extractor).learns:
        extractor.fit(split.train, split.validation)
        return time.perf_counter() - start, False
    if not split.train:
        raise ConfigError(no_training_pages(cfg, dataset_name, split))
    if not contract.tags(extractor).persistent or not cfg.paths.get("model_dir"):
        extractor.fit(split.train, split.validation)
        return time.perf_counter() - start, False
    config = OmegaConf.to_container(cfg.extractor, resolve=True)
    key = model_key(config, dataset_name, split, extractor_version(extractor), **identity)
    directory = Path(cfg.paths.model_dir) / choice_name(cfg, "extractor") / key
    with model_lock(directory):
        if not cfg.retrain and load_cached(cast(Persistent, extractor), directory):
            log.info("loaded fitted model from %s", directory)
            return time.perf_counter() - start, True
        fit_start = time.perf_counter()
        extractor.fit(split.train, split.validation)
        seconds = time.perf_counter() - fit_start
        save_cached(cast(Persistent, extractor), directory)
    return seconds, False


def prepare(extractor: Extractor, pages: list, max_html_chars: int) -> float:
    """Let an extractor that works faster on many pages at once (``prepare(pages)``: the LM
    encoder embeds 32 pages per call) do that work before the pages are extracted one by one;
    returns its milliseconds per page. Pages over the size limit are left to extraction, which
    records them as errors; a failure here is only logged: extraction then does the work per page
    and records any error per page."""
    if not contract.tags(extractor).prepares or not pages:
        return 0.0
    start = time.perf_counter()
    try:
        contract.prepare(extractor, [p for p in pages if len(p.html) <= max_html_chars])
    except Exception as error:  # an optimisation only: never lose the run to it
        log.warning(
            "%s.prepare failed (%s: %s): extracting page by page", type(extractor).__name__, type(error).__name__, error
        )
    return 1000 * (time.perf_counter() - start) / len(pages)


def evaluate(extractor: Extractor, pages, cfg: DictConfig) -> list[PageResult]:
    """Extract and score every page (in ``cfg.n_workers`` processes), releasing each page's tree
    once it is scored. An extractor's batched preparation (:func:`prepare`) is part of each
    page's ``extract_ms``, spread evenly over the pages."""
    pages = list(pages)
    limit = int(cfg.max_page_mb * 1_000_000)
    prepared_ms = prepare(extractor, pages, limit)
    with tqdm(total=len(pages), desc="extract", unit="page", disable=not cfg.progress, leave=False) as bar:
        results = evaluate_pages(
            extractor,
            pages,
            limit,
            rouge=bool(cfg.get("rouge", False)),
            n_workers=int(cfg.get("n_workers", 1)),
            on_result=bar.update,
        )
    for result in results:
        if result.scored:
            result.row["extract_ms"] += prepared_ms
    return results


def summarise(
    cfg: DictConfig, split: Split, results: list[PageResult], fit_s: float, loaded: bool, extractor: object = None
) -> dict:
    """The ``summary.json`` content of a run; ``extractor_info`` is what the extractor reports about
    how it ran (its ``run_info()``, e.g. which engine ReadabiliPy used), if it reports anything."""
    resamples = int(cfg.get("bootstrap_resamples", 1000))
    times = np.array([r.row["extract_ms"] for r in results if r.scored]) if results else np.zeros(1)
    times = times if len(times) else np.zeros(1)
    errors = [r.row for r in results if r.row["error"]]
    summary = {
        "extractor": choice_name(cfg, "extractor"),
        "dataset": choice_name(cfg, "dataset"),
        "split": split.name,
        "n_pages": len(results),
        "n_errors": len(errors),
        "errors": {r["page_id"]: r["error"] for r in errors[:50]},
        "counts": {
            "train": len(split.train),
            "validation": len(split.validation),
            "test": len(split.test),
            "blocks": int(sum(r.blocks.n_blocks for r in results if r.blocks is not None)),
            "not_loaded": sum(1 for r in results if not r.scored),
        },
        # with seeded page-level bootstrap 95 % intervals (boilerbench.evaluation.aggregates)
        "metrics": add_intervals(aggregate(results), scored_rows(results), resamples=resamples, seed=int(cfg.seed)),
        "timing": {
            "extract_ms_per_page": float(times.mean()),
            "extract_ms_p95": float(np.percentile(times, 95)),
            "fit_s": fit_s,
            "model_loaded_from_cache": loaded,
        },
        "config": OmegaConf.to_container(cfg, resolve=True),
        "versions": package_versions(),
        "extractor_info": contract.run_info(extractor),
        # CPU seconds and peak memory of the job (boilerbench.experiments.resources)
        "resources": job_resources(),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    for section, column in (("by_page_type", "page_type"), ("by_language", "language")):
        groups = by_column(results, column)
        for name, part in groups.items():
            rows = scored_rows(r for r in results if r.row.get(column) == name)
            part["metrics"] = add_intervals(part["metrics"], rows, resamples=resamples, seed=int(cfg.seed))
        if groups:
            summary[section] = groups
    return summary


def scored_rows(results: Iterable[PageResult]) -> pd.DataFrame:
    """The page rows behind a run's metrics (pages that could not be loaded are not scored)."""
    return pd.DataFrame([r.row for r in results if r.scored])


#: The per-fold figures whose mean and standard deviation a cross-validated run reports.
CV_FIGURES = {
    "cleaneval_mean": ("cleaneval", "mean"),
    "block_accuracy": ("block", "accuracy"),
    "block_precision": ("block", "precision"),
    "block_recall": ("block", "recall"),
    "block_f1": ("block", "f1"),
    "token_f1": ("token", "f1"),
}


def cv_pool(split: Split, pool: str) -> list:
    """The pages cross-validation folds are cut from: the split's training and validation pages
    (``train``), every page of the split (``all``), or ``auto``: the training pages when there
    are any, else the test pages (L3S-GN1's split ``all`` has no training pages)."""
    check_choice("cv.pool", pool, ("auto", "train", "all"))
    training = [*split.train, *split.validation]
    if pool == "train" or (pool == "auto" and training):
        return training
    return [*training, *split.test]


def run_cv(
    cfg: DictConfig, split: Split, folds: int, train_on: list[str] | None = None
) -> tuple[list[PageResult], dict, float]:
    """Fit and test each fold of ``cfg.cv.folds``-fold cross-validation; every page is tested once.
    Folds are cut by site where the pages name one (``meta["group"]``: :func:`kfold`). With
    ``train_on`` each fold trains on that mixture, in which the tested dataset's entry brings the
    fold's training pages only (:func:`mixture_split`): a multilingual model cross-validated on
    DANIEL's sites.

    Returns the results (each row with its ``fold``), the ``cv`` summary section (per fold and
    mean and standard deviation over folds of :data:`CV_FIGURES`) and the total fit time.
    """
    pool = cv_pool(split, str(cfg.cv.get("pool", "auto")))
    if not 2 <= folds <= len(pool):
        raise ConfigError(f"cv.folds={folds} needs 2 <= folds <= {len(pool)} (the pages in the pool)")
    results: list[PageResult] = []
    per_fold = []
    fit_total = 0.0
    loaded_sources: dict[str, Split] = {}
    for number, fold in enumerate(kfold(pool, folds, seed=int(cfg.seed)), start=1):
        extractor = build(cfg.extractor)
        seed_everything(int(cfg.seed))
        training, source, identity = fold, choice_name(cfg, "dataset"), {}
        if train_on is not None:
            training, source, mixed = mixture_split(cfg, fold, train_on, loaded_sources)
            identity = {"train_on": list(mixed["sources"]), "train_weights": mixed["weights"]}
        fit_s, loaded = fit_extractor(extractor, cfg, source, training, **identity)
        fit_total += fit_s
        fold_results = evaluate(extractor, fold.test, cfg)
        for r in fold_results:
            r.row["fold"] = number
        metrics = aggregate(fold_results)
        per_fold.append(
            {
                "fold": number,
                "n_train": len(training.train),
                "n_test": len(fold.test),
                "fit_s": fit_s,
                "model_loaded_from_cache": loaded,
                **{name: metrics[a][b] for name, (a, b) in CV_FIGURES.items()},
            }
        )
        results.extend(fold_results)
    section = {
        "folds": folds,
        "pool": len(pool),
        "per_fold": per_fold,
        "mean": {name: float(np.mean([f[name] for f in per_fold])) for name in CV_FIGURES},
        "std": {name: float(np.std([f[name] for f in per_fold], ddof=1)) for name in CV_FIGURES},
    }
    return results, section, fit_total


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


def cross_dataset_split(cfg: DictConfig, test_split: Split) -> tuple[Split, str, tuple[str, str]]:
    """The split of a train-on-one, test-on-another run: the training and validation pages of
    ``cfg.train_dataset``'s split (every page of it when the split has none, as L3S-GN1's
    ``all``) and the test pages of ``cfg.dataset``'s split. Returns it, the training data's name
    (``cleaneval/web2text``, recorded as ``trained_on``) and the (dataset, split) names that key
    the model cache as an in-domain run on the training dataset would (one fit serves both)."""
    source = build(cfg.train_dataset)
    training = source.load()
    train, validation = training.train, training.validation
    if not train and not validation:
        train = training.test
    key_name = choice_name(cfg, "dataset@train_dataset")
    name = f"{key_name}/{training.name}"
    split = Split(name=f"{test_split.name}<-{name}", train=train, validation=validation, test=test_split.test)
    check_no_leak(cfg, split, f"dataset@train_dataset={key_name}")
    return split, name, (key_name, training.name)


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


def mixture_split(
    cfg: DictConfig, test_split: Split, entries: list[str], loaded: dict[str, Split] | None = None
) -> tuple[Split, str, dict]:
    """The split of a run trained on a mixture of datasets (``entries``: ``train_on``, such as
    ``[cleaneval,dragnet,wcxb]``, or ``fallback_train_on``; each entry a dataset config name, or
    ``name:split`` for another split than its default),
    weighted by ``train_weights`` (:func:`boilerbench.datasets.mixture.mixture`), tested on the
    test pages of ``cfg.dataset``. A test page that is also a training page of the mixture (its
    dataset has no training split, or the splits overlap) is a :class:`ConfigError`
    (:func:`check_no_leak`).

    ``loaded`` keeps the datasets read, for the next call (cross-validation folds).
    Returns the split, the mixture's name (which keys the model cache) and its summary section.
    """
    loaded = {} if loaded is None else loaded
    weights = str(cfg.get("train_weights", "balanced"))
    tested = OmegaConf.to_container(cfg.dataset, resolve=True)
    sources: dict[str, Split] = {}
    for entry in entries:
        node = train_on_config(entry, cfg)
        same = OmegaConf.to_container(node, resolve=True) == tested
        if not same and entry not in loaded:
            loaded[entry] = build(node).load()
        sources[entry] = test_split if same else loaded[entry]
    train = mixture(sources, weights, seed=int(cfg.seed))
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


def fallback_mixture(cfg: DictConfig, extractor: Extractor) -> list[str]:
    """The ``fallback_train_on`` entries that train a learned extractor tested on a split with no
    training pages of its own (L3S-GN1, Scrapinghub, ...), instead of cross-validating it there;
    empty for an extractor that learns nothing, or when the run names its training data."""
    if not contract.tags(extractor).learns or cfg.get("train_on") is not None or cfg.get("train_dataset") is not None:
        return []
    return [str(e) for e in cfg.get("fallback_train_on") or ()]


def datasets_read(cfg: DictConfig, dataset: Dataset, extractor: Extractor) -> list[Dataset]:
    """The datasets a run reads: the tested one, and a cross-dataset run's or a mixture's
    training datasets (a fallback mixture's too: whether it is used is known once the split is read)."""
    read = [dataset]
    if cfg.get("train_dataset") is not None:
        read.append(build(cfg.train_dataset))
    entries = [str(e) for e in cfg.get("train_on") or ()] + fallback_mixture(cfg, extractor)
    read += [build(train_on_config(entry, cfg)) for entry in entries]
    return read


def kept(summary: dict, output_dir: str | Path) -> dict:
    """Keep an earlier run's results: log it, print them, return its summary."""
    log.info("%s holds the results of this very run (same config, code, packages and data): kept", output_dir)
    print(format_summary(summary))
    return summary


def run(cfg: DictConfig, output_dir: str | Path) -> dict:
    """Run one (extractor, dataset) job described by ``cfg``; write results into ``output_dir``.

    With ``cv.folds=K`` the extractor is cross-validated over the split's training pool instead
    (see :func:`run_cv`); the pooled metrics cover every page of the pool once; with
    ``cv.auto=true`` only when the split has no training pages (L3S-GN1, Scrapinghub, ...). With
    ``dataset@train_dataset=NAME`` it is trained on that dataset and tested on ``dataset``
    (see :func:`cross_dataset_split`; the same dataset and split as ``dataset`` is the in-domain
    run), with ``train_on=[...]`` on a mixture of datasets (:func:`mixture_split`). With
    ``evaluate_on=validation`` the split's validation pages are scored instead of its test pages
    (what hyperparameter searches optimise). With ``save_model=PATH`` the fitted extractor is
    also written to one file (:mod:`boilerbench.experiments.model_file`).
    """
    started = time.perf_counter()
    start_job()
    set_cache_dir(cfg.paths.get("cache_dir"))
    extractor = build(cfg.extractor)  # before the data is read: a bad config value fails at once
    dataset = build(cfg.dataset)
    reuse = not cfg.get("rerun", False) and not cfg.get("save_model")
    quick_key = run_identity(cfg, extractor, dataset, file_fingerprint(datasets_read(cfg, dataset, extractor)))
    earlier = previous_run(Path(output_dir), "quick_key", quick_key) if reuse else None
    if earlier is not None:
        return kept(earlier, output_dir)
    split = dataset.load()
    folds = int(cfg.get("cv", {}).get("folds", 0) or 0)
    target = str(cfg.get("evaluate_on", "test"))
    check_choice("evaluate_on", target, ("test", "validation"))
    if target == "validation" and (folds or not split.validation):
        raise ConfigError(
            "evaluate_on=validation needs a split with validation pages and no cv.folds "
            f"(split {split.name!r} has {len(split.validation)})"
        )
    trained_on = None
    key = (choice_name(cfg, "dataset"), split.name)
    identity: dict = {}
    mixed: dict = {}
    train_on = cfg.get("train_on")
    fallback = fallback_mixture(cfg, extractor)
    if fallback and not split.train and not split.validation and target == "test" and (not folds or cfg.cv.auto):
        train_on = fallback
    train_dataset = cfg.get("train_dataset")
    if train_dataset is not None and OmegaConf.to_container(train_dataset, resolve=True) == OmegaConf.to_container(
        cfg.dataset, resolve=True
    ):
        train_dataset = None  # trained on the dataset under test: the in-domain run, its own protocol
    if train_on is not None and train_dataset is not None:
        raise ConfigError("train_on and dataset@train_dataset exclude each other: pick one training source")
    if cfg.get("cv", {}).get("auto", False) and (split.train or split.validation or train_on or train_dataset):
        folds = 0  # cv.auto: cross-validate only a split that has no training pages of its own
    if train_dataset is not None and folds:
        raise ConfigError("cv.folds and dataset@train_dataset exclude each other: pick one protocol")
    if train_dataset is not None:
        split, trained_on, key = cross_dataset_split(cfg, split)
    elif train_on is not None and not folds:
        split, trained_on, mixed = mixture_split(cfg, split, [str(e) for e in train_on])
        key = (trained_on, trained_on)
        identity = {"train_on": list(mixed["sources"]), "train_weights": mixed["weights"]}
    save_to = cfg.get("save_model")
    if save_to and folds:
        raise ConfigError("save_model writes one fitted model: it excludes cv.folds")
    key_of_run = run_identity(cfg, extractor, dataset, page_digest(split))
    earlier = previous_run(Path(output_dir), "run_key", key_of_run) if reuse else None
    if earlier is not None:
        remember_quick_key(Path(output_dir), earlier, quick_key)
        return kept(earlier, output_dir)
    if folds:
        entries = None if train_on is None else [str(e) for e in train_on]
        results, section, fit_s = run_cv(cfg, split, folds, entries)
        if entries is not None:
            mixed = {"weights": str(cfg.get("train_weights", "balanced")), "sources": entries, "per_fold": True}
        summary = summarise(cfg, split, results, fit_s, False, extractor)
        summary["split"] = f"{split.name}/cv{folds}"
        summary["cv"] = section
    else:
        seed_everything(int(cfg.seed))
        # A model is keyed by its training data alone (for a cross-dataset run, as the in-domain
        # run of its training dataset), so that testing it on several datasets fits it once.
        training = Split(key[1], split.train, split.validation)
        fit_s, loaded = fit_extractor(extractor, cfg, key[0], training, **identity)
        if target == "test":
            for page in (*split.train, *split.validation):
                page.release()
        if save_to:
            config = OmegaConf.to_container(cfg.extractor, resolve=True)
            assert isinstance(config, dict)
            source = trained_on or f"{choice_name(cfg, 'dataset')}/{split.name}"
            save_model_file(extractor, save_to, choice_name(cfg, "extractor"), config, source, package_versions())
            log.info("saved the fitted model to %s", save_to)
        results = evaluate(extractor, split.validation if target == "validation" else split.test, cfg)
        summary = summarise(cfg, split, results, fit_s, loaded, extractor)
        if target == "validation":
            summary["split"] = f"{split.name}/validation"
    if trained_on is not None:
        summary["trained_on"] = trained_on
    if train_on is not None:
        summary["mixture"] = mixed
    summary["code_version"] = extractor_version(extractor)
    summary["run_key"] = key_of_run
    summary["quick_key"] = quick_key
    summary["output_dir"] = str(Path(output_dir).resolve())
    summary["timing"]["wall_s"] = time.perf_counter() - started
    apply_gate(summary, float(cfg.get("max_error_rate", 0.01)))
    write_results(Path(output_dir), results, summary, predictions=bool(cfg.save_predictions))
    print(format_summary(summary))
    return summary
