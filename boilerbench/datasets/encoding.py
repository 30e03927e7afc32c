"""Decoding of page and gold-text bytes with real encoding detection.

Order (the WHATWG order, simplified): a byte-order mark; strict UTF-8 (a page that decodes
as UTF-8 is UTF-8 in practice); the encodings the source declares (HTTP header, CleanEval's
wrapper attribute, ``<meta charset>``); then the first of bs4's ``UnicodeDammit`` candidates
that decodes, with chardet as their detector (:func:`_detect`), except that a guess of a
Latin-script single-byte code page becomes windows-1252; windows-1252 as the last resort.
``UnicodeDammit`` itself takes whichever detector is installed, and cchardet (datatrove's WARC
reader needs it) or charset-normalizer (which other packages bring) guess otherwise, so results
would depend on what else is installed. chardet is slow (about 0.1 s on the 10 % of pages that
reach it, 8 us a byte), so its verdict is disk-cached, and it reads the first
:data:`DETECT_BYTES` bytes only: on the whole of an undecodable 3 MB page it took half a minute
(found by ``benchmarks/fuzz.py``), on a 50 MB one it would take minutes; browsers also sniff a
prefix.
``iso-8859-1``/``latin-1``/``ascii`` labels mean windows-1252 and ``gb2312``/``gbk`` labels (and
guesses) GB18030, as browsers read them. When nothing declared decodes cleanly, the first hinted or
declared encoding is used with its damaged bytes replaced where they are no more than the
characters it reads beyond ASCII (what a browser shows), else windows-1252.
Nothing is decoded with ``errors="ignore"``; undecodable bytes become U+FFFD only in that final
fallback.
"""

from __future__ import annotations

import codecs
import re

import chardet
from bs4.dammit import EncodingDetector

from boilerbench.cache import cached_text, code_version

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: The bytes the detector reads (about 0.5 s of chardet's time at most).
DETECT_BYTES = 65_536
#: A run of ASCII letters longer than 64, kept to its first 64 for the detector: chardet's
#: single-byte probers find their "international words" with a regex that is quadratic in such a
#: run (``[a-zA-Z]*[\x80-\xFF]+…`` retried from every letter): 27 s on 16,000 letters after one
#: accented byte, hours on 64 KB (found by ``benchmarks/fuzz.py``). A word of 64 letters without
#: one beyond ASCII says nothing about which single-byte encoding the page is in.
_LONG_LETTER_RUN = re.compile(rb"([a-zA-Z]{64})[a-zA-Z]+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
# GB2312 and GBK labels are read as GB18030, their superset, as browsers do (WHATWG Encoding
# Standard: the "gbk" decoder is the gb18030 decoder): pages labelled GB2312 routinely hold GBK
# and GB18030 characters, which a strict GB2312 decode rejects.
_GB18030_ALIASES = {"gb2312", "gb_2312", "gb_2312-80", "gbk", "x-gbk", "cp936", "chinese", "csgb2312", "euc-cn"}
_WINDOWS_1252_ALIASES = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "us-ascii", "ascii", "cp819"}
# Detectors cannot tell Latin-script single-byte code pages apart on short texts (French text
# comes out as Baltic windows-1257); for those the web's de facto encoding, windows-1252, is
# used, as browsers do. Cyrillic, Greek, Hebrew, Arabic and CJK guesses are kept.
_LATIN_SINGLE_BYTE = {
    "cp1250",
    "cp1252",
    "cp1254",
    "cp1257",
    "latin_1",
    "mac-roman",
    "mac-latin2",
    *(f"iso8859-{n}" for n in (1, 2, 3, 4, 9, 10, 13, 14, 15, 16)),
}
# C0 controls other than tab, newline and carriage return, and DEL: never text, and lxml rejects them.
# A regular expression, not ``str.translate``: translate with a dict costs about 0.15 us per
# character (40 ms on a 300 KB page), the regex's scan about 1 ns when there is nothing to remove.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _canonical(label: str) -> str | None:
    label = label.strip().lower()
    if label in _WINDOWS_1252_ALIASES:
        return "cp1252"
    if label in _GB18030_ALIASES:
        return "gb18030"
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def declared_encodings(data: bytes) -> list[str]:
    """Encodings named by ``<meta charset=...>`` or ``http-equiv`` in the first 4 KB."""
    return [m.group(1).decode("ascii", "replace") for m in _META_CHARSET.finditer(data[:4096])]


def decode_bytes(data: bytes, hints: list[str] | tuple[str, ...] = (), is_html: bool = True) -> str:
    """Decode ``data`` to text (see the module docstring for the order), removing control characters."""
    return strip_controls(_decode(data, hints, is_html))


def strip_controls(text: str) -> str:
    """Remove C0 control characters other than tab, newline and carriage return (NUL included)."""
    return _CONTROL.sub("", text)


def _decode(data: bytes, hints, is_html: bool) -> str:
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(enc, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    candidates = [*hints, *(declared_encodings(data) if is_html else [])]
    for label in candidates:
        canonical = _canonical(label)
        if canonical is None or canonical.startswith("utf"):
            continue
        try:
            return data.decode(canonical)
        except UnicodeDecodeError:
            continue
    # none decodes cleanly: the first hinted or declared encoding whose damaged bytes are no more
    # than the characters it reads beyond ASCII (a GBK page with one cut sequence, a UTF-8 page
    # with a few stray bytes), as a browser would show it; else the detector's guess, else
    # windows-1252 (a Latin-1 page declared UTF-8, whose every accented letter would be damage)
    for label in candidates:
        canonical = _canonical(label)
        if canonical is None:
            continue
        text = data.decode(canonical, errors="replace")
        damaged = text.count("\ufffd")
        read = len(text) - damaged - len(text.encode("ascii", errors="ignore"))
        if read >= max(damaged, 1):
            return text
    guess = _canonical(
        cached_text(
            "encoding", code_version(__name__, "chardet", "beautifulsoup4"), (data,), lambda: _detect(data, is_html)
        )
    )
    if guess is not None and guess not in _LATIN_SINGLE_BYTE:
        try:
            return data.decode(guess)
        except UnicodeDecodeError:
            pass
    return data.decode("windows-1252", errors="replace")


def _detect(data: bytes, is_html: bool) -> str:
    """The encoding bs4's ``UnicodeDammit`` would report (the first of its candidates that decodes:
    byte-order mark, declared encoding, detector's guess, UTF-8, windows-1252), with chardet as
    the detector: ``UnicodeDammit`` itself takes whichever detector is installed, and cchardet
    (which datatrove's WARC reader needs) guesses otherwise, so every figure of a dataset would
    depend on what else is installed. Empty when none decodes."""
    detector = EncodingDetector(data, is_html=is_html)
    sample = _LONG_LETTER_RUN.sub(rb"\1", detector.markup[:DETECT_BYTES])
    detector.chardet_encoding = chardet.detect(sample)["encoding"] or ""
    for encoding in detector.encodings:
        try:
            detector.markup.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
        return encoding
    return ""
