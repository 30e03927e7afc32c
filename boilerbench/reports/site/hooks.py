"""MkDocs hooks (``hooks:`` in ``mkdocs.yml``): the site is built from the results store.

- every page's directives are expanded from the store (:func:`.render.expand`), and a page that
  then quotes a figure the store does not hold fails the build (:func:`.check.problems`; the
  docstrings rendered into it: :func:`.check.docstring_problems`);
- the store's figures are copied in under ``results/``, the leaderboard's data is written as
  ``leaderboard-data.js``, and the per-page viewers that ``python -m boilerbench.reports.site
  viewers`` built (``build/viewer/<run>/``, or ``extra: viewers:`` in the config) are
  published under ``viewer/``.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from boilerbench.reports.site.check import docstring_problems, problems
from boilerbench.reports.site.leaderboard import VIEWERS, data_script
from boilerbench.reports.site.render import expand, generated_extractor_page, unlisted_names
from boilerbench.reports.site.store import STORE, Store

_store: Store | None = None


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Open the store beside ``mkdocs.yml``."""
    global _store
    _store = Store(_root(config) / STORE)
    return config


def _viewer_files(folder: Path, config: MkDocsConfig) -> tuple[list[File], set[str]]:
    files, slugs = [], set()
    for index in sorted(folder.glob("*/index.html")):
        slugs.add(index.parent.name)
        for path in sorted(index.parent.rglob("*")):
            if path.is_file():
                uri = f"viewer/{path.relative_to(folder).as_posix()}"
                files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files, slugs


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the store's figures, the leaderboard's data, the built viewers and the generated page of
    every extractor that has no hand-written one to the site."""
    assert _store is not None
    root = _root(config)
    for name in unlisted_names(Path(config.docs_dir) / "extractors"):
        files.append(File.generated(config, f"extractors/{name}.md", content=generated_extractor_page(name)))
    for png in sorted(_store.root.glob("fig_*.png")):
        files.append(File.generated(config, f"results/{png.name}", abs_src_path=str(png)))
    viewer_files, slugs = _viewer_files(root / config.extra.get("viewers", VIEWERS), config)
    for file in viewer_files:
        files.append(file)
    files.append(File.generated(config, "leaderboard-data.js", content=data_script(_store, slugs)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Expand the page's directives from the store, and refuse a figure the store does not hold."""
    assert _store is not None
    built = expand(markdown, _store)
    found = problems(built, _store)
    if found:
        raise PluginError(f"{page.file.src_uri}: " + "; ".join(found))
    return built


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Refuse a measured-looking number in the docstrings an extractor's or a dataset's page renders."""
    found = docstring_problems(html) if page.file.src_uri.startswith(("extractors/", "datasets/")) else []
    if found:
        raise PluginError(f"{page.file.src_uri}: " + "; ".join(found))
    return html
