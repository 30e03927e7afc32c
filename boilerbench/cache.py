"""The content-addressed cache of derived artefacts, and the code versions that key it.

Per-page artefacts (gold labels, features, embeddings, detected encodings) are keyed by a hash
of their inputs (the page's HTML, the gold text, ...) and by the code version of the step that
made them, and written atomically, so sweeps reuse them and a killed run leaves no half-written
file. One process-wide cache is active; the runner points it at ``paths.cache_dir``; with none
configured, artefacts are computed and not stored. The fitted-model cache
(:mod:`boilerbench.experiments.model_cache`) keys models by the same :func:`code_version`.

A code version is derived from the source, never written by hand: :func:`code_version` hashes
the syntax tree of a module and of every module of the project that it imports, directly or
through others. A change to the code that made an artefact therefore invalidates it, while a
change to a docstring, a comment or the formatting does not (they are not in the hashed tree).
A hand-bumped version number was the alternative; it is forgotten exactly when it matters, and
then a table silently reports a model that the code no longer makes.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import io
import logging
import os
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import numpy as np
from filelock import FileLock

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


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    """Drop the docstring of the module and of every class and function (in place)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
    return tree


def _imported_modules(tree: ast.AST, name: str, is_package: bool) -> Iterator[str]:
    """Absolute names of what ``tree`` (module ``name``) imports: modules, and for ``from M import
    x`` both ``M`` and ``M.x`` (which is a module when ``x`` is a submodule)."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (
                importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                if node.level
                else node.module
            )
            if base:
                yield base
                yield from (f"{base}.{alias.name}" for alias in node.names)


@functools.cache
def _root_location(root: str) -> Path | None:
    """The folder (package) or file (module) of a top-level module, found without importing it."""
    try:
        spec = importlib.util.find_spec(root)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    origin = Path(spec.origin)
    return origin.parent if spec.submodule_search_locations is not None else origin


def _module_source(name: str) -> tuple[Path, bool] | None:
    """(source file, is a package) of a pure-Python module, looked up on disk (nothing is imported)."""
    root, _, rest = name.partition(".")
    location = _root_location(root)
    if location is None:
        return None
    if location.is_file():
        return (location, False) if not rest else None
    base = location.joinpath(*rest.split(".")) if rest else location
    if (base / "__init__.py").is_file():
        return base / "__init__.py", True
    if rest and base.with_suffix(".py").is_file():
        return base.with_suffix(".py"), False
    return None


@functools.cache
def code_version(module: str, *distributions: str) -> str:
    """A 16-hex digest of the code behind ``module``: the syntax trees, docstrings left out, of
    ``module`` and of every module of its own top-level package or of ``boilerbench`` that it
    imports, transitively. Third-party code is not followed: name the installed
    ``distributions`` whose versions matter (``"chardet"``), and their versions are hashed too."""
    roots = {"boilerbench", module.partition(".")[0]}
    trees: dict[str, str] = {}
    pending = [module]
    while pending:
        name = pending.pop()
        if name in trees:
            continue
        found = _module_source(name)
        if found is None:
            if name == module:
                raise ValueError(f"no Python source for module {module!r}")
            continue
        origin, is_package = found
        tree = ast.parse(origin.read_text(encoding="utf-8"), filename=str(origin))
        trees[name] = ast.dump(_strip_docstrings(tree))
        pending.extend(m for m in _imported_modules(tree, name, is_package) if m.partition(".")[0] in roots)
    installed = []
    for distribution in distributions:
        try:
            installed.append(f"{distribution}=={metadata.version(distribution)}")
        except metadata.PackageNotFoundError:
            installed.append(f"{distribution} (not installed)")
    return content_key(*(f"{name}\n{trees[name]}" for name in sorted(trees)), *installed)[:16]


def _entry(step: str, version: str, key_parts: tuple, suffix: str) -> Path | None:
    """Where the value of (``step``, ``version``, ``key_parts``) is stored; None without a cache."""
    if _cache_dir is None:
        return None
    key = content_key(*key_parts)
    return _cache_dir / step / version / key[:2] / f"{key}{suffix}"


def is_cached_array(step: str, version: str, key_parts: tuple[str | bytes, ...]) -> bool:
    """Whether :func:`cached_array` would read (``step``, ``version``, ``key_parts``) from disk
    (lets a caller batch the computation of the missing ones)."""
    path = _entry(step, version, key_parts, ".npy")
    return path is not None and path.is_file()


#: Lock files of the cache (``<cache>/.locks/<step>.<shard>.lock``): one per step and two hex digits
#: of the key, so a cache of millions of entries has a few thousand lock files, not millions.
LOCKS = ".locks"


def entry_lock(path: Path) -> FileLock:
    """The inter-process lock that guards the computation of the cache entry ``path``: two processes
    that miss the same entry at once compute it once, the second waiting and then reading it
    (entries of one step that share the key's first two hex digits share a lock). The kernel
    releases it when its holder dies, however it dies."""
    root = path.parents[3]
    (root / LOCKS).mkdir(parents=True, exist_ok=True)
    return lock_file(root / LOCKS / f"{path.parents[2].name}.{path.parent.name}.lock")


@functools.cache
def lock_file(path: Path) -> FileLock:
    """One :class:`FileLock` object per lock file and process, so that a thread that already holds
    it (a computation that needs another entry of the same shard) takes it again instead of
    waiting for itself."""
    return FileLock(path)


def _read_entry(path: Path, read: Callable) -> tuple[bool, object]:
    """(found, value) of the entry ``path``; a corrupt entry counts as missing (logged, never trusted)."""
    try:
        return True, read(path)
    except FileNotFoundError:
        return False, None
    except (ValueError, OSError) as err:
        log.warning("ignoring unreadable cache entry %s: %s", path, err)
        return False, None


def _cached(step: str, version: str, key_parts: tuple, compute: Callable, suffix: str, read: Callable, write: Callable):
    """The shared lookup: hash the inputs (only when a cache is active), read, or compute and store
    (under :func:`entry_lock`, reading again once it is held: another process may have stored it)."""
    path = _entry(step, version, key_parts, suffix)
    if path is None:
        return compute()
    found, value = _read_entry(path, read)
    if found:
        return value
    with entry_lock(path):
        found, value = _read_entry(path, read)
        if not found:
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


def _size(path: Path) -> tuple[int, int]:
    """Number of files under ``path`` and their total size in bytes."""
    files = [p for p in path.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def cache_report(root: Path) -> list[tuple[str, str, int, int]]:
    """(step, code version, files, bytes) of every artefact family under the cache ``root``."""
    if not root.is_dir():
        return []
    rows = []
    for step in sorted(p for p in root.iterdir() if p.is_dir()):
        for version in sorted(p for p in step.iterdir() if p.is_dir()):
            rows.append((step.name, version.name, *_size(version)))
    return rows


if __name__ == "__main__":  # the former command line, now a subcommand (boilerbench.commands.cache)
    print("error: python -m boilerbench.cache is now: boilerbench cache info|clear|verify", file=sys.stderr)
    raise SystemExit(2)
