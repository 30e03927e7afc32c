"""``python -m boilerbench.reports.site readme|check|viewers``.

- ``readme``: rewrite README.md's store blocks (the headline table) from the results store;
- ``check``: expand every page of ``docs/`` and README.md from the store and list each figure the
  store does not hold (exit 1 if any);
- ``viewers``: build the per-page viewer of each headline run found on this machine into
  ``build/viewer/`` (the site publishes them and links them from the leaderboard).
"""

from __future__ import annotations

import sys
from pathlib import Path

from boilerbench.atomic import atomic_write_text
from boilerbench.reports.site.check import problems
from boilerbench.reports.site.leaderboard import VIEWER_REPORTS, VIEWERS, leaderboard_runs, viewer_slug
from boilerbench.reports.site.render import expand, fill_verbatim
from boilerbench.reports.site.store import Store

README = Path("README.md")
DOCS = Path("docs")


def readme(store: Store, path: Path = README) -> bool:
    """Rewrite the README's store blocks; True when it changed."""
    old = path.read_text(encoding="utf-8")
    new = fill_verbatim(old, store)
    if new != old:
        atomic_write_text(path, new)
    return new != old


def check(store: Store, pages: list[Path]) -> list[str]:
    """Every problem of every page (``file: problem``)."""
    found = []
    for page in pages:
        built = expand(page.read_text(encoding="utf-8"), store)
        found += [f"{page}: {problem}" for problem in problems(built, store)]
    return found


def viewers(store: Store, out: Path = VIEWERS) -> list[str]:
    """Build the viewer of each headline run whose folder is on this machine; the slugs built."""
    from boilerbench.reports.inspect import build

    built = []
    runs = leaderboard_runs(store.runs)
    for run_dir in runs[runs["report"].isin(VIEWER_REPORTS)]["run_dir"]:
        if not (Path(run_dir) / "pages.csv").is_file():
            print(f"{run_dir}: not on this machine, no viewer", file=sys.stderr)
            continue
        slug = viewer_slug(run_dir)
        build([run_dir], out / slug)
        built.append(slug)
    return built


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("readme", "check", "viewers"):
        print("usage: python -m boilerbench.reports.site readme|check|viewers", file=sys.stderr)
        return 2
    store = Store()
    if argv[0] == "readme":
        print("README.md rewritten" if readme(store) else "README.md is up to date")
        return 0
    if argv[0] == "viewers":
        print(f"{len(viewers(store))} viewers in {VIEWERS}")
        return 0
    found = check(store, [README, *sorted(DOCS.rglob("*.md"))])
    print("\n".join(found) or "every figure on every page is the store's")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
