"""On-disk cache of derived per-page artefacts (gold labels, features).

Entries are keyed by a hash of their inputs (the page's HTML, the gold text, ...) and of the
code version of the step that made them, and written atomically, so sweeps reuse them and a
killed run leaves no half-written file. One process-wide cache is active; the runner points
it at ``paths.cache_dir``; with none configured, artefacts are computed and not stored.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from boilerbench.atomic import atomic_write_bytes

log = logging.getLogger(__name__)
_cache_dir: Path | None = None


def set_cache_dir(path: str | os.PathLike[str] | None) -> None:
    """Activate the disk cache under ``path`` (None disables it)."""
    global _cache_dir
    _cache_dir = Path(path) if path is not None else None


def cache_dir() -> Path | None:
    """The active cache folder, or None."""
    return _cache_dir


def content_key(*parts: str | bytes) -> str:
    """A hex digest identifying ``parts`` (order matters; parts are length-prefixed)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", errors="surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _cached(step: str, version: str, key_parts: tuple, compute: Callable, suffix: str, read: Callable, write: Callable):
    """The shared lookup: hash the inputs (only when a cache is active), read, or compute and store."""
    if _cache_dir is None:
        return compute()
    key = content_key(*key_parts)
    path = _cache_dir / step / version / key[:2] / f"{key}{suffix}"
    try:
        return read(path)
    except FileNotFoundError:
        pass
    except (ValueError, OSError) as err:  # a corrupt entry is recomputed, never trusted
        log.warning("ignoring unreadable cache entry %s: %s", path, err)
    value = compute()
    atomic_write_bytes(path, write(value))
    return value


def _npy_bytes(value: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, value, allow_pickle=False)
    return buf.getvalue()


def cached_array(
    step: str, version: str, key_parts: tuple[str | bytes, ...], compute: Callable[[], np.ndarray]
) -> np.ndarray:
    """Return the array cached for (``step``, ``version``, ``key_parts``), computing and storing it
    on a miss. The inputs are hashed only when a cache is active."""
    return _cached(step, version, key_parts, compute, ".npy", lambda p: np.load(p, allow_pickle=False), _npy_bytes)


def cached_text(step: str, version: str, key_parts: tuple[str | bytes, ...], compute: Callable[[], str]) -> str:
    """Like :func:`cached_array`, for a short text value (stored as UTF-8)."""
    return _cached(
        step, version, key_parts, compute, ".txt", lambda p: p.read_bytes().decode("utf-8"), lambda v: v.encode("utf-8")
    )
