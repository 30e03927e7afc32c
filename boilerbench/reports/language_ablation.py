"""What each multilingual change of the stack brings, per language (``table_language_ablation``,
issue 29, must-show 3): the runs of ``experiment=table_language_ablation``, stack_fast fitted with
each combination of its training data (the multilingual mixture or the English one) and its text
features (``text_rules``: multilingual or Web2Text's English words), and of
``experiment=table_language_ablation_stoplist``, the headline stack with its jusText member's
stoplist picked by the page's language or English on every page, on the test pages of the
multilingual datasets. The first row of each extractor is its shipped setting's token F1 per dataset and language,
each other row the shipped setting minus that one on the same pages, paired page by page."""

from __future__ import annotations

import ast

import pandas as pd

from boilerbench.reports.collect import pages
from boilerbench.reports.datasets import latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.languages import difference_cell, language_columns, language_difference, metric_of
from boilerbench.reports.tables import Table, cell, interval_of

#: The settings' columns, their names in the table and their shipped values (the stoplist's is
#: jusText's member of the headline stack: "" for an extractor without that member).
SETTINGS = {"training": "training data", "rules": "text rules", "stoplist": "jusText stoplist"}
SHIPPED = {"training": "multilingual", "rules": "multilingual", "stoplist": ("auto", "")}


def training_data(run: pd.Series) -> str:
    """``multilingual`` where the run's training mixture holds a multilingual dataset, else ``English``."""
    trained = str(run.get("trained_on") or "")
    return "multilingual" if any(name in trained for name in ("daniel", "magic_html")) else "English"


def justext_stoplist(run: pd.Series) -> str:
    """The stoplist of the run's jusText member (``param.members``, the members' configs as a
    Python literal), "" for a run without that member."""
    text = run.get("param.members")
    members = ast.literal_eval(text) if isinstance(text, str) and text.startswith("{") else {}
    justext = members.get("justext")
    return str(justext.get("stoplist", "")) if isinstance(justext, dict) else ""


def _is_shipped(run: pd.Series) -> bool:
    return all(run[k] in (v if isinstance(v, tuple) else (v,)) for k, v in SHIPPED.items())


def _setting(run: pd.Series) -> dict:
    return {name: run[key] or "–" for key, name in SETTINGS.items()}


def table_language_ablation(runs: pd.DataFrame) -> Table:
    """Per extractor (stack_fast, then the stack), its shipped setting's token F1, then one row per
    other setting of training data, text rules and jusText stoplist: the shipped one minus it."""
    if runs.empty:
        raise MissingRuns("the stacks' language ablation (experiment=table_language_ablation)")
    runs = runs.assign(
        training=[training_data(r) for _, r in runs.iterrows()],
        rules=runs.get("param.text_rules", pd.Series("", index=runs.index)).astype(str),
        stoplist=[justext_stoplist(r) for _, r in runs.iterrows()],
    )
    runs = latest_runs(runs, ["extractor", *SETTINGS, "dataset"])
    runs = runs.assign(shipped=[_is_shipped(r) for _, r in runs.iterrows()])
    if not runs["shipped"].any():
        raise MissingRuns("the shipped setting's runs (multilingual training data and text rules)")
    columns = language_columns(runs[runs["shipped"]])
    rows = []
    for extractor in sorted(set(runs["extractor"]), key=lambda e: (e != "stack_fast", e)):
        mine = runs[runs["extractor"] == extractor]
        shipped = mine[mine["shipped"]]
        if shipped.empty:
            continue
        base = {r["dataset"]: r for _, r in shipped.iterrows()}
        first = {"extractor": extractor, **_setting(shipped.iloc[0]), "figure": "token F1"}
        for dataset, lang in columns:
            key = f"lang.{lang}.{metric_of(dataset)}"
            run = base.get(dataset, pd.Series(dtype=object))
            first[f"{dataset}:{lang}"] = cell(run.get(key, float("nan")), 3, interval_of(run, key))
        rows.append(first)
        others = mine[~mine["shipped"]]
        settings = sorted({tuple(r[k] for k in SETTINGS) for _, r in others.iterrows()}, reverse=True)
        for setting in settings:
            chosen = others[[tuple(r[k] for k in SETTINGS) == setting for _, r in others.iterrows()]]
            row = {"extractor": extractor, **_setting(chosen.iloc[0]), "figure": "shipped − this"}
            other = {r["dataset"]: r for _, r in chosen.iterrows()}
            for dataset, lang in columns:
                if dataset not in other or dataset not in base:
                    row[f"{dataset}:{lang}"] = "–"
                    continue
                row[f"{dataset}:{lang}"] = difference_cell(
                    language_difference(pages(base[dataset]["run_dir"]), pages(other[dataset]["run_dir"]), lang)
                )
            rows.append(row)
    note = (
        "stack_fast and the stack as the headline trains them (conf/headline/), tested on the test pages of DANIEL "
        "and magic-html-bench (sites and hosts in no training split). Training data: multilingual (CleanEval, "
        "Dragnet, WCXB, DANIEL and magic-html-bench, balanced by language) or English (the first three). Text rules: "
        "multilingual (jusText's stoplist of the page's language, Han and kana characters as words) or web2text "
        "(Web2Text's English words). jusText stoplist: the stack's jusText member's, the page's language's (auto) "
        "or English on every page (– without that member). First row of each extractor: token F1 ± half the width "
        "of its page-bootstrap 95 % interval; the others: the shipped setting minus that setting, paired on the "
        "same pages, with the page-bootstrap 95 % interval and the approximate-randomization p-value."
    )
    return Table(
        "table_language_ablation", "What the multilingual changes bring, per language", pd.DataFrame(rows), note
    )
