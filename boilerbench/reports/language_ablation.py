"""What each multilingual change of the stack brings, per language (``table_language_ablation``,
issue 29, must-show 3): the runs of ``experiment=table_language_ablation``, stack_fast fitted with
each combination of its training data (the multilingual mixture or the English one) and its text
features (``text_rules``: multilingual or Web2Text's English words), on the test pages of the
multilingual datasets. The first row is the shipped setting's token F1 per dataset and language,
each other row the shipped setting minus that one on the same pages, paired page by page."""

from __future__ import annotations

import pandas as pd

from boilerbench.reports.collect import pages
from boilerbench.reports.datasets import latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.languages import difference_cell, language_columns, language_difference, metric_of
from boilerbench.reports.tables import Table, cell, interval_of

#: The shipped setting: (training data, text rules).
SHIPPED = ("multilingual", "multilingual")


def training_data(run: pd.Series) -> str:
    """``multilingual`` where the run's training mixture holds a multilingual dataset, else ``English``."""
    trained = str(run.get("trained_on") or "")
    return "multilingual" if any(name in trained for name in ("daniel", "magic_html")) else "English"


def table_language_ablation(runs: pd.DataFrame) -> Table:
    """One row per (training data, text rules) setting, the shipped one first."""
    if runs.empty:
        raise MissingRuns("stack_fast's language ablation (experiment=table_language_ablation)")
    runs = runs.assign(
        training=[training_data(r) for _, r in runs.iterrows()],
        rules=runs.get("param.text_rules", pd.Series("", index=runs.index)).astype(str),
    )
    runs = latest_runs(runs, ["training", "rules", "dataset"])
    shipped = runs[(runs["training"] == SHIPPED[0]) & (runs["rules"] == SHIPPED[1])]
    if shipped.empty:
        raise MissingRuns("the shipped setting's runs (multilingual training data and text rules)")
    columns = language_columns(shipped)
    base = {r["dataset"]: r for _, r in shipped.iterrows()}
    rows = [{"training data": SHIPPED[0], "text rules": SHIPPED[1], "figure": "token F1"}]
    for dataset, lang in columns:
        key = f"lang.{lang}.{metric_of(dataset)}"
        rows[0][f"{dataset}:{lang}"] = cell(base[dataset].get(key), 3, interval_of(base[dataset], key))
    settings = sorted({(t, r) for t, r in zip(runs["training"], runs["rules"], strict=True)} - {SHIPPED}, reverse=True)
    for training, rules in settings:
        row = {"training data": training, "text rules": rules, "figure": "shipped − this"}
        mine = runs[(runs["training"] == training) & (runs["rules"] == rules)]
        other = {r["dataset"]: r for _, r in mine.iterrows()}
        for dataset, lang in columns:
            if dataset not in other:
                row[f"{dataset}:{lang}"] = "–"
                continue
            row[f"{dataset}:{lang}"] = difference_cell(
                language_difference(pages(base[dataset]["run_dir"]), pages(other[dataset]["run_dir"]), lang)
            )
        rows.append(row)
    note = (
        "stack_fast as the headline trains it (conf/headline/stack_fast.yaml), tested on the test pages of DANIEL and "
        "magic-html-bench (sites and hosts in no training split). Training data: multilingual (CleanEval, Dragnet, "
        "WCXB, DANIEL and magic-html-bench, balanced by language) or English (the first three). Text rules: "
        "multilingual (jusText's stoplist of the page's language, Han and kana characters as words) or web2text "
        "(Web2Text's English words). First row: token F1 ± half the width of its page-bootstrap 95 % interval; the "
        "others: the shipped setting minus that setting, paired on the same pages, with the page-bootstrap 95 % "
        "interval and the approximate-randomization p-value."
    )
    return Table(
        "table_language_ablation", "What the multilingual changes bring, per language", pd.DataFrame(rows), note
    )
