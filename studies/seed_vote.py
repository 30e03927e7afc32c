"""A learned extractor's fits with different seeds put to a majority vote: does it keep one fit's
luck out of the figures?

A refit of the headline models with another seed (the mixture's draw, the trees', the selector's)
moves a dataset's token F1 by as much as issue 29's 0.005 allowance (``table_multilingual_cost``,
``table_languages_cv``). Averaging the page scores over the seeds measures the expected fit; a vote
over the fits is a model that could ship (three fits, each block kept where most of them keep it)
and may score above that average, as a bag of trees does. This reads the block labels that the
runs of the same extractor with different seeds stored (``predictions.jsonl``), keeps each block
where more than half of the runs keep it, scores the vote's text as the runner scores (token F1),
and sets it against each run, their page-by-page mean, and the page-by-page mean of other runs
(``--against``: the English stack's runs with the same seeds; from the run archive where their
folders are gone), paired, per language where the
pages have one (the sites resampled for DANIEL). Test pages: a diagnosis of what such a vote would
score, chosen on nothing.

    BOILERBENCH_DATA=../shared/datasets python -m studies.seed_vote \\
        --runs multirun/table_multilingual_cost/K_arbiter_stack_wcxb,RUN1,RUN2 --against E0,E1,E2
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import run_main
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.evaluation.token import token_prf
from boilerbench.experiments.results import Run
from boilerbench.extractors.base import Extraction
from boilerbench.reports.ablation import difference_cell, subset_difference
from boilerbench.reports.collect import STORE, read_runs, run_pages
from boilerbench.reports.collect import pages as run_page_rows
from boilerbench.reports.inspect.load import dataset_pages, run_labels
from boilerbench.reports.languages import daniel_site
from boilerbench.reports.significance import align, compare_pair, seed_mean
from boilerbench.reports.tables import Table

#: The fewest pages of a language or page type given a difference of its own.
MIN_GROUP = 20


def majority(labels: Sequence[np.ndarray]) -> np.ndarray:
    """1 where more than half of the label vectors keep the block (a tie drops it), else 0."""
    kept = np.sum([np.asarray(v) == 1 for v in labels], axis=0)
    return (2 * kept > len(labels)).astype(np.int8)


def vote_text(texts: Sequence[str], labels: Sequence[np.ndarray], page: Page) -> str:
    """The vote's text on ``page``: a run's own text where its labels are the vote's (it may hold
    more than its blocks: a product description appended from JSON-LD), else the voted blocks."""
    voted = majority(labels)
    for text, own in zip(texts, labels, strict=True):
        if np.array_equal(own, voted):
            return text
    return Extraction.from_labels(page, voted).text


def vote_rows(runs: Sequence[Run]) -> tuple[pd.DataFrame, int]:
    """The first run's page rows with the vote's token precision, recall and F1 instead of the
    run's, and the number of pages some run has no labels of (too large to segment: the first
    run's text stands for the vote there)."""
    frames = align([r.pages for r in runs], [str(r.path) for r in runs])
    stored = [{str(p["page_id"]): p for p in run.predictions()} for run in runs]
    pages = dataset_pages(runs[0])
    scores, unlabelled = [], 0
    for i, page_id in enumerate(frames[0]["page_id"].astype(str)):
        page = pages[page_id]
        records = [s[page_id] for s in stored]
        texts = [str(r.get("text") or "") for r in records]
        labels = [
            run_labels(record, page, frame.iloc[i].to_dict(), run, [])
            for record, frame, run in zip(records, frames, runs, strict=True)
        ]
        known = [v for v in labels if v is not None]
        if len(known) < len(labels):
            unlabelled += 1
        text = vote_text(texts, known, page) if len(known) == len(labels) else texts[0]
        score = token_prf(text, page.gold_text, page.tokenizer)
        scores.append((score.precision, score.recall, score.f1))
        page.release()
    rows = frames[0].copy()
    rows[["token_precision", "token_recall", "token_f1"]] = scores
    return rows, unlabelled


def stored_pages(run_dir: str, store: pd.DataFrame) -> pd.DataFrame:
    """A run's page rows: from its folder, else from the run archive by the results store's row
    of that folder (its run key), as the reports read them."""
    row = store[store["run_dir"].astype(str) == run_dir]
    return run_pages(row.iloc[-1]) if len(row) else run_page_rows(run_dir)


def differences(ours: pd.DataFrame, theirs: pd.DataFrame, site: Callable[[str], str] | None) -> dict[str, str]:
    """``ours`` minus ``theirs`` in token F1, paired: over all pages, then per language and per page
    type where the rows have more than one (resampling the sites ``site`` gives, where given)."""
    a, b = align([ours, theirs], ["ours", "theirs"])
    clusters = None if site is None else [site(str(i)) for i in a["page_id"]]
    (overall,) = compare_pair(a, b, ["token.f1"], clusters=clusters)
    cells = {"all": difference_cell(overall)}
    for column in ("language", "page_type"):
        counts = a[column].dropna().astype(str).value_counts() if column in a.columns else pd.Series(dtype=int)
        groups = sorted(str(v) for v, n in counts.items() if v and n >= MIN_GROUP)
        if len(groups) > 1:
            cells |= {v: difference_cell(subset_difference(a, b, column, v, site)) for v in groups}
    return cells


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True, help="comma-separated run folders: one extractor, seeds apart")
    parser.add_argument("--against", default="", help="comma-separated run folders whose page mean to set it against")
    args = parser.parse_args(argv)
    runs = [Run(Path(r)) for r in args.runs.split(",") if r]
    if len(runs) < 3 or len(runs) % 2 == 0:
        raise ConfigError("give an odd number of runs, three or more, so that a majority exists")
    # pages of a site share its template: DANIEL's differences resample its sites
    site = daniel_site if runs[0].summary.get("dataset") == "daniel" else None
    vote, unlabelled = vote_rows(runs)
    fits = [r.pages for r in runs]
    print(
        f"vote token F1 {vote['token_f1'].mean():.4f} ({unlabelled} pages without labels: the first run's text); "
        "runs " + ", ".join(f"{f['token_f1'].mean():.4f}" for f in fits)
    )
    rows = {"vote − the runs' mean": differences(vote, seed_mean(fits), site)}
    for run, fit in zip(runs, fits, strict=True):
        rows[f"vote − {run.path.parent.name}/{run.path.name}"] = differences(vote, fit, site)
    if args.against:
        store = read_runs(STORE)
        against = seed_mean([stored_pages(r, store) for r in args.against.split(",") if r])
        rows["vote − the against runs' mean"] = differences(vote, against, site)
        rows["the runs' mean − the against runs' mean"] = differences(seed_mean(fits), against, site)
    frame = pd.DataFrame.from_dict(rows, orient="index").fillna("–").rename_axis("").reset_index()
    note = "Token F1 differences, paired: the 95 % bootstrap interval and the approximate-randomization p-value."
    print(Table("seed_vote", "The seed fits' majority vote", frame, note).markdown())
    return 0


if __name__ == "__main__":
    run_main(main)
