"""Pages, loaders, the canonical block segmentation and gold labels."""

from boilerbench.datasets.align import align_labels
from boilerbench.datasets.base import Dataset, Split, kfold
from boilerbench.datasets.blocks import Blocks, segment
from boilerbench.datasets.page import Page

__all__ = ["Blocks", "Dataset", "Page", "Split", "align_labels", "kfold", "segment"]
