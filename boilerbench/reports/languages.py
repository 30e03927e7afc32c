"""Token F1 per language (``table_languages``): every extractor on the multilingual datasets,
one column per (dataset, language) with at least :data:`MIN_PAGES` scored pages, each cell the
mean token F1 over that language's pages (the snippet F1 on a set with snippet gold only) with
its page-level bootstrap 95 % interval.

A page's language is the dataset's label where it gives one (DANIEL, the Chinese set), else the
language identifier's verdict on the gold text (:mod:`boilerbench.language`); the runs come from
``experiment=table_languages`` and ``experiment=table_languages_stack`` (the test pages of the
splits grouped by site; every page of the sets without a split).

``table_languages_cv``: the same on every page of DANIEL by five-fold cross-validation with folds
cut by site (``experiment=table_languages_cv`` and ``experiment=table_languages_cv_stack``), and the
stacks' paired differences from trafilatura and readability per language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import product

import pandas as pd

from boilerbench.reports.ablation import difference_cell, paired_subset, subset_difference
from boilerbench.reports.collect import run_pages, run_seeds
from boilerbench.reports.datasets import SNIPPET_ONLY, latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.published import PUBLISHED
from boilerbench.reports.significance import Difference, seed_mean
from boilerbench.reports.tables import Table, cell, fmt, interval_of

#: Fewest scored pages of a language in a dataset for it to get a column.
MIN_PAGES = 20
_LANG_PAGES = re.compile(r"^lang\.([^.]+)\.n_pages$")


def language_columns(runs: pd.DataFrame) -> list[tuple[str, str]]:
    """The (dataset, language) columns of the table: languages with at least :data:`MIN_PAGES`
    pages in some run of the dataset, by dataset then by descending page count."""
    columns = []
    for dataset, part in runs.groupby("dataset", sort=True):
        counts = {}
        for column in part.columns:
            match = _LANG_PAGES.match(column)
            if match and part[column].notna().any():  # a language only other datasets' runs have: NaN here
                counts[match.group(1)] = part[column].max()
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        columns += [(str(dataset), lang) for lang, n in ranked if n >= MIN_PAGES]
    return columns


def metric_of(dataset: str) -> str:
    """The figure of a dataset's cells: token F1, or the snippet F1 of a set with snippet gold only."""
    return "snippets.f1" if dataset in SNIPPET_ONLY else "token.f1"


def _per_language(runs: pd.DataFrame, experiment: str) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The numbers (one row per extractor, by its mean over the columns: each (dataset, language)
    column's figure, interval and pages), the shown cells (``±`` half the width of the 95 %
    interval) and the column names, from the latest run per extractor and dataset."""
    if runs.empty:
        raise MissingRuns(f"extractor runs on the multilingual datasets (experiment={experiment})")
    runs = latest_runs(runs, ["extractor", "dataset"])
    columns = language_columns(runs)
    if not columns:
        raise MissingRuns(f"runs with a language of {MIN_PAGES}+ pages (summary.json by_language)")
    numbers = []
    for extractor, part in runs.groupby("extractor", sort=True):
        row: dict = {"extractor": extractor}
        for dataset, lang in columns:
            found = part[part["dataset"] == dataset]
            run = found.iloc[0] if len(found) else pd.Series(dtype=object)
            key = f"lang.{lang}.{metric_of(dataset)}"
            interval = interval_of(run, key) or (float("nan"), float("nan"))
            row[f"{dataset}:{lang}"] = float(run.get(key, float("nan")))
            row[f"{dataset}:{lang}:lo"], row[f"{dataset}:{lang}:hi"] = interval
            row[f"{dataset}:{lang}:pages"] = float(run.get(f"lang.{lang}.n_pages", float("nan")))
        numbers.append(row)
    frame = pd.DataFrame(numbers)
    names = [f"{d}:{lang}" for d, lang in columns]
    frame["mean"] = frame[names].mean(axis=1, skipna=False)
    frame = frame.sort_values("mean", ascending=False, na_position="last").reset_index(drop=True)
    shown = pd.DataFrame({"extractor": frame["extractor"]})
    for name in names:
        shown[name] = [
            cell(v, 3, None if pd.isna(lo) else (lo, hi))
            for v, lo, hi in zip(frame[name], frame[f"{name}:lo"], frame[f"{name}:hi"], strict=True)
        ]
    shown["mean"] = [fmt(v) for v in frame["mean"]]
    return frame, shown, names


def _pages_note(frame: pd.DataFrame, names: list[str]) -> str:
    return ", ".join(f"{n} {int(frame[f'{n}:pages'].max())}" for n in names)


def table_languages(runs: pd.DataFrame) -> Table:
    """Rows: extractors (by their mean over the columns); columns: token F1 per dataset and
    language with ``±`` half the width of the 95 % interval; a learned extractor refitted with
    another seed is a row of its own (:func:`cv_labelled`)."""
    frame, shown, names = _per_language(cv_labelled(runs), "table_languages")
    note = (
        "Token F1 (mean over the language's pages; snippet F1 on "
        f"{', '.join(SNIPPET_ONLY)}, which has snippet gold only) ± half the width of its page-level bootstrap "
        "95 % interval; "
        f"columns: dataset:language with {MIN_PAGES}+ pages (pages: {_pages_note(frame, names)}); mean: over the "
        'columns (– where a run or language is missing); ", seed k": refitted with seed k (the mixture\'s draw and '
        'the trees\'); ", teaser rails": trained on the mixture with the derived teaser-rail pages (dataset '
        "teaser_rails). Language: the dataset's label, else identified from the gold text."
    )
    return Table("table_languages", "Token F1 per language", shown, note, numbers=frame)


#: The learned extractors of ``table_languages_cv`` compared page by page with the references.
CV_LEARNED = ("stack", "stack_fast", "arbiter", "arbiter_stack")
CV_REFERENCES = ("trafilatura", "readability")


def daniel_site(page_id: str) -> str:
    """A DANIEL page's web site: the host in its id (``YYYYMMDD_<host>_<hash>``), the rule by
    which the data's ``sites.json`` was made (its SOURCE.md)."""
    return page_id.split("_", 1)[-1].rsplit("_", 1)[0]


def language_difference(
    learned: pd.DataFrame, reference: pd.DataFrame, language: str, site: Callable[[str], str] | None = None
) -> Difference:
    """``learned`` minus ``reference`` in token F1 on the pages of ``language`` (the page rows'
    ``language``), paired, resampling pages or the sites ``site`` gives (:func:`subset_difference`)."""
    return subset_difference(learned, reference, "language", language, site)


#: The labels of a learned extractor's cross-validated runs whose folds trained on other data than
#: the shipped mixture, each by the folds' ``train_on`` (``cv.train_on``): DANIEL's other folds
#: alone, or the mixture with them named twice (two shares: ``experiment=table_languages_cv_weights``).
VARIANTS: dict[str, Callable[[list[str]], bool]] = {
    "{}, DANIEL only": lambda entries: entries == ["daniel:all"],
    "{}, DANIEL ×2": lambda entries: entries.count("daniel:all") == 2,
    "{}, teaser rails": lambda entries: "teaser_rails" in entries,
}
#: The variants that are candidates for the shipped mixture, so also set against the references.
CANDIDATES = ("{}, teaser rails",)


def text_column(runs: pd.DataFrame, name: str) -> pd.Series:
    """A text column of the runs, "" where a run has no value or the runs lack the column."""
    values = runs[name] if name in runs.columns else pd.Series("", index=runs.index)
    return values.astype(object).where(values.notna(), "").astype(str)


def training_entries(cv_train_on: str, trained_on: str) -> list[str]:
    """A run's ``train_on`` entries: its folds' (``cv.train_on``), else its mixture's (the names in
    ``trained_on``'s ``mix(...)``); none for a run not trained on a mixture."""
    if cv_train_on:
        return [e for e in cv_train_on.split(",") if e]
    match = re.match(r"mix\(([^)]*)\)", trained_on)
    return [e for e in match.group(1).split(",") if e] if match else []


def _variant(extractor: str, entries: list[str], seed: int) -> str:
    """The label of a run of ``extractor`` trained on ``entries`` (:func:`training_entries`) with
    ``seed``: a learned extractor refitted with a seed other than 0 is labelled with it."""
    if extractor not in CV_LEARNED:
        return extractor
    label = next((v.format(extractor) for v, matches in VARIANTS.items() if matches(entries)), extractor)
    return f"{label}, seed {seed}" if seed else label


def cv_labelled(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with each learned extractor trained on other data than the shipped mixture (its
    folds' or, for a run without folds, as ``table_languages``' are, its own) named by its
    :data:`VARIANTS` label, and each refitted with another seed by the seed, a row of its own
    beside the same extractor trained on the mixture with seed 0."""
    columns = (text_column(runs, "cv.train_on"), text_column(runs, "trained_on"))
    entries = [training_entries(c, t) for c, t in zip(*columns, strict=True)]
    seeds = run_seeds(runs)
    names = [_variant(e, t, k) for e, t, k in zip(runs["extractor"], entries, seeds, strict=True)]
    return runs.assign(extractor=names)


def _seed_labels(present: set[str]) -> list[str]:
    """Each learned extractor's refits with other seeds among the labels ``present``
    (``"arbiter_stack, seed 1"``, ``"arbiter_stack, seed 2"``), then its average over seed 0 and
    them all (``"arbiter_stack, seeds 0, 1, 2 averaged"``)."""
    refits: dict[str, list[int]] = {}
    for name in present:
        learned, _, seed = name.rpartition(", seed ")
        if learned in CV_LEARNED:
            refits.setdefault(learned, []).append(int(seed))
    labels = []
    for learned, seeds in sorted(refits.items()):
        seeds.sort()
        labels += [f"{learned}, seed {k}" for k in seeds]
        labels.append(f"{learned}, seeds {', '.join(map(str, [0, *seeds]))} averaged")
    return labels


def table_languages_cv(runs: pd.DataFrame) -> Table:
    """``table_languages`` on DANIEL by site-grouped cross-validation (every page tested once, by
    a model that saw none of its site), then each learned extractor minus each reference per
    language (and each refit with another seed, alone, and all averaged with seed 0), and each trained on
    DANIEL alone minus itself trained on the mixture, paired page by page, with the interval and the
    p-value (issue 29, must-shows 2 and 3)."""
    runs = cv_labelled(runs)
    frame, shown, names = _per_language(runs, "table_languages_cv")
    latest = latest_runs(runs, ["extractor", "dataset"])
    by = {(r["extractor"], r["dataset"]): r for _, r in latest.iterrows()}
    variants = [(v.format(e), e) for v in VARIANTS for e in CV_LEARNED]
    present = set(latest["extractor"])
    learned_present = [name for name in CV_LEARNED if name in present]
    candidates = [v.format(e) for v in CANDIDATES for e in CV_LEARNED if v.format(e) in present]
    pairs = [
        *product([*learned_present, *_seed_labels(present), *candidates], CV_REFERENCES),
        *((v, e) for v, e in variants if v in present),
    ]

    def pages(label: str, dataset: str) -> pd.DataFrame | None:
        """The page rows of ``label``'s run on ``dataset`` (of the seeds named averaged page by page
        for ``"…, seeds 0, 1, 2 averaged"``); None where a run is missing."""
        if label.endswith(" averaged"):
            learned, _, seeds = label.removesuffix(" averaged").rpartition(", seeds ")
            fits = [pages(learned if k == "0" else f"{learned}, seed {k}", dataset) for k in seeds.split(", ")]
            return None if any(f is None for f in fits) else seed_mean([f for f in fits if f is not None])
        return run_pages(by[(label, dataset)]) if (label, dataset) in by else None

    rows = []
    for (learned, reference), (unit, site) in product(pairs, (("pages", None), ("sites", daniel_site))):
        row = {"extractor": f"{learned} − {reference}, {unit} resampled"}
        for name in names:
            dataset, language = name.split(":")
            ours, theirs = pages(learned, dataset), pages(reference, dataset)
            row[name] = (
                "–"
                if ours is None or theirs is None
                else difference_cell(language_difference(ours, theirs, language, site))
            )
        rows.append({**row, "mean": ""})
    note = (
        f"Token F1 on every page of DANIEL, each tested once by five-fold cross-validation with folds cut by site "
        f"(pages: {_pages_note(frame, names)}), ± half the width of its page-level bootstrap 95 % interval. The "
        "learned extractors train each fold on the multilingual mixture with the other folds' DANIEL pages; the "
        'others need no training; ", DANIEL only": trained on the other folds\' DANIEL pages alone (one page type: '
        'decoded at the threshold, no page-type features); ", DANIEL ×2": the mixture with the other folds\' DANIEL '
        'pages named twice, weighing two shares; ", teaser rails": the mixture with the derived teaser-rail pages '
        '(dataset teaser_rails: training articles with a rail of teasers added); ", seed k": refitted with seed k '
        "(the mixture's draw and the "
        "trees'), and \", seeds 0, 1, … averaged\": each page's score averaged over those fits. Last rows: paired "
        "differences on each language's pages "
        "with the 95 % bootstrap interval and the approximate-randomization p-value, resampling (and swapping) "
        "pages, then whole sites: pages of a site share its template, and Greek and Polish have 11 sites each, so "
        "the site-level interval is the one that speaks for other sites (the data's SOURCE.md asks for it)."
    )
    return Table(
        "table_languages_cv",
        "Token F1 per language, DANIEL by site-grouped cross-validation",
        pd.concat([shown, pd.DataFrame(rows)], ignore_index=True),
        note,
        numbers=frame,
    )


def site_points(
    learned: pd.DataFrame, reference: pd.DataFrame, language: str, site: Callable[[str], str]
) -> pd.DataFrame:
    """Per site of ``language``'s pages: its pages and its page-points, the sum over its pages of
    ``learned`` minus ``reference`` in token F1 (the site's share of the language's mean
    difference, times the language's pages), most lost first."""
    a, b = paired_subset(learned, reference, "language", language)
    frame = pd.DataFrame(
        {
            "site": [site(str(i)) for i in a["page_id"]],
            "points": a["token_f1"].to_numpy(float) - b["token_f1"].to_numpy(float),
        }
    )
    by_site = frame.groupby("site").agg(pages=("points", "size"), points=("points", "sum")).reset_index()
    return by_site.sort_values(["points", "site"]).reset_index(drop=True)


#: Sites named per side in ``table_languages_cv_sites``.
SHOWN_SITES = 3


def _sites_cell(part: pd.DataFrame) -> str:
    return "; ".join(f"{r.site} ({r.pages}) {r.points:+.1f}" for r in part.itertuples())


def table_languages_cv_sites(runs: pd.DataFrame) -> Table:
    """Where ``table_languages_cv``'s differences come from: per learned extractor, reference and
    language, the net page-points and the sites that lose and gain most (DANIEL's per-language
    figures are figures about a few site templates: Greek and Polish have 11 sites each)."""
    runs = cv_labelled(runs)
    _, _, names = _per_language(runs, "table_languages_cv")
    latest = latest_runs(runs, ["extractor", "dataset"])
    by = {(r["extractor"], r["dataset"]): r for _, r in latest.iterrows()}
    rows = []
    for learned, reference in product(CV_LEARNED, CV_REFERENCES):
        for name in names:
            dataset, language = name.split(":")
            if (learned, dataset) not in by or (reference, dataset) not in by:
                continue
            sites = site_points(
                run_pages(by[(learned, dataset)]), run_pages(by[(reference, dataset)]), language, daniel_site
            )
            losing, gaining = sites[sites["points"] < 0], sites[sites["points"] > 0].iloc[::-1]
            rows.append(
                {
                    "comparison": f"{learned} − {reference}",
                    "language": name,
                    "pages": int(sites["pages"].sum()),
                    "sites": len(sites),
                    "page-points": f"{sites['points'].sum():+.1f}",
                    "lost most": _sites_cell(losing.head(SHOWN_SITES)),
                    "gained most": _sites_cell(gaining.head(SHOWN_SITES)),
                }
            )
    if not rows:
        raise MissingRuns("the stacks' and the references' cross-validated runs (experiment=table_languages_cv)")
    note = (
        "DANIEL by site-grouped cross-validation (table_languages_cv's runs). Page-points: the sum over the "
        "language's pages of the learned extractor's token F1 minus the reference's (the mean difference times the "
        f"pages); per site, its pages in brackets and its page-points, the {SHOWN_SITES} sites that lose and gain "
        "most. A site is the host in the page id."
    )
    return Table(
        "table_languages_cv_sites", "Which sites the per-language differences come from", pd.DataFrame(rows), note
    )


#: The extractors of ``table_chinese``: SCEDD and CETD, the paper's own pair, beside the references.
CHINESE_ROWS = ("scedd", "cetd", "bte", "trafilatura", "readability", "stack")


def table_chinese(runs: pd.DataFrame) -> Table:
    """SCEDD and CETD on the Chinese pages (each dataset with full-text gold and :data:`MIN_PAGES`
    Chinese pages or more: DANIEL's test pages, the Chinese set, magic-html-bench's): token F1 and
    SCEDD's own error measure (mean, and the share of pages above 0.2: "wrong"), next to Xi et
    al.'s figure for SCEDD (on their short pages only)."""
    runs = latest_runs(runs[runs["extractor"].isin(CHINESE_ROWS)], ["extractor", "dataset"])
    zh = runs.get("lang.zh.n_pages", pd.Series(float("nan"), index=runs.index))
    full_text = ~runs["dataset"].isin(SNIPPET_ONLY)
    datasets = sorted(runs.loc[(zh >= MIN_PAGES) & full_text, "dataset"].unique())
    if not datasets:
        raise MissingRuns("scedd and cetd on pages in Chinese (experiment=table_languages)")
    published = PUBLISHED[("scedd", "chinese")]["lcs_error.wrong_rate"]
    rows = []
    for extractor in [e for e in CHINESE_ROWS if e in set(runs["extractor"])]:
        row = {"extractor": extractor}
        for dataset in datasets:
            found = runs[(runs["extractor"] == extractor) & (runs["dataset"] == dataset)]
            run = found.iloc[0] if len(found) else pd.Series(dtype=object)
            pages = run.get("lang.zh.n_pages", float("nan"))
            row[f"{dataset} pages"] = fmt(pages, 0)
            row[f"{dataset} token F1"] = cell(
                run.get("lang.zh.token.f1", float("nan")), 3, interval_of(run, "lang.zh.token.f1")
            )
            row[f"{dataset} SCEDD error"] = fmt(run.get("lang.zh.lcs_error.mean", float("nan")))
            row[f"{dataset} wrong"] = fmt(run.get("lang.zh.lcs_error.wrong_rate", float("nan")))
        row["wrong (published)"] = fmt(published) if extractor == "scedd" else ""
        rows.append(row)
    note = (
        "Pages in Chinese (DANIEL's label, the Chinese set's). SCEDD error: 1 - LCS(result, gold) / |result| "
        "(Xi et al. 2016, sec. 4.3.2), a page is wrong above 0.2; published: about 80 % of their 144 short-content "
        "news pages right (fig. 7), whereas these pages are mostly long ones, which SCEDD's classifier sends to CETD."
    )
    return Table("table_chinese", "SCEDD and CETD on Chinese pages", pd.DataFrame(rows), note)
