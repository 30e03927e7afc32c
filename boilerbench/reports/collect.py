"""Collect runs: every ``summary.json`` under the given folders, one row per run, plus the rows
of an earlier build's ``runs.csv`` (``--base``), so that a table can be rebuilt after rerunning
only some of its runs on a machine that no longer holds the others."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import yaml

from boilerbench.conf import CONF_DIR, RENAMED
from boilerbench.experiments.results import RunFileError, legacy_protocol_name, protocol_name, read_pages, read_summary
from boilerbench.reports.archive import archived_run_dir, is_archived, run_key_of

#: What identifies a run's setting; among runs with equal keys the latest one wins.
KEY = ("report", "extractor", "dataset", "split", "protocol", "trained_on", "cv.train_on", "params")
#: Training sets (``dataset/split``) as runs.csv rows of an earlier version named them: L3S-GN1's
#: one split was named after the dataset before it was named ``all``.
LEGACY_TRAINING = {"l3s_gn1/l3s_gn1": "l3s_gn1/all"}
#: Where a row's figures came from: the run's identity (:mod:`boilerbench.experiments.reuse`) and
#: its extractor's code version (:func:`boilerbench.experiments.model_cache.extractor_version`);
#: empty in rows of runs that predate them.
PROVENANCE = ("run_key", "code_version")
#: The committed results store's index.
STORE = "reports/results/runs.csv"
#: Text columns of a run row (the rest are numbers).
TEXT = (*KEY, "run_dir", "finished_at", *PROVENANCE, "sweep", "launcher")
#: The columns of ``sweeps.csv``: one row per Hydra sweep folder (or single run), what launched
#: its jobs, how many, and when the first began and the last ended.
SWEEP_COLUMNS = ("sweep", "report", "launcher", "jobs", "started_at", "finished_at", "wall_s", "cpu_s")


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
    sweep, launcher = launched(path.parent, config)
    row = {
        "run_dir": str(path.parent),
        "sweep": sweep,
        "launcher": launcher,
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
    row.update(metric_columns(summary))
    if "cv" in summary:
        row["cv.f1_std"] = summary["cv"]["std"]["block_f1"]
        row["cv.folds"] = summary["cv"]["folds"]
        protocol = summary.get("protocol")
        if isinstance(protocol, dict) and protocol.get("train_on"):  # what each fold trained on
            row["cv.train_on"] = ",".join(map(str, protocol["train_on"]))
    row.update({f"param.{k}": v for k, v in params.items()})
    return row


def launched(run_dir: Path, config: dict) -> tuple[str, str]:
    """The folder a run's sweep wrote into (the run's own folder for a single run) and what
    launched its job (``joblib, 2 jobs``, ``dask, 2 workers``, ``dask at tcp://...``, ``slurm``,
    ``single``), from the run's ``.hydra/hydra.yaml``; blank where that file is not there."""
    try:
        hydra = yaml.safe_load((run_dir / ".hydra" / "hydra.yaml").read_text(encoding="utf-8"))["hydra"]
    except (OSError, KeyError, TypeError, yaml.YAMLError):
        return str(run_dir), ""
    if hydra.get("mode") != "MULTIRUN":
        return str(run_dir), "single"
    launcher = hydra.get("launcher") or {}
    name = str(launcher.get("_target_", "")).rsplit(".", 1)[-1].removesuffix("Launcher").lower() or "basic"
    jobs = launcher.get("n_jobs", launcher.get("n_workers"))
    if isinstance(jobs, str) and jobs.startswith("${"):
        jobs = config.get(jobs.strip("${}"))
    if launcher.get("address"):
        name += f" at {launcher['address']}"
    elif jobs:
        name += f", {jobs} {'workers' if 'n_workers' in launcher else 'jobs'}"
    return str(run_dir.parent), name


def busy_seconds(intervals: list[tuple[datetime, datetime]]) -> float:
    """How long at least one of the (start, end) intervals was running: their union's length, so
    jobs side by side count once and the time between two sittings of a sweep not at all."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += (end - start).total_seconds()
            reach = end
        elif end > reach:
            total += (end - reach).total_seconds()
            reach = end
    return total


def sweep_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per sweep of ``runs`` (:data:`SWEEP_COLUMNS`): its wall time, the time during which
    at least one of its jobs ran (:func:`busy_seconds`; a job from its end less its own wall time
    to its end), its first start and last end, and its jobs' CPU time summed."""
    if runs.empty or "sweep" not in runs.columns:
        return pd.DataFrame(columns=list(SWEEP_COLUMNS))
    rows = []
    for (sweep, launcher), part in runs[runs["finished_at"] != ""].groupby(["sweep", "launcher"], sort=True):
        ends = [datetime.fromisoformat(t) for t in part["finished_at"]]
        walls = pd.to_numeric(part["wall_s"], errors="coerce").fillna(0.0)
        starts = [end - timedelta(seconds=float(w)) for end, w in zip(ends, walls, strict=True)]
        rows.append(
            {
                "sweep": sweep,
                "report": part["report"].mode().iloc[0],
                "launcher": launcher,
                "jobs": len(part),
                "started_at": min(starts).isoformat(timespec="seconds"),
                "finished_at": max(ends).isoformat(timespec="seconds"),
                "wall_s": busy_seconds(list(zip(starts, ends, strict=True))),
                "cpu_s": float(pd.to_numeric(part["cpu_s"], errors="coerce").sum(min_count=1)),
            }
        )
    return pd.DataFrame(rows, columns=list(SWEEP_COLUMNS))


def gather(folders: Iterable[str | Path], base: str | Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`collect`'s runs and the sweeps they ran in (:func:`sweep_rows`): those of every run
    found under ``folders``, superseded or not (a sweep's time is what it took), and the rows of
    the ``sweeps.csv`` beside ``base`` whose folders are not under ``folders`` and that are not
    those very sweeps (same folder, launcher and times)."""
    paths = [Path(folder) for folder in folders]
    found = _found(paths)
    sweeps = sweep_rows(found)
    beside = Path(base).with_name("sweeps.csv") if base is not None else None
    if beside is not None and beside.is_file():
        earlier = pd.read_csv(beside, dtype={"sweep": str, "report": str, "launcher": str}).fillna(
            {"report": "", "launcher": ""}
        )
        earlier = earlier[~_under(earlier["sweep"], paths)]
        # a job folder given again (its sweep is above it) brings the row the base holds: once
        sweeps = pd.concat([f for f in (earlier, sweeps) if not f.empty], ignore_index=True).drop_duplicates(
            subset=["sweep", "launcher", "started_at", "finished_at"], keep="last"
        )
    return _latest(found, paths, base), sweeps.reset_index(drop=True)


def _found(paths: list[Path]) -> pd.DataFrame:
    return pd.DataFrame([run_row(p) for folder in paths for p in sorted(folder.rglob("summary.json"))])


def _under(folders: pd.Series, roots: list[Path]) -> pd.Series:
    """Whether each folder is under one of ``roots``."""
    resolved = [root.resolve() for root in roots]
    return folders.map(lambda d: any(Path(d).resolve().is_relative_to(r) for r in resolved)).astype(bool)


def read_runs(path: str | Path) -> pd.DataFrame:
    """The run rows of an earlier build (its ``runs.csv``), the protocols of rows written before
    summaries recorded theirs (``test``, ``cross``) and their training sets named as now
    (:func:`boilerbench.experiments.results.legacy_protocol_name`, :data:`LEGACY_TRAINING`)."""
    frame = pd.read_csv(path, dtype=dict.fromkeys(TEXT, str), low_memory=False)
    frame = frame.fillna(dict.fromkeys((c for c in TEXT if c in frame.columns), ""))
    if "trained_on" in frame.columns:
        frame["trained_on"] = frame["trained_on"].replace(LEGACY_TRAINING)
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
    return _latest(_found(paths), paths, base)


def _latest(found: pd.DataFrame, paths: list[Path], base: str | Path | None) -> pd.DataFrame:
    """:func:`collect` on the runs already read from ``paths``."""
    frames = [found]
    if base is not None:
        earlier = read_runs(base)
        if "run_dir" in earlier.columns:
            earlier = earlier[~_under(earlier["run_dir"], paths)]
        if not found.empty:
            earlier = earlier[~superseded(earlier, found)]
        frames.append(earlier)
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=[*KEY, "run_dir"])
    frame = pd.concat(frames, ignore_index=True)
    if base is not None:
        # the base's columns keep their order and new ones follow: an update's diff of runs.csv
        # shows the rows that changed, not every line
        kept = [c for c in earlier.columns if c in frame.columns]
        known = set(kept)
        frame = frame[[*kept, *(c for c in frame.columns if c not in known)]]
    frame = frame.fillna(dict.fromkeys((c for c in TEXT if c in frame.columns), ""))
    frame = frame.sort_values("finished_at", kind="stable")
    # filling the text columns one by one leaves a block per column: one copy consolidates them,
    # or every report module's ``assign`` would warn that the frame is fragmented
    # a store written before cross-validated runs recorded cv.train_on has no such column
    key = [k for k in KEY if k in frame.columns]
    return frame.drop_duplicates(subset=key, keep="last").reset_index(drop=True).copy()


def metric_columns(summary: dict) -> dict:
    """A run summary's figures as run-row columns: every metric (``block.f1``, its interval a
    list), and per page type and per language their pages and metrics (``type.forum.token.f1``,
    ``lang.el.n_pages``)."""
    columns = {
        f"{group}.{name}": value for group, values in summary["metrics"].items() for name, value in values.items()
    }
    for section, prefix in (("by_page_type", "type"), ("by_language", "lang")):
        for value_name, part in summary.get(section, {}).items():
            columns[f"{prefix}.{value_name}.n_pages"] = part["n_pages"]
            for group, values in part["metrics"].items():
                for name, value in values.items():
                    columns[f"{prefix}.{value_name}.{group}.{name}"] = value
    return columns


def same_value(earlier: object, now: object) -> bool:
    """Whether a parameter's value in an earlier row is its value now: equal, or the names of an
    ensemble's or a stack's members, as rows gave them before members were nested configs
    (name: config), the same names in the same order."""
    return earlier == now or (isinstance(earlier, list) and isinstance(now, dict) and earlier == list(now))


def sweeps_training(report: str) -> bool:
    """Whether the experiment of ``report`` (``conf/experiment/*.yaml`` with ``report: <report>``)
    sweeps the training data (``+train_source``): then one setting has several runs, one per source."""
    for path in sorted((CONF_DIR / "experiment").glob("*.yaml")):
        config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if config.get("report") == report:
            params = ((config.get("hydra") or {}).get("sweeper") or {}).get("params") or {}
            if any(str(key).lstrip("+~") == "train_source" for key in params):
                return True
    return False


def superseded(earlier: pd.DataFrame, found: pd.DataFrame) -> pd.Series:
    """Which ``earlier`` rows a ``found`` run supersedes: one of the same report, extractor and
    dataset whose split and training data (``trained_on``; a cross-validated run's folds'
    ``cv.train_on``) the row leaves blank (rows rebuilt from an old table,
    which did not record them) or shares, and, where the row records the code version it came
    from, the same protocol and every parameter of the row the same in the run, which may have
    more (the extractor gained parameters, added with defaults that keep its output, since the row
    was written; a parameter whose value differs makes another setting, which stays). A row that
    records no code version predates the provenance: whatever it recorded of its protocol and
    parameters describes how an older version of the experiment ran, and the run that the
    experiment makes now replaces it: also one trained on other data, unless the experiment sweeps
    the training data (:func:`sweeps_training`): table_headline's stack, once trained on an English
    mixture, is now trained on the multilingual one, and no experiment would regenerate the older
    row; table_generalization's row is replaced only by the run on the row's training source. A
    row under an extractor's former name (:data:`boilerbench.conf.RENAMED`) is one of the extractor
    under its new name."""

    def params(text: object) -> dict:
        return json.loads(text) if isinstance(text, str) and text else {}

    def covers(row: pd.Series, run: pd.Series, one_source: bool) -> bool:
        versioned = bool(str(row.get("code_version") or ""))
        keys = ("split", "trained_on", "cv.train_on") if versioned or not one_source else ("split",)
        if any(str(row.get(k) or "") not in ("", str(run.get(k) or "")) for k in keys):
            return False
        if not versioned:
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
    one_source = {report: not sweeps_training(report) for report in set(earlier["report"].astype(str))}
    flags = []
    for _, row in earlier.iterrows():
        key = setting(row)
        flags.append(any(covers(row, run, one_source[key[0]]) for run in runs.get(key, [])))
    return pd.Series(flags, index=earlier.index, dtype=bool)


def pages(run_dir: str | Path, run_key: str | None = None) -> pd.DataFrame:
    """A run's ``pages.csv`` (page ids as strings): from its folder, else from the run archive
    (:func:`~boilerbench.reports.archive.archived_run_dir`); a run in neither is missing, and so
    are the artefacts that read its pages. Given the store row's ``run_key``, the folder is read
    only when it holds that run: a folder rerun since (another branch's code, a sweep not yet in
    the store) would put another run's pages beside the row's figures."""
    folder = Path(run_dir)
    if _holds(folder, run_key):
        try:
            return read_pages(folder / "pages.csv")
        except RunFileError:
            pass
    archived = archived_run_dir(run_dir, run_key=run_key)
    if archived is None:
        held = "" if run_key is None else f" of run key {run_key}"
        raise MissingRuns(f"the page rows{held} of {run_dir} (neither on this machine nor archived: rerun it)")
    return read_pages(archived / "pages.csv")


def run_seeds(runs: pd.DataFrame) -> pd.Series:
    """Each run's seed (``param.seed``), 0 where its config left the default."""
    seeds = runs["param.seed"] if "param.seed" in runs.columns else pd.Series(0, index=runs.index)
    return seeds.fillna(0).astype(int)


def run_pages(run: pd.Series) -> pd.DataFrame:
    """The page rows of a store row (:func:`pages` of its ``run_dir``, held to its ``run_key``
    where the row has one), as many as its ``n_pages`` says (a truncated file is missing)."""
    frame = pages(str(run["run_dir"]), _key(run))
    expected = run.get("n_pages")
    if isinstance(expected, int | float) and expected == expected and len(frame) != expected:
        raise MissingRuns(f"the page rows of {run['run_dir']}: {len(frame)} rows, the row says n_pages = {expected:g}")
    return frame


def has_pages(run: pd.Series) -> bool:
    """Whether :func:`run_pages` finds the row's run (its folder holding its run key, or its
    archive), without reading the pages."""
    key, folder = _key(run), Path(str(run.get("run_dir")))
    return _holds(folder, key) or (is_archived(key) if key else archived_run_dir(folder) is not None)


def _key(run: pd.Series) -> str | None:
    key = run.get("run_key")
    return key if isinstance(key, str) and key else None


def _holds(folder: Path, run_key: str | None) -> bool:
    """Whether ``folder`` has page rows and, given ``run_key``, is that run's."""
    return (folder / "pages.csv").is_file() and (run_key is None or run_key_of(folder / "summary.json") == run_key)
