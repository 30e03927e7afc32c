"""Shared fixtures: hand-made pages, a tiny dataset folder, the real data when available."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from boilerbench.cache import set_cache_dir
from boilerbench.cpu_kernels import pin_cpu_kernels
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

#: Forty distinct words: an article's text in the hand-made pages below.
ARTICLE = " ".join(f"word{i}" for i in range(40))
#: Two pages with their gold (a plaintext dataset for ``write_pairs``): an article under a link
#: menu and above a copyright line; a heading and a short story under a menu list.
TWO_PAGES = {
    "a": (f"<body><div><a>Home</a> <a>News</a></div><p>{ARTICLE}</p><p>Copyright 2024</p></body>", ARTICLE),
    "b": (
        "<body><ul><li><a>Menu</a></li></ul><h1>Title</h1><p>Short story here.</p></body>",
        "Title Short story here.",
    ),
}


def pytest_configure(config: pytest.Config) -> None:
    """torch's CPU kernels pinned as the entry points pin them (:mod:`boilerbench.cpu_kernels`),
    so that the pinned figures (tests/baselines.json) hold on any x86-64 machine; under
    pytest-xdist (``make test`` runs two workers), each worker computes on one thread, so that N
    workers keep N cores busy instead of fighting over them."""
    pin_cpu_kernels()
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


def scored_run(folder: Path, column: str, scores: dict[str, list[float]], **row: object) -> dict:
    """A runs.csv row of a run in ``folder`` whose pages.csv gives the pages of each value of
    ``column`` (``language``: summary prefix ``lang``; ``page_type``: ``type``) those token F1s,
    with the summary's page count and mean per value, and ``row``'s other columns."""
    folder.mkdir()
    lines = [f"page_id,{column},token_f1"]
    lines += [f"{value}{k},{value},{f1}" for value, values in scores.items() for k, f1 in enumerate(values)]
    (folder / "pages.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    prefix = {"language": "lang", "page_type": "type"}[column]
    out = {"run_dir": str(folder), "finished_at": "2026-12-03T00:00:00", **row}
    for value, values in scores.items():
        out[f"{prefix}.{value}.n_pages"] = len(values)
        out[f"{prefix}.{value}.token.f1"] = float(np.mean(values))
    return out
