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
from boilerbench.datasets.base import Split
from boilerbench.engine.extraction import size_error
from boilerbench.errors import ConfigError, describe
from boilerbench.evaluation.aggregates import add_intervals
from boilerbench.experiments.gate import apply_gate
from boilerbench.experiments.model_cache import extractor_version, load_cached, model_key, model_lock, save_cached
from boilerbench.experiments.model_file import save_model_file
from boilerbench.experiments.parallel import evaluate_pages
from boilerbench.experiments.protocols import Fit, Outcome, Plan, choice_name, configured_protocol
from boilerbench.experiments.resources import job_resources, start_job
from boilerbench.experiments.results import format_summary, previous_run, write_results
from boilerbench.experiments.reuse import (
    file_fingerprint,
    package_versions,
    page_digest,
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


def no_training_pages(cfg: DictConfig, dataset_name: str, split: Split) -> str:
    """The one-line refusal of a learned extractor whose split has no (loadable) training pages,
    naming the switches that would give it some: a model fitted on nothing is never made, cached
    or used (CRF's tagger segfaults on one; the torch models raise)."""
    return (
        f"extractor {choice_name(cfg, 'extractor')} learns from training pages, and split {split.name!r} of "
        f"{dataset_name} has none that load: train it on another dataset (protocol=cross_dataset "
        "protocol.train=cleaneval), on a mixture (protocol=mixture 'protocol.train_on=[cleaneval,dragnet,wcxb]', "
        "or protocol=fallback for splits without training pages), or cross-validate it (protocol=cv "
        "protocol.folds=5, with protocol.auto=true only where a split has no training pages)"
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
    and records any error per page. It runs in this process, before the pages are handed out, and
    has no time limit (``page_timeout_s`` limits extraction)."""
    if not contract.tags(extractor).prepares or not pages:
        return 0.0
    start = time.perf_counter()
    try:
        contract.prepare(extractor, [p for p in pages if not size_error(p, max_html_chars)])
    except Exception as error:  # an optimisation only: never lose the run to it
        log.warning("%s.prepare failed (%s): extracting page by page", type(extractor).__name__, describe(error))
    return 1000 * (time.perf_counter() - start) / len(pages)


def max_html_chars(cfg: DictConfig) -> int:
    """The run's size limit in characters of HTML: ``max_html_chars``, or the deprecated
    ``max_page_mb`` (millions of characters, despite its name) when a command line still sets it."""
    old = cfg.get("max_page_mb")
    if old is None:
        return int(cfg.max_html_chars)
    log.warning("max_page_mb is deprecated (it counts characters): use max_html_chars=%d", int(old * 1_000_000))
    return int(old * 1_000_000)


def page_timeout(cfg: DictConfig) -> float | None:
    """``page_timeout_s``: None (no limit) or a positive number of seconds."""
    value = cfg.get("page_timeout_s")
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"page_timeout_s={value!r} is not valid: give a positive number of seconds, or null")
    return float(value)


def evaluate(extractor: Extractor, pages, cfg: DictConfig) -> list[PageResult]:
    """Extract and score every page (in ``cfg.n_workers`` processes; in worker processes killed
    and replaced at a page past ``cfg.page_timeout_s``: :mod:`boilerbench.engine.pool`), releasing
    each page's tree once it is scored. An extractor's batched preparation (:func:`prepare`) is
    part of each page's ``extract_ms``, spread evenly over the pages."""
    pages = list(pages)
    limit = max_html_chars(cfg)
    timeout_s = page_timeout(cfg)
    prepared_ms = prepare(extractor, pages, limit)
    with tqdm(total=len(pages), desc="extract", unit="page", disable=not cfg.progress, leave=False) as bar:
        results = evaluate_pages(
            extractor,
            pages,
            limit,
            rouge=bool(cfg.get("rouge", False)),
            n_workers=int(cfg.get("n_workers", 1)),
            on_result=bar.update,
            page_timeout_s=timeout_s,
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


def fit_and_score(extractor: Extractor, cfg: DictConfig, fit: Fit, plan: Plan) -> Outcome:
    """Fit (or load) the model of one ``fit`` and score its pages, writing its fold number into
    each row. The training pages of a plan that scores none of them are freed once fitted; with
    ``save_model=PATH`` the fitted extractor is also written to that file."""
    seed_everything(int(cfg.seed))
    fit_s, loaded = fit_extractor(extractor, cfg, fit.source, fit.training, **fit.identity)
    if plan.release_training:
        for page in (*fit.training.train, *fit.training.validation):
            page.release()
    if cfg.get("save_model"):
        config = OmegaConf.to_container(cfg.extractor, resolve=True)
        assert isinstance(config, dict)
        source = plan.sections.get("trained_on") or f"{choice_name(cfg, 'dataset')}/{plan.split.name}"
        save_model_file(extractor, cfg.save_model, choice_name(cfg, "extractor"), config, source, package_versions())
        log.info("saved the fitted model to %s", cfg.save_model)
    results = evaluate(extractor, fit.test, cfg)
    for result in results if fit.fold is not None else ():
        result.row["fold"] = fit.fold
    return Outcome(results, fit_s, loaded)


def kept(summary: dict, output_dir: str | Path) -> dict:
    """Keep an earlier run's results: log it, print them, return its summary."""
    log.info("%s holds the results of this very run (same config, code, packages and data): kept", output_dir)
    print(format_summary(summary))
    return summary


def run(cfg: DictConfig, output_dir: str | Path) -> dict:
    """Run one (extractor, dataset) job described by ``cfg`` into ``output_dir``: build the extractor,
    dataset and protocol (:mod:`boilerbench.experiments.protocols`), keep an earlier identical run
    (:mod:`boilerbench.experiments.reuse`), plan the fits, fit and score each (:func:`fit_and_score`;
    ``save_model=PATH`` also writes the fitted extractor to one file), write the results."""
    started = time.perf_counter()
    start_job()
    set_cache_dir(cfg.paths.get("cache_dir"))
    extractor = build(cfg.extractor)  # before the data is read: a bad config value fails at once
    dataset = build(cfg.dataset)
    configured, learns = configured_protocol(cfg), contract.tags(extractor).learns
    reuse = not cfg.get("rerun", False) and not cfg.get("save_model")
    quick_key = run_identity(cfg, extractor, dataset, file_fingerprint([dataset, *configured.datasets(cfg, learns)]))
    earlier = previous_run(Path(output_dir), "quick_key", quick_key) if reuse else None
    if earlier is not None:
        return kept(earlier, output_dir)
    split = dataset.load()
    protocol = configured.resolve(cfg, split, learns)
    plan = protocol.plan(cfg, split)
    if cfg.get("save_model") and len(plan.fits) > 1:
        raise ConfigError("save_model writes one fitted model: it excludes cv.folds")
    key_of_run = run_identity(cfg, extractor, dataset, page_digest(plan.split))
    earlier = previous_run(Path(output_dir), "run_key", key_of_run) if reuse else None
    if earlier is not None:
        remember_quick_key(Path(output_dir), earlier, quick_key)
        return kept(earlier, output_dir)
    # one extractor per fit, each built when its turn comes (and freed after it)
    outcomes = [fit_and_score(build(cfg.extractor) if i else extractor, cfg, f, plan) for i, f in enumerate(plan.fits)]
    results = [r for outcome in outcomes for r in outcome.results]
    loaded = len(outcomes) == 1 and outcomes[0].loaded
    summary = summarise(cfg, plan.split, results, sum(o.fit_s for o in outcomes), loaded, extractor)
    summary["split"] = plan.label
    summary.update(protocol.summary(plan, outcomes, configured))
    summary.update(code_version=extractor_version(extractor), run_key=key_of_run, quick_key=quick_key)
    summary["output_dir"] = str(Path(output_dir).resolve())
    summary["timing"]["wall_s"] = time.perf_counter() - started
    apply_gate(summary, float(cfg.get("max_error_rate", 0.01)))
    write_results(Path(output_dir), results, summary, predictions=bool(cfg.save_predictions))
    print(format_summary(summary))
    return summary
