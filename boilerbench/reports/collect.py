"""Collect runs: every ``summary.json`` under the given folders, one row per run, plus the rows
of an earlier build's ``runs.csv`` (``--base``), so that a table can be rebuilt after rerunning
only some of its runs on a machine that no longer holds the others."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from boilerbench.conf import RENAMED
from boilerbench.experiments.results import RunFileError, legacy_protocol_name, protocol_name, read_pages, read_summary

#: What identifies a run's setting; among runs with equal keys the latest one wins.
KEY = ("report", "extractor", "dataset", "split", "protocol", "trained_on", "params")
#: Where a row's figures came from: the run's identity (:mod:`boilerbench.experiments.reuse`) and
#: its extractor's code version (:func:`boilerbench.experiments.model_cache.extractor_version`);
#: empty in rows of runs that predate them.
PROVENANCE = ("run_key", "code_version")
#: Text columns of a run row (the rest are numbers).
TEXT = (*KEY, "run_dir", "finished_at", *PROVENANCE)


class MissingRuns(Exception):
    """The runs an artefact needs are not there."""


def params_json(params: dict) -> str:
    """A run's extractor hyperparameters as JSON, names in sorted order (a setting's identity),
    each value as the config gave it: the members of an ensemble or a stack keep their order,
    which orders its vote columns and its code version (:func:`boilerbench.reports.stale.current_version`
    rebuilds the extractor from this)."""
    return json.dumps({name: params[name] for name in sorted(params)})


def run_row(path: Path) -> dict:
    """One run's row: identity, provenance (:data:`PROVENANCE`), every metric flattened
    (``block.f1``), timings and resources (CPU seconds, peak memory), the extractor's
    hyperparameters (``param.<name>``) and where its files are."""
    summary = read_summary(path)
    config = summary.get("config", {})
    params = {k: v for k, v in config.get("extractor", {}).items() if k != "_target_"}
    row = {
        "run_dir": str(path.parent),
        "report": config.get("report") or "",
        "extractor": summary["extractor"],
        "dataset": summary["dataset"],
        "split": str(config.get("dataset", {}).get("split", summary["split"])),
        "protocol": protocol_name(summary),
        "trained_on": summary.get("trained_on", ""),
        "params": params_json(params),
        "n_pages": summary["n_pages"],
        "n_errors": summary["n_errors"],
        "finished_at": summary.get("finished_at", ""),
        **{name: summary.get(name, "") for name in PROVENANCE},
        "ms_per_page": summary["timing"]["extract_ms_per_page"],
        "fit_s": summary["timing"].get("fit_s", 0.0),
        "wall_s": summary["timing"].get("wall_s", float("nan")),
        "cpu_s": summary.get("resources", {}).get("cpu_s", float("nan")),
        "peak_rss_mb": summary.get("resources", {}).get("peak_rss_mb", float("nan")),
    }
    for group, values in summary["metrics"].items():
        for name, value in values.items():
            row[f"{group}.{name}"] = value
    for section, prefix in (("by_page_type", "type"), ("by_language", "lang")):
        for value_name, part in summary.get(section, {}).items():
            row[f"{prefix}.{value_name}.n_pages"] = part["n_pages"]
            for group, values in part["metrics"].items():
                for name, value in values.items():
                    row[f"{prefix}.{value_name}.{group}.{name}"] = value
    if "cv" in summary:
        row["cv.f1_std"] = summary["cv"]["std"]["block_f1"]
        row["cv.folds"] = summary["cv"]["folds"]
    row.update({f"param.{k}": v for k, v in params.items()})
    return row


def read_runs(path: str | Path) -> pd.DataFrame:
    """The run rows of an earlier build (its ``runs.csv``), the protocols of rows written before
    summaries recorded theirs (``test``, ``cross``) named as now
    (:func:`boilerbench.experiments.results.legacy_protocol_name`)."""
    frame = pd.read_csv(path, dtype=dict.fromkeys(TEXT, str))
    frame = frame.fillna(dict.fromkeys((c for c in TEXT if c in frame.columns), ""))
    if "protocol" in frame.columns:
        trained = frame["trained_on"] if "trained_on" in frame.columns else pd.Series("", index=frame.index)
        frame["protocol"] = [legacy_protocol_name(p, t) for p, t in zip(frame["protocol"], trained, strict=True)]
    return frame


def collect(folders: Iterable[str | Path], base: str | Path | None = None) -> pd.DataFrame:
    """All runs under ``folders`` (searched recursively) and in the ``base`` runs.csv, the latest
    of each setting kept (a run that finished later replaces the base's row). The base gives the
    runs that are not under ``folders``: a base row whose folder is under them is dropped whatever
    its setting, since that folder now holds another run or none (a rerun whose extractor gained a
    parameter has another setting, and its old row would otherwise stay beside it), and so is a
    base row that a collected run supersedes (:func:`superseded`)."""
    paths = [Path(folder) for folder in folders]
    found = pd.DataFrame([run_row(p) for folder in paths for p in sorted(folder.rglob("summary.json"))])
    frames = [found]
    if base is not None:
        earlier = read_runs(base)
        if "run_dir" in earlier.columns:
            roots = [folder.resolve() for folder in paths]
            under = earlier["run_dir"].map(lambda d: any(Path(d).resolve().is_relative_to(r) for r in roots))
            earlier = earlier[~under.astype(bool)]
        if not found.empty:
            earlier = earlier[~superseded(earlier, found)]
        frames.append(earlier)
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=[*KEY, "run_dir"])
    frame = pd.concat(frames, ignore_index=True)
    frame = frame.fillna(dict.fromkeys((c for c in TEXT if c in frame.columns), ""))
    frame = frame.sort_values("finished_at", kind="stable")
    return frame.drop_duplicates(subset=list(KEY), keep="last").reset_index(drop=True)


def same_value(earlier: object, now: object) -> bool:
    """Whether a parameter's value in an earlier row is its value now: equal, or the names of an
    ensemble's or a stack's members, as rows gave them before members were nested configs
    (name: config), the same names in the same order."""
    return earlier == now or (isinstance(earlier, list) and isinstance(now, dict) and earlier == list(now))


def superseded(earlier: pd.DataFrame, found: pd.DataFrame) -> pd.Series:
    """Which ``earlier`` rows a ``found`` run supersedes: one of the same report, extractor and
    dataset whose split and training data the row leaves blank (rows rebuilt from an old table,
    which did not record them) or shares, and, where the row records the code version it came
    from, the same protocol and every parameter of the row the same in the run, which may have
    more (the extractor gained parameters, added with defaults that keep its output, since the row
    was written; a parameter whose value differs makes another setting, which stays). A row that
    records no code version predates the provenance: whatever it recorded of its protocol and
    parameters describes how an older version of the experiment ran, and the run that the
    experiment makes now replaces it. A row under an extractor's former name
    (:data:`boilerbench.conf.RENAMED`) is one of the extractor under its new name."""

    def params(text: object) -> dict:
        return json.loads(text) if isinstance(text, str) and text else {}

    def covers(row: pd.Series, run: pd.Series) -> bool:
        if any(str(row.get(k) or "") not in ("", str(run[k])) for k in ("split", "trained_on")):
            return False
        if not str(row.get("code_version") or ""):
            return True
        other = params(run["params"])
        return str(row.get("protocol")) == str(run["protocol"]) and all(
            k in other and same_value(v, other[k]) for k, v in params(row.get("params")).items()
        )

    def setting(row: pd.Series) -> tuple[str, str, str]:
        extractor = str(row["extractor"])
        return str(row["report"]), RENAMED["extractor"].get(extractor, extractor), str(row["dataset"])

    runs: dict[tuple[str, str, str], list[pd.Series]] = {}
    for _, run in found.iterrows():
        runs.setdefault(setting(run), []).append(run)
    flags = [any(covers(row, run) for run in runs.get(setting(row), [])) for _, row in earlier.iterrows()]
    return pd.Series(flags, index=earlier.index, dtype=bool)


def pages(run_dir: str | Path) -> pd.DataFrame:
    """A run's ``pages.csv`` (page ids as strings); a run known only from a base runs.csv has
    none here, and the artefacts that read pages are then missing."""
    try:
        return read_pages(Path(run_dir) / "pages.csv")
    except RunFileError as err:
        raise MissingRuns(f"the page rows of {run_dir} (not on this machine: rerun it)") from err
