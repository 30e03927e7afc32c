"""Directives in the documentation's markdown, replaced by what the results store holds.

A directive is an HTML comment, invisible where it is not expanded (GitHub's rendering of
``docs/``):

- ``<!-- store: FILE -->`` ... ``<!-- /store -->``: the store file's text, verbatim, between the
  two markers (a table as ``python -m boilerbench.reports`` wrote it); the README's headline table
  is one.
- ``<!-- figures: EXTRACTOR -->``: the literature's figures for an extractor beside ours on the
  same dataset and metric, then the extractor's runs on every dataset.
- ``<!-- settings: PATH -->``: a config file, ``boilerbench/conf/PATH.yaml`` (``extractor/bte``).
- ``<!-- tables-list -->``: every table of the store (``table_*.md``), each as a store block.
- ``<!-- figures-list -->``: every figure (PNG) in the store, as images.
- ``<!-- leaderboard -->``: the leaderboard's table, filled in the browser from ``leaderboard.js``,
  and the store's speed-quality figure.

Each number a directive writes carries its store address (:func:`.store.figure`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from boilerbench.configs import extractor_config
from boilerbench.reports.published import PUBLISHED, SOURCES
from boilerbench.reports.site.store import PUBLISHED_SOURCE, Store, figure, is_missing, run_figure

#: Where the extractor configs are (``conf/extractor/NAME.yaml``).
CONF = Path(__file__).resolve().parents[2] / "conf"
#: The reports whose runs give an extractor's own figures (its default settings on each dataset's
#: test pages), in order of preference.
OWN_REPORTS = ("table_datasets", "table_languages", "table_headline")
#: The tables that follow the papers' own protocols (CleanEval's two splits, L3S-GN1's
#: cross-validation, ROUGE-LSum computed): a published figure sits beside their runs first.
PAPER_REPORTS = ("table_cleaneval", "table_l3s")

VERBATIM = re.compile(r"<!-- store: (?P<file>[\w.-]+) -->\n(?P<body>.*?)<!-- /store -->", re.S)
DIRECTIVE = re.compile(
    r"<!-- (?P<name>figures-list|tables-list|figures|settings|leaderboard|unlisted-extractors)"
    r"(?:: (?P<arg>[\w/-]+))? -->"
)


def fill_verbatim(text: str, store: Store) -> str:
    """Every ``<!-- store: FILE -->`` block's body replaced by the store file's current text."""

    def block(match: re.Match[str]) -> str:
        return f"<!-- store: {match['file']} -->\n{ends_line(store.text(match['file']))}<!-- /store -->"

    return VERBATIM.sub(block, text)


def ends_line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def expand(text: str, store: Store) -> str:
    """A page's markdown with every directive replaced by what the store holds."""
    text = fill_verbatim(text, store)

    def one(match: re.Match[str]) -> str:
        name, arg = match["name"], match["arg"]
        if name == "figures":
            return published_beside_ours(arg, store) + "\n\n" + own_runs(arg, store)
        if name == "settings":
            return settings(arg)
        if name == "figures-list":
            return figures_list(store)
        if name == "tables-list":
            return tables_list(store)
        if name == "unlisted-extractors":
            return unlisted_extractors(text)
        return LEADERBOARD_HTML + "\n\n" + speed_quality(store)

    return DIRECTIVE.sub(one, text)


def target(name: str) -> str:
    """The ``_target_`` class of extractor config ``name``."""
    return str(extractor_config(name)["_target_"])


def generated_extractor_page(name: str) -> str:
    """The page of an extractor that has no hand-written one (``docs/extractors/NAME.md``): its
    command, its settings, its module's and class's docstrings and its figures, so that a new
    extractor needs only its module and its YAML."""
    cls = target(name)
    docstrings = "\n\n".join(
        f"::: {path}\n    options:\n      members: false\n      show_root_heading: false"
        for path in (cls.rsplit(".", 1)[0], cls)
    )
    return (
        f"# `{name}` (`extractor={name}`)\n\n    python run.py extractor={name} dataset=cleaneval\n\n"
        f"## Settings\n\n<!-- settings: extractor/{name} -->\n\n"
        f"## The method, from the code's docstrings\n\n{docstrings}\n\n"
        f"## Published figures beside ours\n\n<!-- figures: {name} -->\n"
    )


def unlisted_names(pages: Path) -> list[str]:
    """The extractor configs that have no page in folder ``pages``: theirs is generated."""
    return sorted(p.stem for p in (CONF / "extractor").glob("*.yaml") if not (pages / f"{p.stem}.md").is_file())


def unlisted_extractors(index: str) -> str:
    """Links to the pages of the extractor configs that the page ``index`` does not link to
    (``NAME.md``), with each one's class: a new extractor is listed without editing the index."""
    names = [p.stem for p in sorted((CONF / "extractor").glob("*.yaml")) if f"({p.stem}.md)" not in index]
    if not names:
        return "None: every extractor is in a table above."
    return "\n".join(f"- [`{name}`]({name}.md): `{target(name)}`" for name in names)


def settings(name: str) -> str:
    """A config file (``boilerbench/conf/NAME.yaml``) as a YAML block."""
    path = CONF / f"{name}.yaml"
    return f"```yaml\n# boilerbench/conf/{name}.yaml\n{ends_line(path.read_text())}```"


def own_rows(extractor: str, store: Store) -> pd.DataFrame:
    """The extractor's runs that the tables show with its default settings: per dataset, the run
    of the first report of :data:`OWN_REPORTS` that has one (the latest such run); their key
    columns, indexed by their row in ``runs.csv``."""
    runs = store.runs[["report", "extractor", "dataset", "protocol", "trained_on", "n_pages", "finished_at"]]
    mine = runs[(runs["extractor"] == extractor) & runs["report"].isin(OWN_REPORTS)]
    mine = mine.sort_values("finished_at", ascending=False, kind="stable")
    mine = mine.iloc[mine["report"].map(OWN_REPORTS.index).argsort(kind="stable")]
    return mine.drop_duplicates("dataset")


def beside_published(extractor: str, dataset: str, store: Store) -> list[tuple[str, int | None]]:
    """Our runs to set beside a published figure on ``dataset``, each with its label: the latest
    run of each split in the tables that follow the papers' protocols (:data:`PAPER_REPORTS`),
    else the run :func:`own_rows` shows, else none (``None``)."""
    runs = store.runs
    paper = runs[(runs["extractor"] == extractor) & (runs["dataset"] == dataset) & runs["report"].isin(PAPER_REPORTS)]
    if not paper.empty:
        latest = paper.sort_values("finished_at", kind="stable").drop_duplicates("split", keep="last")
        ordered = latest.sort_values("split", kind="stable")
        return [
            (f"{dataset} ({split} split)", int(row)) for row, split in zip(ordered.index, ordered["split"], strict=True)
        ]
    ours = own_rows(extractor, store)
    ours = ours[ours["dataset"] == dataset]
    return [(dataset, None if ours.empty else int(ours.index[0]))]


def published_beside_ours(extractor: str, store: Store) -> str:
    """A table of each published figure for the extractor beside ours (same dataset and metric,
    our runs of :func:`beside_published`), or a line saying there is none."""
    lines = []
    for (name, dataset), metrics in PUBLISHED.items():
        if name != extractor:
            continue
        for label, row in beside_published(extractor, dataset, store):
            for metric, value in metrics.items():
                pub = figure(PUBLISHED_SOURCE, f"{name}/{dataset}", metric, f"{value:g}")
                mine = "–" if row is None else run_figure(store, row, metric)
                lines.append(f"| {label} | `{metric}` | {pub} | {'not in the store' if mine == '–' else mine} |")
    if not lines:
        return "No published figure of this system is held against ours (`boilerbench/reports/published.py`)."
    head = "| dataset | metric | published | ours [95 % interval] |\n|---|---|---|---|"
    return f"{head}\n" + "\n".join(lines) + f"\n\n{SOURCES}"


def own_runs(extractor: str, store: Store) -> str:
    """The extractor's runs on every dataset (:func:`own_rows`): token, word and block F1 with
    their intervals and milliseconds per page."""
    rows = own_rows(extractor, store)
    if rows.empty:
        return "The results store holds no run of this extractor."
    head = (
        "| dataset | protocol | trained on | pages | token F1 | word F1 | block F1 | ms/page |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    lines = []
    for i, run in rows.sort_values("dataset").iterrows():
        pages = "" if is_missing(run["n_pages"]) else str(int(float(run["n_pages"])))
        cells = [run_figure(store, int(i), c) for c in ("token.f1", "word.f1", "block.f1", "ms_per_page")]  # type: ignore[call-overload]
        first = [run["dataset"], run["protocol"], run["trained_on"] or "–", pages]
        lines.append("| " + " | ".join([*first, *cells]) + " |")
    return "Ours, from the results store's runs (`reports/results/runs.csv`):\n\n" + head + "\n" + "\n".join(lines)


def tables_list(store: Store) -> str:
    """Every markdown table of the store, headline first, each verbatim between store markers
    (which the figure check compares with the file)."""
    names = sorted((p.name for p in store.root.glob("table_*.md")), key=lambda n: (n != "table_headline.md", n))
    blocks = [f"<!-- store: {n} -->\n{ends_line(store.text(n))}<!-- /store -->" for n in names]
    return "\n\n".join(blocks) or "The store holds no table."


def figures_list(store: Store) -> str:
    """Every PNG figure in the store as an image (copied into the site under ``results/``)."""
    names = sorted(p.name for p in store.root.glob("fig_*.png"))
    shown = [f"### {Path(n).stem}\n\n![{Path(n).stem}](results/{n})" for n in names]
    return "\n\n".join(shown) or "The store holds no figure."


def speed_quality(store: Store) -> str:
    """The store's speed-quality figure (``fig_speed_quality.png``), or a line saying it has none."""
    if (store.root / "fig_speed_quality.png").is_file():
        return "## Speed and quality\n\n![fig_speed_quality](results/fig_speed_quality.png)"
    return (
        "The results store holds no speed-quality figure (`fig_speed_quality`) yet: "
        "`make reports` draws it from the table runs."
    )


#: The leaderboard's container; ``assets/leaderboard.js`` fills it from ``leaderboard-data.js``.
LEADERBOARD_HTML = """<div id="leaderboard" markdown="0">
<p id="lb-controls"></p>
<table id="lb-table"><thead></thead><tbody></tbody></table>
<p id="lb-note"></p>
</div>
<script src="leaderboard-data.js"></script>
<script src="assets/leaderboard.js"></script>"""
