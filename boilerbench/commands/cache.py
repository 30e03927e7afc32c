"""``boilerbench cache info|clear|verify``: what the artefact cache holds (files and size per step
and code version), removing it (whole, or some steps), or checking every entry of the artefact
and model caches and removing the bad ones (:mod:`boilerbench.cache_verify`)."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Sequence
from pathlib import Path

from boilerbench.cache import cache_report
from boilerbench.cache_verify import verify
from boilerbench.errors import ArgumentParser


def parser() -> argparse.ArgumentParser:
    """The options of ``boilerbench cache``."""
    top = ArgumentParser(prog="boilerbench cache", description=__doc__.splitlines()[0])
    actions = top.add_subparsers(dest="action", required=True, parser_class=ArgumentParser)
    info = actions.add_parser("info", help="files and MB per artefact family and code version")
    clear = actions.add_parser("clear", help="remove the artefact cache, or some of its families")
    clear.add_argument("steps", nargs="*", help="only these artefact families (default: all)")
    check = actions.add_parser("verify", help="check every entry, remove the bad ones (the next run remakes them)")
    check.add_argument("--models", type=Path, default=Path("models"), help="the model cache (paths.model_dir)")
    check.add_argument("--dry-run", action="store_true", help="report the bad entries, remove nothing")
    for action in (info, clear, check):
        action.add_argument("--dir", type=Path, default=Path(".cache/boilerbench"), help="the cache (paths.cache_dir)")
    return top


def show(root: Path) -> int:
    """One line per artefact family and code version, and the total."""
    rows = cache_report(root)
    print(f"{'step':<24} {'code version':<20} {'files':>9} {'MB':>10}")
    for step, version, files, size in rows:
        print(f"{step:<24} {version:<20} {files:>9,} {size / 1e6:>10.1f}")
    print(f"{'total':<45} {sum(r[2] for r in rows):>9,} {sum(r[3] for r in rows) / 1e6:>10.1f}  ({root})")
    return 0


def clear(root: Path, steps: Sequence[str]) -> int:
    """Remove the families ``steps`` (all when empty) from the cache."""
    rows = [r for r in cache_report(root) if not steps or r[0] in steps]
    for step in sorted({r[0] for r in rows}):
        shutil.rmtree(root / step)
    print(f"removed {sum(r[2] for r in rows):,} files, {sum(r[3] for r in rows) / 1e6:.1f} MB from {root}")
    return 0


def check(root: Path, models: Path, dry_run: bool) -> int:
    """One line per bad entry, a total; exit status 1 when any was bad."""
    report = verify(root, models, remove=not dry_run)
    for path, problem in report.bad:
        print(f"{'bad' if dry_run else 'removed'}: {path}: {problem}")
    print(f"{report.checked} entries checked, {len(report.bad)} bad ({root}, {models})")
    return 1 if report.bad else 0


def main(argv: Sequence[str]) -> int:
    """Run ``boilerbench cache ACTION``; its exit status."""
    args = parser().parse_args(argv)
    if args.action == "info":
        return show(args.dir)
    if args.action == "clear":
        return clear(args.dir, args.steps)
    return check(args.dir, args.models, args.dry_run)
