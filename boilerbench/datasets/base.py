"""Dataset base class, splits, k-fold cross-validation and the search for the data folder."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from boilerbench.datasets.download import check_manifest, fetch_dataset, manifest_path
from boilerbench.datasets.page import Page
from boilerbench.errors import DatasetNotFoundError, check_choice

ENV_VAR = "BOILERBENCH_DATA"


@dataclass
class Split:
    """Train, validation and test pages of one split (``name`` says which)."""

    name: str
    train: list[Page] = field(default_factory=list)
    validation: list[Page] = field(default_factory=list)
    test: list[Page] = field(default_factory=list)


def kfold(pages: Sequence[Page], k: int = 5, seed: int = 0) -> list[Split]:
    """``k`` cross-validation splits of ``pages``; fold i tests on the i-th part and trains on
    the rest (there is no validation part).

    Pages cut by page: a fixed-seed permutation cut into k near-equal parts. When any page
    carries ``meta["group"]`` (its web site), the folds are cut by group instead (see
    :func:`group_folds`), so no site is in two folds; a page without a group is its own group.
    """
    if k < 2 or k > len(pages):
        raise ValueError(f"k-fold needs 2 <= k <= number of pages ({len(pages)}), got k={k}")
    if any(page.meta.get("group") for page in pages):
        parts = group_folds([page.meta.get("group") or f"\0{i}" for i, page in enumerate(pages)], k, seed)
        order = np.arange(len(pages))
    else:
        order = np.random.default_rng(seed).permutation(len(pages))
        parts = np.array_split(order, k)
    splits = []
    for i, part in enumerate(parts):
        held = set(part.tolist())
        splits.append(
            Split(
                name=f"fold{i + 1}of{k}",
                train=[pages[j] for j in order.tolist() if j not in held],
                test=[pages[j] for j in part.tolist()],
            )
        )
    return splits


def group_folds(groups: Sequence[str], k: int, seed: int = 0) -> list[np.ndarray]:
    """Page indices of ``k`` folds with no group in two folds and near-equal sizes.

    The groups, in a seeded random order of their sorted names, are sorted by size (largest
    first, the random order breaking ties) and each goes to the fold with the fewest pages so
    far (the lowest-numbered on a tie): the longest-processing-time rule, whose largest fold
    exceeds the smallest by at most the largest group. Indices are in page order in each fold.
    """
    members: dict[str, list[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    if k > len(members):
        raise ValueError(f"grouped k-fold needs k <= number of groups ({len(members)}), got k={k}")
    names = sorted(members)
    shuffled = [names[i] for i in np.random.default_rng(seed).permutation(len(names))]
    folds: list[list[int]] = [[] for _ in range(k)]
    for name in sorted(shuffled, key=lambda g: -len(members[g])):
        smallest = min(range(k), key=lambda f: len(folds[f]))
        folds[smallest].extend(members[name])
    return [np.array(sorted(fold), dtype=int) for fold in folds]


class Dataset(ABC):
    """A dataset on disk: where it is, how to fetch it, and how to read its splits.

    Where the data is looked for, in order: ``root`` if given (and only there); else
    ``$BOILERBENCH_DATA/<name>``; else ``<data_dir>/<name>``. When none holds the files and
    ``download`` is true, the pinned archives of ``source`` are fetched into the first place
    and checked against the dataset's checksum manifest. With ``verify`` (the default) the
    folder found is checked against that manifest before it is read (once: the verdict is
    cached, see :func:`boilerbench.datasets.download.check_manifest`). Every page loaded
    records the dataset's ``name`` as its ``source``.
    """

    #: Short name, also the folder name under the data directory.
    name: str = ""
    #: Valid values of ``split``; the first is the default.
    splits: tuple[str, ...] = ("all",)
    #: Paths (relative to the root) whose presence shows the dataset is there.
    required: tuple[str, ...] = ()

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        split: str | None = None,
        data_dir: str | os.PathLike[str] = "data",
        download: bool = True,
        source: Mapping | None = None,
        verify: bool = True,
    ) -> None:
        self.root = root
        self.split = split if split is not None else self.splits[0]
        self.data_dir = data_dir
        self.download = download
        self.source = source
        self.verify = verify

    def candidates(self) -> list[Path]:
        """The folders searched, in order."""
        if self.root not in (None, ""):
            return [Path(self.root)]
        found = []
        env = os.environ.get(ENV_VAR)
        if env:
            found.append(Path(env) / self.name)
        found.append(Path(self.data_dir) / self.name)
        return found

    def is_complete(self, folder: Path) -> bool:
        """True when every required path exists under ``folder``."""
        return all((folder / rel).exists() for rel in self.required)

    def locate(self) -> Path:
        """The dataset folder; fetches it if allowed; else raises one clear error."""
        candidates = self.candidates()
        for folder in candidates:
            if self.is_complete(folder):
                return folder
        looked = ", ".join(str(c.resolve()) for c in candidates)
        fetch_error = ""
        if self.download and self.source:
            target = candidates[0]
            try:
                fetch_dataset(self.source, target)
                return target
            except (OSError, ValueError) as err:
                fetch_error = f" Download into {target} failed: {err}."
        how = ""
        if self.source and self.source.get("archives"):
            urls = " and ".join(a["url"] for a in self.source["archives"])
            how = f" Get it from {urls} (see docs/configuration.md, 'Where the data is looked for')."
        elif self.source and self.source.get("homepage"):
            how = f" Get it as {self.source['homepage']} describes (see the dataset's page in docs/datasets/)."
        raise DatasetNotFoundError(
            f"Dataset '{self.name}' not found. Looked in: {looked}.{fetch_error}{how} "
            f"Set {ENV_VAR} to the folder that holds '{self.name}/', or pass dataset.root=PATH."
        )

    def load(self) -> Split:
        """Load the pages of the configured split (after the manifest check, see the class docstring)."""
        check_choice(f"dataset.split (for {self.name})", self.split, self.splits)
        root = self.locate()
        if self.verify and self.source and self.source.get("manifest"):
            check_manifest(root, manifest_path(self.source["manifest"]), self.name)
        split = self.load_split(root, self.split)
        for page in (*split.train, *split.validation, *split.test):
            page.source = page.source or self.name
        return split

    @abstractmethod
    def load_split(self, root: Path, split: str) -> Split:
        """Read the pages of ``split`` from ``root``."""
