"""What each multilingual change of the stack brings, per language (``table_language_ablation``,
issue 29, must-show 3): the runs of ``experiment=table_language_ablation``, stack_fast fitted with
each combination of its training data (the multilingual mixture or the English one) and its text
features (``text_rules``: multilingual or Web2Text's English words), and of
``experiment=table_language_ablation_stoplist``, the headline stack with its jusText member's
stoplist picked by the page's language or English on every page, on the test pages of the
multilingual datasets; ``experiment=table_language_ablation_headline`` adds stack_fast's columns of
the six headline datasets, where the English settings are the stack as it was before it learned
other languages (issue 29, must-show 2, allows the multilingual changes to cost a headline dataset
at most 0.005), and ``experiment=table_language_ablation_headline_stack`` the headline stack's, as
shipped and as it was before (``conf/headline/stack_english.yaml``). The first row of each
extractor is its shipped setting's token F1 per dataset and language, each other row the shipped
setting minus that one on the same pages, paired page by page (:mod:`boilerbench.reports.ablation`).

``table_multilingual_cost`` asks must-show 2's last question of the models themselves: on each
headline dataset, the English headline stack against the headline stack as shipped, the shipped
multilingual model (the arbiter over the fast stack, its runs of ``experiment=fig_speed_quality``)
and the arbiter over the full stack (``experiment=table_multilingual_cost``). A refit with another seed
moves a dataset's token F1 by as much as the 0.005 allowance (``table_training_weights``), so where
the two arbiters and the English stack were also fitted with other seeds
(``experiment=table_multilingual_cost_seeds``, ``..._seeds_arbiter_stack``, ``..._seeds_english``),
the table adds each arbiter's difference for each seed and on the page scores averaged over the
seeds, paired."""

from __future__ import annotations

import ast

import pandas as pd

from boilerbench.evaluation.aggregates import point_value
from boilerbench.reports.ablation import ablation_rows, difference_cell, read_settings, runs_where, shipped_runs
from boilerbench.reports.collect import run_pages, run_seeds
from boilerbench.reports.datasets import DATASETS, latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.headline import paired_cell
from boilerbench.reports.languages import language_columns, metric_of, text_column
from boilerbench.reports.significance import compare_pair, figure_key, seed_mean
from boilerbench.reports.tables import Table, fmt


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


#: table_multilingual_cost's first column: the English headline stack, which the multilingual models
#: are set against.
ENGLISH_STACK = "stack (English)"


def is_english_stack(run: pd.Series) -> bool:
    """The headline stack as it was before it learned other languages (``conf/headline/stack_english.yaml``):
    the English mixture, Web2Text's English words and its jusText member's English stoplist."""
    settings = (training_data(run), str(run.get("param.text_rules", "")), justext_stoplist(run))
    return run["extractor"] == "stack" and settings == ("English", "web2text", "English")


#: The models whose refits with other seeds table_multilingual_cost sets against the English stack's.
SEEDED = ("arbiter", "arbiter_stack")
#: The arbiter over the full stack trained with the derived teaser-rail pages (dataset teaser_rails).
RAILS = "arbiter_stack, teaser rails"


def with_teaser_rails(runs: pd.DataFrame) -> pd.Series:
    """Whether each run's training mixture holds the derived teaser-rail pages (``trained_on``)."""
    return text_column(runs, "trained_on").str.contains("teaser_rails")


def first_seed(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs fitted with seed 0 (the default), not the refits of :func:`other_seeds`."""
    return runs[run_seeds(runs) == 0]


def other_seeds(runs: pd.DataFrame) -> dict[str, dict[tuple[int, str], pd.Series]]:
    """The runs of the two arbiters and of the English stack fitted with a seed other than 0
    (``experiment=table_multilingual_cost_seeds``, ``..._seeds_arbiter_stack``, ``..._seeds_english``),
    by (seed, dataset)."""
    refits = runs[(runs["report"] == "table_multilingual_cost") & (run_seeds(runs) != 0) & ~with_teaser_rails(runs)]
    if refits.empty:
        return {}
    stacks = read_settings(refits[refits["extractor"] == "stack"], SETTINGS)
    found = {ENGLISH_STACK: runs_where(stacks, is_english_stack)}
    found.update({model: refits[refits["extractor"] == model] for model in SEEDED})
    return {
        name: {
            (int(r["param.seed"]), r["dataset"]): r
            for _, r in latest_runs(model_runs, ["param.seed", "dataset"]).iterrows()
        }
        for name, model_runs in found.items()
    }


def seed_columns(
    dataset: str, model: str, first: dict[str, pd.Series], refits: dict[str, dict[tuple[int, str], pd.Series]]
) -> dict[str, str]:
    """``model`` minus the English stack on ``dataset`` for each other seed both were fitted
    with, and on the page scores averaged over seed 0 (``first``) and those seeds, paired; none
    where the two share no other seed there."""
    common = [{k for k, d in refits.get(name, {}) if d == dataset} for name in (model, ENGLISH_STACK)]
    seeds = sorted(common[0] & common[1])
    if not seeds:
        return {}
    pages = {
        name: [run_pages(first[name]), *(run_pages(refits[name][(k, dataset)]) for k in seeds)]
        for name in (model, ENGLISH_STACK)
    }
    figure = figure_key("token.f1")
    columns = {
        f"{model} − {ENGLISH_STACK}, seed {k}": f"{point_value(figure, a) - point_value(figure, b):+.3f}"
        for k, a, b in zip(seeds, pages[model][1:], pages[ENGLISH_STACK][1:], strict=True)
    }
    (difference,) = compare_pair(seed_mean(pages[model]), seed_mean(pages[ENGLISH_STACK]), ["token.f1"])
    columns[f"{model} − {ENGLISH_STACK}, seeds {', '.join(map(str, [0, *seeds]))} averaged"] = difference_cell(
        difference
    )
    return columns


def table_multilingual_cost(runs: pd.DataFrame) -> Table:
    """Per headline dataset, the English headline stack's token F1, then each multilingual model's
    (the shipped headline stack, the arbiter of ``fig_speed_quality``, the arbiter over the full
    stack of ``experiment=table_multilingual_cost``) and its difference to the English stack, paired;
    then each arbiter's difference for its refits with other seeds (:func:`seed_columns`)."""
    stacks = read_settings(
        runs[(runs["extractor"] == "stack") & (runs["report"] == "table_language_ablation")], SETTINGS
    )
    arbiter_stack = first_seed(
        runs[(runs["report"] == "table_multilingual_cost") & (runs["extractor"] == "arbiter_stack")]
    )
    rails = with_teaser_rails(arbiter_stack)
    chosen = {
        ENGLISH_STACK: runs_where(stacks, is_english_stack),
        "stack": runs_where(stacks, is_shipped),
        "arbiter": runs[(runs["report"] == "fig_speed_quality") & (runs["extractor"] == "arbiter")],
        "arbiter_stack": arbiter_stack[~rails],
        RAILS: arbiter_stack[rails],
    }
    by = {
        name: {r["dataset"]: r for _, r in latest_runs(found, ["dataset"]).iterrows()} for name, found in chosen.items()
    }
    # the shipped headline stack, the shipped multilingual model and the arbiter over the full
    # stack, in that order, each shown where it has runs
    models = [m for m in chosen if m != ENGLISH_STACK and by[m]]
    datasets = [d for d in DATASETS if d in by[ENGLISH_STACK] and any(d in by[m] for m in models)]
    if not datasets:
        raise MissingRuns(
            "the English headline stack and a multilingual model on a headline dataset "
            "(experiments table_language_ablation_headline_stack, fig_speed_quality, table_multilingual_cost)"
        )
    refits = other_seeds(runs)
    rows = []
    for dataset in datasets:
        english = by[ENGLISH_STACK][dataset]
        row = {"dataset": dataset, "pages": str(int(english["n_pages"])), ENGLISH_STACK: fmt(english.get("token.f1"))}
        row.update({m: fmt(by[m][dataset].get("token.f1")) if dataset in by[m] else "–" for m in models})
        for m in models:
            found = by[m].get(dataset)
            row[f"{m} − {ENGLISH_STACK}"] = "–" if found is None else paired_cell(found, english, "token.f1")
        if dataset in by[RAILS] and dataset in by["arbiter_stack"]:
            row[f"{RAILS} − arbiter_stack"] = paired_cell(by[RAILS][dataset], by["arbiter_stack"][dataset], "token.f1")
        for m in SEEDED:
            if dataset in by[m]:
                row.update(seed_columns(dataset, m, {m: by[m][dataset], ENGLISH_STACK: english}, refits))
        rows.append(row)
    note = (
        "Token F1 on each headline dataset's test pages (all its pages where it has no training split). stack "
        "(English): the headline stack as it was before it learned other languages (conf/headline/stack_english.yaml: "
        "trained on CleanEval, Dragnet and WCXB, Web2Text's English words, jusText's English stoplist); stack: the "
        "headline stack as shipped (the multilingual mixture, multilingual text rules, jusText's stoplist of the "
        "page's language); arbiter: the model the package ships (--model multilingual: the arbiter over the fast "
        "stack), its runs of fig_speed_quality; arbiter_stack: the arbiter over the headline stack "
        "(conf/headline/arbiter_stack.yaml); arbiter_stack, teaser rails: the same trained on the mixture with the "
        "derived teaser-rail pages (dataset teaser_rails; experiment=table_multilingual_cost_teaser_rails). "
        "Differences paired page by page, with the page-bootstrap 95 % interval "
        "and the approximate-randomization p-value. Issue 29 allows the multilingual changes to cost a headline "
        "dataset at most 0.005. A refit with another seed moves a dataset by as much (table_training_weights): "
        "where an arbiter and the English stack were also fitted with other seeds (the mixture's draw and the "
        "trees'; experiments table_multilingual_cost_seeds, table_multilingual_cost_seeds_arbiter_stack and "
        "table_multilingual_cost_seeds_english), each seed's "
        "difference, then the difference of their page scores averaged over the seeds, paired (– where a dataset "
        "lacks a refit)."
    )
    title = "What the multilingual models cost the headline datasets"
    return Table("table_multilingual_cost", title, pd.DataFrame(rows).fillna("–"), note)
