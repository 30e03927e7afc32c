"""The one script-aware tokenizer of the metrics and the aligner.

CleanEval's scorer splits on whitespace, which makes a Chinese, Japanese or Thai paragraph one
"word": every score on such a page is meaningless. Here a page's tokenizer is chosen once per
page and used for both sides of every comparison (gold and prediction, gold and blocks):

- ``whitespace``: CleanEval's rule (lowercase, delete ``, ; : . ? !``, split on whitespace).
  Latin, Greek, Cyrillic and every other space-delimited script. For a text with no Han, kana
  or Thai character this is also what the other tokenizers return, bit for bit, so no Latin
  score moves.
- ``zh``: the whitespace rule, then each run of Han characters is segmented into words with
  jieba (precise mode, its bundled dictionary), kana runs into characters, Thai runs as ``th``.
- ``ja``: the same, but Han runs become characters too (Japanese mixes Han and kana inside
  words; jieba's Chinese dictionary would cut Japanese compounds arbitrarily, and
  dictionary-based Japanese analysers (MeCab with UniDic, Sudachi) bring 50-100 MB of
  dictionary for a metric; character tokens are the usual choice for CJK edit-distance scores).
- ``th``: Thai runs segmented with PyThaiNLP's ``newmm`` (dictionary maximal matching, its
  bundled word list).

Why words for Chinese (``studies/tokenizer_speed.py`` measures it on the hand-made pages of
``tests/data/chinese``): with character tokens a few hundred very frequent characters (的, 是,
在, 一) match all over unrelated text, so an LCS-based score credits boilerplate; jieba's words
match far less by accident, and their counts are what Chinese readers call words.

In the segmenting tokenizers the full-width forms of CleanEval's deleted punctuation
(``，；：。？！`` and the ideographic comma ``、``) are deleted too; any other run of
characters (Latin letters, digits, brackets) inside a whitespace token stays one token.

The tokenizer of a page is its dataset's ``language`` hint when there is one (``zh*``, ``ja``,
``th``, anything else = ``whitespace``), else detected from the text: kana means ``ja``, Han
without kana ``zh``, Thai ``th``, none of them ``whitespace``.

DESIGN.md suggests ``evaluation/tokenize.py``; the module sits on the package's ground floor
instead because the aligner (``datasets``) uses it too, and ``datasets`` must not import
``evaluation``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable

from boilerbench.errors import import_optional

TOKENIZERS = ("whitespace", "zh", "ja", "th")

_DELETED = ",;:.?!"
_DELETED_FULLWIDTH = "，；：。？！、｡､"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_THAI = "\u0e00-\u0e7f"
#: Han and kana: the scripts written without spaces between words (a character class body).
CJK = _KANA + _HAN
_KANA_RE = re.compile(f"[{_KANA}]")
_HAN_RE = re.compile(f"[{_HAN}]")
_THAI_RE = re.compile(f"[{_THAI}]")
_SEGMENTED_RE = re.compile(f"[{_KANA}{_HAN}{_THAI}]")
#: one script run: Han, kana, Thai, or anything else (a whitespace token has no whitespace)
_RUNS = re.compile(f"([{_HAN}]+)|([{_KANA}]+)|([{_THAI}]+)|([^{_KANA}{_HAN}{_THAI}]+)")
_FULLWIDTH_TABLE = str.maketrans("", "", _DELETED_FULLWIDTH)


def detect_tokenizer(text: str) -> str:
    """The tokenizer for a text by its script: kana ``ja``, Han ``zh``, Thai ``th``, else ``whitespace``."""
    if text.isascii():
        return "whitespace"
    if _KANA_RE.search(text):
        return "ja"
    if _HAN_RE.search(text):
        return "zh"
    if _THAI_RE.search(text):
        return "th"
    return "whitespace"


def tokenizer_for(language: str | None, text: str = "") -> str:
    """The tokenizer named by a ``language`` hint (ISO 639 code, e.g. ``zh-TW``, ``ja``, ``el``),
    or detected from ``text`` when there is no hint."""
    if not language:
        return detect_tokenizer(text)
    code = language.strip().lower().replace("_", "-").split("-")[0]
    if code in ("zh", "zho", "chi", "cmn", "yue", "wuu"):
        return "zh"
    if code in ("ja", "jpn"):
        return "ja"
    if code in ("th", "tha"):
        return "th"
    return "whitespace"


def normalise_tokens(text: str, tokenizer: str | None = None) -> list[str]:
    """The metric tokens of ``text``: lowercased, ``, ; : . ? !`` deleted, split on whitespace,
    and runs of Han / kana / Thai segmented by ``tokenizer`` (detected from ``text`` when None).

    The characters are deleted before splitting, which gives the same tokens (none of them is
    whitespace, and a token made only of them vanishes); chained ``replace`` calls are about
    twice as fast as ``str.translate`` here, and this is on the hot path.
    """
    text = text.lower()
    for char in _DELETED:
        text = text.replace(char, "")
    if tokenizer == "whitespace" or text.isascii():
        return text.split()
    if tokenizer is None:
        tokenizer = detect_tokenizer(text)
    if tokenizer == "whitespace":
        return text.split()
    return split_tokens(text.translate(_FULLWIDTH_TABLE), tokenizer)


def split_tokens(text: str, tokenizer: str | None = None) -> list[str]:
    """Whitespace tokens of ``text`` with Han / kana / Thai runs segmented (no case or punctuation
    change: ROUGE's tokens). Equal to ``text.split()`` for a text without those scripts."""
    if tokenizer == "whitespace" or text.isascii() or not _SEGMENTED_RE.search(text):
        return text.split()
    if tokenizer is None:
        tokenizer = detect_tokenizer(text)
        if tokenizer == "whitespace":
            return text.split()
    han = _segment_words_zh if tokenizer == "zh" else list
    out: list[str] = []
    for token in text.split():
        if not _SEGMENTED_RE.search(token):
            out.append(token)
            continue
        for han_run, kana_run, thai_run, other in _RUNS.findall(token):
            if han_run:
                out.extend(han(han_run))
            elif kana_run:
                out.extend(kana_run)
            elif thai_run:
                out.extend(_segment_thai(thai_run))
            else:
                out.append(other)
    return out


@functools.cache
def _jieba() -> Callable[[str], list[str]]:
    jieba = import_optional("jieba", "jieba", "pip install -e .")
    jieba.setLogLevel(logging.WARNING)
    return jieba.Tokenizer().lcut


def _segment_words_zh(run: str) -> list[str]:
    """jieba's precise-mode words of a run of Han characters (HMM on for unknown words)."""
    return [w for w in _jieba()(run) if w.strip()]


@functools.cache
def _thai() -> Callable[..., list[str]]:
    module = import_optional("pythainlp.tokenize", "pythainlp", "pip install -e .")
    return module.word_tokenize


def _segment_thai(run: str) -> list[str]:
    """PyThaiNLP ``newmm`` words of a run of Thai characters."""
    return [w for w in _thai()(run, engine="newmm", keep_whitespace=False) if w.strip()]
