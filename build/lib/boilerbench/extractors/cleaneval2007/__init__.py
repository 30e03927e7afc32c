"""The simple systems of the CleanEval 2007 competition (papers/002; ALGORITHMS.md)."""

from boilerbench.extractors.cleaneval2007.genieknows import GenieKnows
from boilerbench.extractors.cleaneval2007.htmlcleaner import HTMLCleaner
from boilerbench.extractors.cleaneval2007.kimatu import Kimatu
from boilerbench.extractors.cleaneval2007.stupidos import StupidOS
from boilerbench.extractors.cleaneval2007.wcc import WCC

__all__ = ["GenieKnows", "HTMLCleaner", "Kimatu", "StupidOS", "WCC"]
