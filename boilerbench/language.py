"""Page language: detected from the HTML's visible text, or the dataset's label where it has one.

The identifier is py3langid (Lui & Baldwin, "langid.py: An Off-the-shelf Language Identification
Tool", ACL 2012; the fork by A. Barbaresi): a naive Bayes model over byte n-grams for 97 languages
whose weights ship inside its wheel (``py3langid/data/model.npz.xz``), so nothing is downloaded,
ever. Why this one and not langdetect: see docs/datasets/index.md ("Page language") and
``studies/language_id.py``, which measures both on the labelled pages.

Codes are lowercase ISO 639-1 (``"en"``, ``"zh"``, ``"el"``); where a language has none, the
identifier's ISO 639-3 code (``"ace"``). ``""`` means "cannot say": see :func:`detect`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lxml import etree

from boilerbench.html_tree import body_of, parse_html

if TYPE_CHECKING:
    from boilerbench.datasets.page import Page

#: A text with fewer letters (``str.isalpha`` characters, which counts each Han character and
#: kana) in its sample is too short to say: ``detect`` returns "".
MIN_LETTERS = 20
#: Below this probability of the best language (py3langid's normalised posterior, its softmax
#: tempered by the square root of the byte length) ``detect`` returns "".
MIN_CONFIDENCE = 0.5
#: ``detect`` classifies at most this many characters: the longest lines of the text, longest first
#: (navigation and footers are short lines, the body's paragraphs long ones), so a long page costs
#: what a short one does. 5,000 is where accuracy on DANIEL's and Chinese WCE's visible text stops
#: rising (studies/language_id.py, last table).
SAMPLE_CHARS = 5_000
#: ``page_text_sample`` stops collecting text after this many characters.
PAGE_TEXT_CHARS = 50_000

#: py3langid labels that are not ISO 639-1, mapped to the ISO 639-1 code of their macrolanguage
#: (Wu and Cantonese -> Chinese, Moroccan and Egyptian Arabic -> Arabic, ...). ``zxx`` ("no
#: linguistic content") maps to "". Other 639-3 labels without a 639-1 code are kept as they are.
_TO_ISO_639_1 = {
    "wuu": "zh",
    "yue": "zh",
    "ary": "ar",
    "arz": "ar",
    "uzs": "uz",
    "sdh": "ku",
    "fuv": "ff",
    "gug": "gn",
    "kik": "ki",
    "hbo": "he",
    "zxx": "",
}

#: jusText's stoplist names by ISO 639-1 code: every name ``justext.get_stoplists()`` lists whose
#: CLDR English language name (Unicode CLDR via babel, accents dropped, spaces as "_") has an
#: ISO 639-1 code; "no" (py3langid's Norwegian) reads the Bokmål list. The stoplists without an
#: ISO 639-1 language (Asturian, Cebuano, Low_Saxon, Simple_English ...) are not reachable.
#: tests/test_language.py checks every name against jusText.
_JUSTEXT_STOPLISTS = dict(
    pair.split("=")
    for pair in """
    af=Afrikaans an=Aragonese ar=Arabic az=Azerbaijani be=Belarusian bg=Bulgarian bn=Bengali br=Breton bs=Bosnian
    ca=Catalan cs=Czech cv=Chuvash cy=Welsh da=Danish de=German el=Greek en=English eo=Esperanto es=Spanish
    et=Estonian eu=Basque fa=Persian fi=Finnish fr=French fy=West_Frisian ga=Irish gl=Galician gu=Gujarati
    he=Hebrew hi=Hindi hr=Croatian ht=Haitian hu=Hungarian hy=Armenian id=Indonesian ig=Igbo io=Ido is=Icelandic
    it=Italian jv=Javanese ka=Georgian kk=Kazakh kn=Kannada ko=Korean ku=Kurdish ky=Kyrgyz la=Latin
    lb=Luxembourgish lt=Lithuanian lv=Latvian mk=Macedonian ml=Malayalam mr=Marathi ms=Malay mt=Maltese
    nb=Norwegian_Bokmal ne=Nepali nl=Dutch nn=Norwegian_Nynorsk no=Norwegian_Bokmal oc=Occitan pl=Polish
    pt=Portuguese qu=Quechua ro=Romanian ru=Russian sk=Slovak sl=Slovenian sq=Albanian sr=Serbian su=Sundanese
    sv=Swedish sw=Swahili ta=Tamil te=Telugu tk=Turkmen tl=Tagalog tr=Turkish uk=Ukrainian ur=Urdu uz=Uzbek
    vi=Vietnamese vo=Volapuk wa=Walloon yo=Yoruba
    """.split()
)

#: Elements whose text a browser does not show.
_INVISIBLE = ("script", "style", "noscript", "template")
#: Their text nodes (a string, evaluated per call: a compiled ``etree.XPath`` is one evaluator that
#: threads would share).
_VISIBLE_TEXT = ".//text()[not(" + " or ".join(f"ancestor::{tag}" for tag in _INVISIBLE) + ")]"

#: A language identifier: a text sample -> (ISO 639-1 code, probability).
Identifier = Callable[[str], tuple[str, float]]

_lock = threading.Lock()
_identifier: Any = None


def _model() -> Any:
    """py3langid's identifier with normalised probabilities, loaded once (about 0.5 s) on first
    use. Classifying only reads it, so threads share it."""
    global _identifier
    with _lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        return _identifier


def text_sample(text: str, limit: int = SAMPLE_CHARS) -> str:
    """The longest lines of ``text`` (longest first, ties in text order), whitespace-collapsed, up
    to ``limit`` characters: the part of a page most likely to be running prose."""
    lines = sorted((" ".join(line.split()) for line in text.splitlines()), key=len, reverse=True)
    taken: list[str] = []
    size = 0
    for line in lines:
        if not line or size >= limit:
            break
        taken.append(line[: limit - size])
        size += len(taken[-1]) + 1
    return "\n".join(taken)


def identify(sample: str) -> tuple[str, float]:
    """py3langid's most probable language for ``sample`` (ISO 639-1 where one exists, "" for "no
    linguistic content") and its probability."""
    label, confidence = _model().classify(sample)
    return _TO_ISO_639_1.get(label, label), confidence


def detect(text: str, identifier: Identifier = identify, sample_chars: int = SAMPLE_CHARS) -> str:
    """The language of ``text`` as a lowercase ISO 639-1 code, or "" when it cannot say: fewer
    than :data:`MIN_LETTERS` letters in the sample (:func:`text_sample` of ``sample_chars``), or
    the best language's probability below :data:`MIN_CONFIDENCE`. Deterministic and thread-safe.
    ``identifier`` replaces py3langid (studies/language_id.py compares another under this rule)."""
    sample = text_sample(text, sample_chars)
    if sum(ch.isalpha() for ch in sample) < MIN_LETTERS:
        return ""
    code, confidence = identifier(sample)
    return code if confidence >= MIN_CONFIDENCE else ""


def page_text_sample(html: str | etree._Element, limit: int = PAGE_TEXT_CHARS) -> str:
    """The visible text of a page's ``<body>`` (without script, style, noscript and template), one
    line per text node, up to about ``limit`` characters. ``html`` is an HTML string or an
    already parsed lxml tree (not modified)."""
    root = parse_html(html) if isinstance(html, str) else html
    body = body_of(root)
    if body is None:
        return ""
    lines: list[str] = []
    size = 0
    for node in body.xpath(_VISIBLE_TEXT, smart_strings=False):
        line = " ".join(str(node).split())
        if line:
            lines.append(line)
            size += len(line) + 1
            if size >= limit:
                break
    return "\n".join(lines)


def page_language(page: Page) -> str:
    """The page's language: the dataset's label (``page.meta["language"]``) where it has one, else
    :func:`detect` of its gold text (the main content, the language a reader of the page reads),
    else of its HTML's visible text. For recording and reporting only: an extractor sees no
    labels nor gold and calls :func:`detect` on the page itself."""
    label = page.meta.get("language")
    if label:
        return str(label).lower()
    return detect(page.gold_text) or detect(page_text_sample(page.html))


def justext_stoplist(code: str) -> str | None:
    """The name of jusText's stoplist for an ISO 639-1 ``code`` (``"ru"`` -> ``"Russian"``), or
    ``None`` when jusText has none (Chinese, Japanese, Thai)."""
    return _JUSTEXT_STOPLISTS.get(code.lower())
