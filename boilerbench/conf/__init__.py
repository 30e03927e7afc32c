"""The Hydra configs: a package, so that Hydra finds them as ``pkg://boilerbench.conf`` in an
installed wheel as in a checkout; and the config options that were renamed."""

from __future__ import annotations

from pathlib import Path

#: This folder: ``config.yaml`` and one folder per config group.
CONF_DIR = Path(__file__).parent

#: Renamed options of a config group: old name -> new name. The old name fails with one message
#: naming the new one (:func:`renamed_message`) rather than running under a misleading name:
#: ``html_to_text`` was the inscriptis library, easily taken for ``html_text`` (html-text).
RENAMED: dict[str, dict[str, str]] = {"extractor": {"html_to_text": "inscriptis"}}


def renamed_message(group: str, name: str) -> str | None:
    """The one-line error for option ``name`` of ``group`` when it was renamed, else None."""
    new = RENAMED.get(group, {}).get(name)
    return None if new is None else f"{group}={name} was renamed: use {group}={new}"


def group_options(group: str) -> list[str] | None:
    """The options of config group ``group`` (its YAML files), or None when it is not a folder of
    this package (e.g. ``hydra/launcher``, whose options Hydra's plugins register)."""
    folder = CONF_DIR / group
    if not group.isidentifier() or not folder.is_dir():
        return None
    return sorted(p.stem for p in folder.glob("*.yaml"))


def option_message(group: str, name: str) -> str | None:
    """The one-line error for option ``name`` of ``group`` when it was renamed or does not exist,
    else None (Hydra's own error is many lines and exits with status 1)."""
    renamed = renamed_message(group, name)
    options = group_options(group)
    if renamed or options is None or name in options or name == "null":
        return renamed
    return f"{group}={name}: no such option (choose from {', '.join(options)})"
