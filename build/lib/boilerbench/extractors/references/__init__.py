"""Third-party extractors as comparison rows: one small adapter per library over one shared
wrapper (:mod:`.base`: lazy import, version, size limit, error isolation).

Each returns text only and is scored at block level by aligning its text to the page's blocks,
like any text-only method. The packages are in the ``refs`` extra (``pip install -e
".[refs]"``) and imported when the extractor is instantiated, so selecting one without the
extra fails at once with the install command. Settings are the libraries' defaults except where
an adapter says otherwise; Bevendorff et al. (SIGIR 2023) also ran them with defaults.
"""

from boilerbench.extractors.references.base import INSTALL_HINT, PageTooLargeError, ReferenceExtractor, require
from boilerbench.extractors.references.boilerpipe import Boilerpipe
from boilerbench.extractors.references.goose import Goose
from boilerbench.extractors.references.html_text import HtmlText
from boilerbench.extractors.references.inscriptis import Inscriptis
from boilerbench.extractors.references.justext import JusText
from boilerbench.extractors.references.newspaper import Newspaper
from boilerbench.extractors.references.readabilipy import ReadabiliPy
from boilerbench.extractors.references.readability import Readability
from boilerbench.extractors.references.resiliparse import Resiliparse
from boilerbench.extractors.references.trafilatura import Trafilatura

#: Every adapter, by class.
ADAPTERS: tuple[type[ReferenceExtractor], ...] = (
    Trafilatura,
    Readability,
    JusText,
    Boilerpipe,
    Inscriptis,
    Resiliparse,
    Goose,
    Newspaper,
    HtmlText,
    ReadabiliPy,
)

#: Distribution names whose versions every run records (those installed).
REFERENCE_PACKAGES = tuple(dict.fromkeys(a.DISTRIBUTION for a in ADAPTERS))

__all__ = [
    "ADAPTERS",
    "INSTALL_HINT",
    "REFERENCE_PACKAGES",
    "Boilerpipe",
    "Goose",
    "HtmlText",
    "Inscriptis",
    "JusText",
    "Newspaper",
    "PageTooLargeError",
    "ReadabiliPy",
    "Readability",
    "ReferenceExtractor",
    "Resiliparse",
    "Trafilatura",
    "require",
]
