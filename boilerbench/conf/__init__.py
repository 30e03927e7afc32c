"""The Hydra configs: a package, so that Hydra finds them as ``pkg://boilerbench.conf`` in an
installed wheel as in a checkout; and the config options that were renamed."""

from __future__ import annotations

#: Renamed options of a config group: old name -> new name. The old name fails with one message
#: naming the new one (:func:`renamed_message`) rather than running under a misleading name:
#: ``html_to_text`` was the inscriptis library, easily taken for ``html_text`` (html-text).
RENAMED: dict[str, dict[str, str]] = {"extractor": {"html_to_text": "inscriptis"}}


def renamed_message(group: str, name: str) -> str | None:
    """The one-line error for option ``name`` of ``group`` when it was renamed, else None."""
    new = RENAMED.get(group, {}).get(name)
    return None if new is None else f"{group}={name} was renamed: use {group}={new}"
