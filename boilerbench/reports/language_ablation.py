"""What each multilingual change of the stack brings, per language (``table_language_ablation``,
issue 29, must-show 3): the runs of ``experiment=table_language_ablation``, stack_fast fitted with
each combination of its training data (the multilingual mixture or the English one) and its text
features (``text_rules``: multilingual or Web2Text's English words), and of
``experiment=table_language_ablation_stoplist``, the headline stack with its jusText member's
stoplist picked by the page's language or English on every page, on the test pages of the
multilingual datasets; ``experiment=table_language_ablation_headline`` adds stack_fast's columns of
the six headline datasets, where the English settings are the stack as it was before it learned
other languages (issue 29, must-show 2, allows the multilingual changes to cost a headline dataset
at most 0.005). The first row of each extractor is its shipped setting's token F1 per
dataset and language, each other row the shipped setting minus that one on the same pages, paired
page by page (:mod:`boilerbench.reports.ablation`)."""

from __future__ import annotations

import ast

import pandas as pd

from boilerbench.reports.ablation import ablation_rows, shipped_runs
from boilerbench.reports.languages import language_columns, metric_of
from boilerbench.reports.tables import Table


def training_data(run: pd.Series) -> str:
    """``multilingual`` where the run's training mixture holds a multilingual dataset, else ``English``."""
    trained = str(run.get("trained_on") or "")
    return "multilingual" if any(name in trained for name in ("daniel", "magic_html")) else "English"


def justext_stoplist(run: pd.Series) -> str:
    """The stoplist of the run's jusText member (``param.members``, the members' configs), "" for
    a run without that member."""
    members = run.get("param.members")
    if isinstance(members, str):  # runs.csv holds it as text, a run folder's summary as a mapping
        members = ast.literal_eval(members) if members.startswith("{") else {}
    members = members if isinstance(members, dict) else {}
    justext = members.get("justext")
    return str(justext.get("stoplist", "")) if isinstance(justext, dict) else ""


#: Each setting's column and how a run's row gives it.
SETTINGS = {
    "training data": training_data,
    "text rules": lambda run: str(run.get("param.text_rules", "")),
    "jusText stoplist": lambda run: justext_stoplist(run) or "–",
}


def is_shipped(run: pd.Series) -> bool:
    """The shipped setting: multilingual training data and text rules, and the jusText member's
    stoplist picked by the page's language where the extractor has that member."""
    return (run["training data"], run["text rules"]) == ("multilingual", "multilingual") and run[
        "jusText stoplist"
    ] in ("auto", "–")


def table_language_ablation(runs: pd.DataFrame) -> Table:
    """Per extractor (stack_fast, then the stack), its shipped setting's token F1, then one row per
    other setting of training data, text rules and jusText stoplist: the shipped one minus it."""
    shipped = shipped_runs(runs, SETTINGS, is_shipped, "table_language_ablation")
    rows = ablation_rows(runs, SETTINGS, is_shipped, language_columns(shipped), "language", metric_of)
    note = (
        "stack_fast and the stack as the headline trains them (conf/headline/), tested on the test pages of DANIEL "
        "and magic-html-bench (sites and hosts in no training split), stack_fast also on those of the six headline "
        "datasets (all pages of those without a training split). Training data: multilingual (CleanEval, "
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
