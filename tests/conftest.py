"""Shared fixtures: hand-made pages, a tiny dataset folder, the real data when available."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boilerbench.cache import set_cache_dir
from boilerbench.engine.pool import one_thread

PROJECT = Path(__file__).resolve().parents[1]

#: A small page whose blocks, separators and tag counts are worked out by hand in the tests.
NAV_PAGE = (
    "<html><head><title>T</title><script>var x = 1;</script></head><body>\n"
    '<div id="nav"><a href="/">Home</a> | <a href="/about">About</a></div>\n'
    "<p>Hello <b>wor</b>ld, friend.</p>\n"
    "<ul><li>one</li><li>two</li></ul><img src=x>tail\n"
    "</body></html>"
)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test`` runs two workers), each worker computes on one thread,
    so that N workers keep N cores busy instead of fighting over them."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        one_thread()


@pytest.fixture(autouse=True)
def _no_disk_cache():
    """Tests compute artefacts fresh unless they point the cache somewhere themselves."""
    set_cache_dir(None)
    yield
    set_cache_dir(None)


def real_data_root() -> Path | None:
    env = os.environ.get("BOILERBENCH_DATA")
    return Path(env) if env and Path(env).is_dir() else None


@pytest.fixture
def data_root() -> Path:
    root = real_data_root()
    if root is None:
        pytest.skip("BOILERBENCH_DATA is not set: real-dataset tests skipped")
    return root


def write_pairs(folder: Path, pages: dict[str, tuple[str | bytes, str]]) -> Path:
    """Write NAME.html + NAME.txt pairs (a plaintext dataset) and return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (html, gold) in pages.items():
        data = html if isinstance(html, bytes) else html.encode("utf-8")
        (folder / f"{name}.html").write_bytes(data)
        (folder / f"{name}.txt").write_text(gold, encoding="utf-8")
    return folder
