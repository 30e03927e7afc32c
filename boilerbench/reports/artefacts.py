"""What ``boilerbench report`` builds: each table and figure, the runs it reads (those whose
``report`` tag, set by the experiment config, names one of its experiments) and the command
that regenerates those runs. The experiment configs pin datasets and protocols; the builders
only choose among the tagged runs.

The experiment list lives in ``conf/experiment`` alone: :func:`experiments_to_run` (what ``make
reports`` runs: ``boilerbench report --list-experiments``) is every experiment config whose
``report`` tag some artefact needs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

import pandas as pd
import yaml

from boilerbench.reports import datasets, figures, headline, languages, page_types, strata
from boilerbench.reports.budget import table_budget
from boilerbench.reports.cleaneval2007 import cleaneval2007_table
from boilerbench.reports.conventions import table_comments
from boilerbench.reports.language_ablation import table_language_ablation, table_multilingual_cost
from boilerbench.reports.page_type_ablation import table_page_type_ablation
from boilerbench.reports.tables import Table, results_table
from boilerbench.reports.training_weights import table_training_weights


@dataclass(frozen=True)
class Artefact:
    """A table or a figure: its name, the experiments (``report`` tags) whose runs it reads (none
    named: every run), and its builder; ``optional``: those of ``experiments`` whose runs it uses
    when they exist but does not need (the table runs it also reads draw it), which ``make
    reports`` leaves out; ``extractors``: the only extractors whose runs of those experiments it
    reads (none named: every one), so that whether its runs are all readable here
    (:func:`boilerbench.reports.update.readable_artefacts`) asks of those runs alone."""

    name: str
    kind: str
    experiments: tuple[str, ...]
    build: Callable[..., Table | figures.plt.Figure]
    optional: tuple[str, ...] = ()
    #: whether ``build`` also takes the sweeps the runs ran in (``sweeps.csv``)
    reads_sweeps: bool = False
    extractors: tuple[str, ...] = ()
    #: the runs as the builder names them (a learned extractor's refit with another seed, or trained
    #: on other data, a row of its own: :func:`~boilerbench.reports.languages.cv_labelled`), so that
    #: the provenance of each row is read from the runs that made it; None: as recorded
    labels: Callable[[pd.DataFrame], pd.DataFrame] | None = None

    @property
    def needs(self) -> tuple[str, ...]:
        """The report tags whose runs it cannot do without."""
        return tuple(e for e in self.experiments if e not in self.optional)

    @property
    def command(self) -> str:
        """The command that makes its runs and rebuilds it."""
        if not self.experiments:
            return "make reports"
        return f"boilerbench run experiment={self.experiments[0]} && boilerbench report"

    def runs(self, runs: pd.DataFrame) -> pd.DataFrame:
        """The runs it reads."""
        mine = runs[runs["report"].isin(self.experiments)] if self.experiments else runs
        return mine[mine["extractor"].isin(self.extractors)] if self.extractors else mine


def _table_cleaneval(runs: pd.DataFrame) -> Table:
    runs = runs[runs["protocol"] == "in_domain"]
    if runs.empty:
        raise figures.MissingRuns("extractor runs on cleaneval (cleaneval and web2text splits)")
    return results_table(
        "table_cleaneval",
        "CleanEval: every extractor on both splits",
        runs,
        {"extractor": "extractor", "split": "split"},
        with_published=True,
    )


def _table_l3s(runs: pd.DataFrame) -> Table:
    if runs.empty:
        raise figures.MissingRuns("extractor runs on l3s_gn1 (5-fold CV for learned ones)")
    return results_table(
        "table_l3s",
        "L3S-GN1: every extractor (learned ones by 5-fold cross-validation)",
        runs,
        {"extractor": "extractor", "protocol": "protocol"},
        with_published=True,
    )


def _table_cross(runs: pd.DataFrame) -> Table:
    runs = runs[runs["protocol"] == "cross_dataset"]
    if runs.empty:
        raise figures.MissingRuns("learned extractors trained on one dataset and tested on the other")
    return results_table(
        "table_cross",
        "Cross-dataset: trained on one dataset, tested on the other",
        runs,
        {"extractor": "extractor", "trained on": "trained_on", "tested on": "dataset"},
        with_published=False,
    )


def _default_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """One run per extractor and dataset on the dataset's default split (CleanEval's
    ``cleaneval``), the latest where a figure's own runs and the table runs overlap."""
    trained_elsewhere = runs["protocol"].isin(("cross_dataset", "mixture"))
    keep = ~((runs["dataset"] == "cleaneval") & (runs["split"] != "cleaneval")) & ~trained_elsewhere
    latest = runs[keep].sort_values("finished_at")
    return latest.drop_duplicates(subset=["extractor", "dataset"], keep="last")


def _speed_quality_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The speed-quality figure's points: its own runs (experiments fig_speed_quality and
    fig_speed_quality_extractors), the latest per extractor and dataset. Only those: every point is
    timed alike, end to end from raw HTML with the artefact cache off (the stack's configurations
    trained on the headline mixture); a table run reads its members' votes and features from the
    artefact cache, so its milliseconds would place the extractor left of where it runs."""
    own = runs[runs["report"] == "fig_speed_quality"].sort_values("finished_at")
    return own.drop_duplicates(subset=["extractor", "dataset"], keep="last").reset_index(drop=True)


TABLE_RUNS = ("table_cleaneval", "table_l3s")
#: table_arbiter's learned extractor and what it is set against: its base, the headline stack and
#: the two references.
ARBITER = "arbiter"
ARBITER_REFERENCES = ("stack_fast", "stack", "trafilatura", "readability")

ARTEFACTS = (
    Artefact("table_cleaneval", "table", ("table_cleaneval",), _table_cleaneval),
    Artefact("table_l3s", "table", ("table_l3s",), _table_l3s),
    Artefact("table_cross", "table", ("table_cross",), _table_cross),
    # its runs: experiments table_cleaneval2007, table_cleaneval2007_wcc and table_cleaneval2007_fiasco
    # (all three tag their runs with report table_cleaneval2007)
    Artefact("table_cleaneval2007", "table", ("table_cleaneval2007",), cleaneval2007_table),
    Artefact("fig_scedd_coefficients", "figure", ("fig_scedd_coefficients",), figures.scedd_coefficients),
    Artefact(
        "fig_short_pages",
        "figure",
        ("fig_short_pages", *TABLE_RUNS),
        lambda r: figures.short_pages(_default_runs(r)),
        optional=("fig_short_pages",),
    ),
    Artefact(
        "fig_speed_quality", "figure", ("fig_speed_quality",), lambda r: figures.speed_quality(_speed_quality_runs(r))
    ),
    Artefact("fig_web2text_lambda", "figure", ("fig_web2text_lambda",), figures.web2text_lambda),
    Artefact("table_datasets", "table", ("table_datasets",), datasets.table_datasets),
    Artefact("table_datasets_token_f1", "table", ("table_datasets",), datasets.table_datasets_token_f1),
    Artefact("table_generalization", "table", ("table_generalization",), datasets.table_generalization),
    Artefact("fig_generalization", "figure", ("table_generalization",), datasets.fig_generalization),
    Artefact("fig_page_types", "figure", ("table_datasets",), datasets.fig_page_types),
    Artefact("table_headline", "table", ("table_headline",), headline.table_headline),
    Artefact(
        "table_arbiter",
        "table",
        ("fig_speed_quality",),
        lambda r: headline.table_headline(
            _speed_quality_runs(r), ARBITER, ARBITER_REFERENCES, "table_arbiter", "fig_speed_quality"
        ),
        extractors=(ARBITER, *ARBITER_REFERENCES),
    ),
    Artefact(
        "table_page_types",
        "table",
        ("table_headline", "table_languages"),
        page_types.table_page_types,
        optional=("table_languages",),
    ),
    Artefact("table_languages", "table", ("table_languages",), languages.table_languages, labels=languages.cv_labelled),
    Artefact("table_chinese", "table", ("table_languages",), languages.table_chinese),
    Artefact(
        "table_languages_cv",
        "table",
        ("table_languages_cv",),
        languages.table_languages_cv,
        labels=languages.cv_labelled,
    ),
    Artefact(
        "table_languages_cv_sites",
        "table",
        ("table_languages_cv",),
        languages.table_languages_cv_sites,
        labels=languages.cv_labelled,
    ),
    Artefact("table_language_ablation", "table", ("table_language_ablation",), table_language_ablation),
    Artefact(
        "table_multilingual_cost",
        "table",
        ("table_language_ablation", "fig_speed_quality", "table_multilingual_cost"),
        table_multilingual_cost,
        extractors=("stack", "arbiter", "arbiter_stack"),
    ),
    Artefact("table_page_type_ablation", "table", ("table_page_type_ablation",), table_page_type_ablation),
    Artefact("table_training_weights", "table", ("table_training_weights",), table_training_weights),
    Artefact("table_comments", "table", ("table_comments",), table_comments),
    Artefact(
        "fig_score_distributions",
        "figure",
        ("fig_score_distributions", *TABLE_RUNS),
        lambda r: figures.score_distributions(_default_runs(r)),
        optional=("fig_score_distributions",),
    ),
    Artefact(
        "fig_critical_difference",
        "figure",
        TABLE_RUNS,
        lambda r: figures.critical_difference(_default_runs(r)),
    ),
    Artefact("table_strata", "table", TABLE_RUNS, lambda r: strata.table_strata(_default_runs(r))),
    Artefact("fig_strata", "figure", TABLE_RUNS, lambda r: strata.fig_strata(_default_runs(r))),
    Artefact("table_budget", "table", (), table_budget, reads_sweeps=True),
)


def experiment_tags() -> dict[str, str]:
    """Each experiment config (``conf/experiment/<name>.yaml``, as the package ships it) and the
    ``report`` tag it gives its runs."""
    folder = resources.files("boilerbench.conf") / "experiment"
    configs = sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)
    return {f.name.removesuffix(".yaml"): str(yaml.safe_load(f.read_text(encoding="utf-8"))["report"]) for f in configs}


def experiments_to_run() -> list[str]:
    """The experiment configs whose runs some artefact needs (what ``make reports`` runs), by name."""
    needed = {tag for artefact in ARTEFACTS for tag in artefact.needs}
    return [name for name, tag in experiment_tags().items() if tag in needed]
