"""What weighing DANIEL more in the stack's training mixture does (``table_training_weights``,
issue 29, must-shows 2 and 3): the runs of ``experiment=table_training_weights`` (the headline
stack trained with DANIEL named twice in ``train_on``, so that its news pages in five languages
weigh two shares of the mixture) against the headline stack as shipped, one share each (its runs
of ``experiment=table_headline`` on the six headline datasets and of
``experiment=table_languages_stack`` on DANIEL and magic-html-bench), paired page by page on the
same test pages: per dataset, then per language of the multilingual sets
(:func:`boilerbench.reports.languages.language_columns`)."""

from __future__ import annotations

import pandas as pd

from boilerbench.reports.ablation import difference_cell, subset_difference
from boilerbench.reports.collect import pages
from boilerbench.reports.datasets import DATASETS, latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.languages import language_columns
from boilerbench.reports.significance import align, compare_pair
from boilerbench.reports.tables import Table, cell, interval_of

LEARNED = "stack"
#: The report tags of the shipped stack's runs and of the weighted one's.
SHIPPED_REPORTS = ("table_headline", "table_languages")
WEIGHTED_REPORT = "table_training_weights"


def _weighted(trained_on: str) -> bool:
    """Whether a run's mixture gives some dataset more than one share (``daniel*2``)."""
    return "*" in trained_on


def table_training_weights(runs: pd.DataFrame) -> Table:
    """One row per dataset (headline datasets first), then one per language of each dataset with
    two or more (:func:`~boilerbench.reports.languages.language_columns`): pages, the shipped
    stack's token F1, the weighted one's, and weighted minus shipped with its paired
    page-bootstrap 95 % interval and approximate-randomization p-value."""
    stack = runs[runs["extractor"] == LEARNED]
    # the shipped mixture is the one the headline table's stack trained on
    trained = stack["trained_on"].fillna("").astype(str)
    weighted = latest_runs(stack[(stack["report"] == WEIGHTED_REPORT) & trained.map(_weighted)], ["dataset"])
    headline = latest_runs(stack[stack["report"] == SHIPPED_REPORTS[0]], ["dataset"])
    mixtures = set(headline["trained_on"].astype(str))
    shipped = latest_runs(stack[stack["report"].isin(SHIPPED_REPORTS) & trained.isin(mixtures)], ["dataset"])
    base = {r["dataset"]: r for _, r in shipped.iterrows()}
    other = {r["dataset"]: r for _, r in weighted.iterrows()}
    datasets = [d for d in (*DATASETS, *sorted(set(other) - set(DATASETS))) if d in base and d in other]
    if not datasets:
        raise MissingRuns("the weighted and the shipped stack on a common dataset (experiment=table_training_weights)")
    rows = []
    for dataset in datasets:
        a, b = align([pages(other[dataset]["run_dir"]), pages(base[dataset]["run_dir"])], ["weighted", "shipped"])
        (difference,) = compare_pair(a, b, ["token.f1"])
        cell_text = difference_cell(difference)
        rows.append(_row(dataset, "all", len(a), base[dataset], other[dataset], "token.f1", cell_text))
    columns = language_columns(weighted[weighted["dataset"].isin(datasets)])
    multilingual = {d for d in datasets if sum(c[0] == d for c in columns) > 1}
    for dataset, language in columns:
        if dataset not in multilingual:
            continue
        key = f"lang.{language}.token.f1"
        difference = subset_difference(
            pages(other[dataset]["run_dir"]), pages(base[dataset]["run_dir"]), "language", language
        )
        pages_in = int(other[dataset][f"lang.{language}.n_pages"])
        rows.append(_row(dataset, language, pages_in, base[dataset], other[dataset], key, difference_cell(difference)))
    mixture = str(other[datasets[0]]["trained_on"])
    note = (
        f"The headline stack (conf/headline/stack.yaml) as shipped, each dataset of its mixture one share, against the "
        f"same stack trained on {mixture} (DANIEL named twice in train_on: its pages weigh two shares), on each "
        "dataset's test pages (all pages of those without a training split); then per language with 20 pages or more "
        "of the multilingual sets. Token F1 ± half the width of its page-bootstrap 95 % interval; the difference is "
        "weighted minus shipped, paired on the same pages, with its bootstrap 95 % interval and approximate-"
        "randomization p-value. Issue 29 allows the headline datasets to lose at most 0.005; the cross-validated "
        "figures on DANIEL's sites are in table_languages_cv."
    )
    return Table("table_training_weights", "DANIEL weighing twice in the stack's mixture", pd.DataFrame(rows), note)


def _row(
    dataset: str, language: str, n_pages: int, shipped: pd.Series, weighted: pd.Series, key: str, difference: str
) -> dict:
    return {
        "dataset": dataset,
        "language": language,
        "pages": str(n_pages),
        "shipped": cell(shipped.get(key, float("nan")), 3, interval_of(shipped, key)),
        "DANIEL ×2": cell(weighted.get(key, float("nan")), 3, interval_of(weighted, key)),
        "DANIEL ×2 − shipped": difference,
    }
