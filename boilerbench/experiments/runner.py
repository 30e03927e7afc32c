"""The runner: load the split, fit (or load the cached model), extract and score every test
page, write ``pages.csv``, ``predictions.jsonl`` and ``summary.json``, print a summary."""

from __future__ import annotations

import logging
import platform
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from boilerbench import __version__
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.base import Split, kfold
from boilerbench.errors import ConfigError, check_choice
from boilerbench.experiments.gate import apply_gate
from boilerbench.experiments.model_cache import extractor_version, load_cached, model_key, save_cached
from boilerbench.experiments.model_file import save_model_file
from boilerbench.experiments.results import format_summary, write_results
from boilerbench.experiments.scoring import PageResult, aggregate, evaluate_page
from boilerbench.experiments.seed import seed_everything
from boilerbench.extractors.base import Extractor, Persistent
from boilerbench.extractors.compose import CONF_DIR, build, make_extractor
from boilerbench.extractors.references import REFERENCE_PACKAGES

log = logging.getLogger(__name__)

#: Re-exported: tests and benchmarks build extractors through the runner module.
__all__ = ["CONF_DIR", "build", "make_extractor", "run"]

_PACKAGES = (
    "lxml",
    "numpy",
    "pandas",
    "rapidfuzz",
    "hydra-core",
    "beautifulsoup4",
    "chardet",
    "torch",
    "lightgbm",
    "fastwarc",
    *REFERENCE_PACKAGES,
)


def choice_name(cfg: DictConfig, group: str) -> str:
    """The config-group option a run used (``bte``, ``cleaneval``), as Hydra records it; a
    packaged group (``dataset@train_dataset``) falls back to its node's class name."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return str(HydraConfig.get().runtime.choices[group])
    except (ValueError, KeyError):
        return str(cfg[group.rsplit("@", 1)[-1]]["_target_"]).rsplit(".", 1)[-1].lower()


def package_versions(names: tuple[str, ...] = _PACKAGES) -> dict[str, str]:
    """Installed versions of the packages that affect results."""
    found = {"boilerbench": __version__, "python": platform.python_version()}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def fit_extractor(extractor: Extractor, cfg: DictConfig, dataset_name: str, split: Split) -> tuple[float, bool]:
    """Fit on the split's training pages, or load the cached fitted model (keyed by config, data
    and code version: :mod:`boilerbench.experiments.model_cache`). Returns (seconds, loaded)."""
    start = time.perf_counter()
    if not getattr(extractor, "learns", True):
        extractor.fit(split.train, split.validation)
        return time.perf_counter() - start, False
    if not isinstance(extractor, Persistent) or not cfg.paths.get("model_dir"):
        extractor.fit(split.train, split.validation)
        return time.perf_counter() - start, False
    config = OmegaConf.to_container(cfg.extractor, resolve=True)
    key = model_key(config, dataset_name, split, extractor_version(extractor))
    directory = Path(cfg.paths.model_dir) / choice_name(cfg, "extractor") / key
    if not cfg.retrain and load_cached(extractor, directory):
        log.info("loaded fitted model from %s", directory)
        return time.perf_counter() - start, True
    extractor.fit(split.train, split.validation)
    seconds = time.perf_counter() - start
    save_cached(extractor, directory)
    return seconds, False


def evaluate(extractor: Extractor, pages, cfg: DictConfig) -> list[PageResult]:
    """Extract and score every page, releasing each page's tree once it is scored."""
    limit = int(cfg.max_page_mb * 1_000_000)
    results = []
    for page in tqdm(pages, desc="extract", unit="page", disable=not cfg.progress, leave=False):
        results.append(evaluate_page(extractor, page, limit, rouge=bool(cfg.get("rouge", False))))
        page.release()
    return results


def summarise(
    cfg: DictConfig, split: Split, results: list[PageResult], fit_s: float, loaded: bool, extractor: object = None
) -> dict:
    """The ``summary.json`` content of a run; ``extractor_info`` is what the extractor reports about
    how it ran (its ``run_info()``, e.g. which engine ReadabiliPy used), if it reports anything."""
    times = np.array([r.row["extract_ms"] for r in results]) if results else np.zeros(1)
    errors = [r.row for r in results if r.row["error"]]
    return {
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
        },
        "metrics": aggregate(results),
        "timing": {
            "extract_ms_per_page": float(times.mean()),
            "extract_ms_p95": float(np.percentile(times, 95)),
            "fit_s": fit_s,
            "model_loaded_from_cache": loaded,
        },
        "config": OmegaConf.to_container(cfg, resolve=True),
        "versions": package_versions(),
        "extractor_info": extractor.run_info() if hasattr(extractor, "run_info") else {},
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


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


def run_cv(cfg: DictConfig, split: Split, folds: int) -> tuple[list[PageResult], dict, float]:
    """Fit and test each fold of ``cfg.cv.folds``-fold cross-validation; every page is tested once.

    Returns the results (each row with its ``fold``), the ``cv`` summary section (per fold and
    mean and standard deviation over folds of :data:`CV_FIGURES`) and the total fit time.
    """
    pool = cv_pool(split, str(cfg.cv.get("pool", "auto")))
    if not 2 <= folds <= len(pool):
        raise ConfigError(f"cv.folds={folds} needs 2 <= folds <= {len(pool)} (the pages in the pool)")
    results: list[PageResult] = []
    per_fold = []
    fit_total = 0.0
    for number, fold in enumerate(kfold(pool, folds, seed=int(cfg.seed)), start=1):
        extractor = build(cfg.extractor)
        seed_everything(int(cfg.seed))
        fit_s, loaded = fit_extractor(extractor, cfg, choice_name(cfg, "dataset"), fold)
        fit_total += fit_s
        fold_results = evaluate(extractor, fold.test, cfg)
        for r in fold_results:
            r.row["fold"] = number
        metrics = aggregate(fold_results)
        per_fold.append(
            {
                "fold": number,
                "n_train": len(fold.train),
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


def cross_dataset_split(cfg: DictConfig, test_split: Split) -> tuple[Split, str]:
    """The split of a train-on-one, test-on-another run: the training and validation pages of
    ``cfg.train_dataset``'s split (every page of it when the split has none, as L3S-GN1's
    ``all``) and the test pages of ``cfg.dataset``'s split. Returns it and the training
    dataset's name (``cleaneval/web2text``), which also keys the model cache."""
    source = build(cfg.train_dataset)
    training = source.load()
    train, validation = training.train, training.validation
    if not train and not validation:
        train = training.test
    name = f"{choice_name(cfg, 'dataset@train_dataset')}/{training.name}"
    return Split(name=f"{test_split.name}<-{name}", train=train, validation=validation, test=test_split.test), name


def run(cfg: DictConfig, output_dir: str | Path) -> dict:
    """Run one (extractor, dataset) job described by ``cfg``; write results into ``output_dir``.

    With ``cv.folds=K`` the extractor is cross-validated over the split's training pool instead
    (see :func:`run_cv`); the pooled metrics cover every page of the pool once. With
    ``dataset@train_dataset=NAME`` it is trained on that dataset and tested on ``dataset``
    (see :func:`cross_dataset_split`). With ``evaluate_on=validation`` the split's validation
    pages are scored instead of its test pages (what hyperparameter searches optimise). With
    ``save_model=PATH`` the fitted extractor is also written to one file
    (:mod:`boilerbench.experiments.model_file`).
    """
    started = time.perf_counter()
    set_cache_dir(cfg.paths.get("cache_dir"))
    extractor = build(cfg.extractor)  # before the data is read: a bad config value fails at once
    dataset = build(cfg.dataset)
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
    if cfg.get("train_dataset") is not None:
        if folds:
            raise ConfigError("cv.folds and dataset@train_dataset exclude each other: pick one protocol")
        split, trained_on = cross_dataset_split(cfg, split)
    save_to = cfg.get("save_model")
    if save_to and folds:
        raise ConfigError("save_model writes one fitted model: it excludes cv.folds")
    if folds:
        results, section, fit_s = run_cv(cfg, split, folds)
        summary = summarise(cfg, split, results, fit_s, False, extractor)
        summary["split"] = f"{split.name}/cv{folds}"
        summary["cv"] = section
    else:
        seed_everything(int(cfg.seed))
        fit_s, loaded = fit_extractor(extractor, cfg, trained_on or choice_name(cfg, "dataset"), split)
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
    summary["code_version"] = extractor_version(extractor)
    summary["output_dir"] = str(Path(output_dir).resolve())
    summary["timing"]["wall_s"] = time.perf_counter() - started
    apply_gate(summary, float(cfg.get("max_error_rate", 0.01)))
    write_results(Path(output_dir), results, summary, predictions=bool(cfg.save_predictions))
    print(format_summary(summary))
    return summary
