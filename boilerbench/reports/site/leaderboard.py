"""The leaderboard's data: every extractor's runs of the store, per dataset and per page type and
language within it, with token and word F1, their 95 % intervals and milliseconds per page.

Which runs: those of the reports that test each extractor with its default settings on each
dataset's test pages (:data:`REPORTS`); where several runs of the same extractor, dataset and
training data exist, the one that finished last (as the tables keep it). A run trained on other
data (the headline stack on its mixture) is its own row, its training data beside it. Page-type
and language rows are the run's ``by_page_type`` and ``by_language`` figures; the store has no
per-group timing, so a group row repeats its run's milliseconds per page.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pandas as pd

from boilerbench.reports.site.store import Store, interval, is_missing

#: The reports whose runs form the leaderboard.
REPORTS = ("table_datasets", "table_languages", "table_headline")
#: The reports whose runs get a link to their per-page viewer when one is built.
VIEWER_REPORTS = ("table_headline",)
#: Where ``python -m boilerbench.reports.site viewers`` writes the viewers (relative to the root).
VIEWERS = Path("build/viewer")
#: The figures of each row: (key in the data, column prefix in runs.csv).
METRICS = (("token", "token.f1"), ("word", "word.f1"))


def leaderboard_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs the leaderboard shows (:data:`REPORTS`, the latest of each extractor, dataset and
    training data)."""
    chosen = runs[runs["report"].isin(REPORTS)].sort_values("finished_at", kind="stable")
    return chosen.drop_duplicates(["dataset", "extractor", "trained_on"], keep="last")


def viewer_slug(run_dir: str) -> str:
    """The folder name of a run's viewer in the site: its experiment folder, job folder and a
    short hash of the whole path (two machines' ``multirun/table_headline/0_stack_wcxb`` differ):
    ``table_headline-0_stack_wcxb-1a2b3c4d``."""
    parts = Path(run_dir).parts[-2:]
    digest = hashlib.sha1(run_dir.encode()).hexdigest()[:8]
    return re.sub(r"[^\w.-]", "_", "-".join(parts)) + f"-{digest}"


def _groups(run: pd.Series) -> list[tuple[str, str]]:
    """(group label, column prefix) for the whole run and each page type and language it has."""
    groups = [("all pages", "")]
    for kind, label in (("type", "page type"), ("lang", "language")):
        names = sorted({c.split(".")[1] for c in run.index if c.startswith(f"{kind}.") and c.endswith(".n_pages")})
        for name in names:
            if not is_missing(run[f"{kind}.{name}.n_pages"]):
                groups.append((f"{label}: {name}", f"{kind}.{name}."))
    return groups


def _number(value: object) -> float | None:
    return None if is_missing(value) else float(value)  # type: ignore[arg-type]


def rows(store: Store, viewers: set[str]) -> list[dict]:
    """One entry per (run, group) with a token F1; ``viewers`` are the slugs whose viewer pages
    the site holds (:func:`viewer_slug`), linked as ``viewer/SLUG/index.html``."""
    out = []
    for _, run in leaderboard_runs(store.runs).iterrows():
        slug = viewer_slug(run["run_dir"])
        link = f"viewer/{slug}/index.html" if run["report"] in VIEWER_REPORTS and slug in viewers else None
        for group, prefix in _groups(run):
            entry: dict[str, object] = {
                "dataset": run["dataset"],
                "group": group,
                "extractor": run["extractor"],
                "trained_on": run["trained_on"],
                "pages": _number(run[f"{prefix}n_pages"]),
                "ms": _number(run["ms_per_page"]),
                "viewer": link,
            }
            for key, column in METRICS:
                bounds = interval(run.get(prefix + column + "_ci95"))
                entry[key] = _number(run.get(prefix + column))
                entry[key + "_lo"], entry[key + "_hi"] = bounds if bounds else (None, None)
            if entry["token"] is not None:
                out.append(entry)
    return out


def data_script(store: Store, viewers: set[str]) -> str:
    """``leaderboard-data.js``: the rows as a global (a script, not a fetched JSON file, so that the
    page works when opened from disk)."""
    return "window.LEADERBOARD = " + json.dumps({"rows": rows(store, viewers)}, allow_nan=False) + ";\n"
