"""Decoding bytes of unknown encoding."""

import codecs

from boilerbench.datasets.encoding import decode_bytes


def test_utf8_is_recognised():
    assert decode_bytes("café – naïve".encode()) == "café – naïve"


def test_declared_latin1_means_windows_1252():
    data = b'<meta charset="iso-8859-1"><p>caf\xe9 \x93quoted\x94</p>'
    assert decode_bytes(data) == '<meta charset="iso-8859-1"><p>café “quoted”</p>'


def test_hint_wins_over_detection():
    data = "Привет, мир".encode("koi8-r")
    assert decode_bytes(data, hints=["koi8-r"], is_html=False) == "Привет, мир"


def test_byte_order_marks():
    assert decode_bytes(codecs.BOM_UTF8 + "x é".encode()) == "x é"
    assert decode_bytes(codecs.BOM_UTF16_LE + "héllo".encode("utf-16-le")) == "héllo"


def test_undeclared_non_utf8_is_detected_not_dropped():
    text = "Ce café est très agréable, déjà vu à côté de la forêt. " * 5
    decoded = decode_bytes(text.encode("windows-1252"), is_html=False)
    assert decoded == text


def test_mixed_encodings_lose_nothing_silently():
    data = "naïve ".encode() + "café".encode("windows-1252")
    decoded = decode_bytes(data)
    assert decoded.startswith("na") and decoded.endswith("caf" + decoded[-1])
    assert len(decoded) >= len("naïve café")


def test_nul_and_control_characters_are_removed():
    assert decode_bytes(b"<p>a\x00b\x01c\td\ne</p>") == "<p>abc\td\ne</p>"


def test_detector_verdict_is_cached(tmp_path, monkeypatch):
    from boilerbench.cache import set_cache_dir
    from boilerbench.datasets import encoding

    calls = []
    detect = encoding._detect
    monkeypatch.setattr(encoding, "_detect", lambda data, is_html: calls.append(1) or detect(data, is_html))
    data = "<p>Крупнейшие города России: Москва, Санкт-Петербург</p>".encode("koi8-r")
    set_cache_dir(tmp_path)
    try:
        first = decode_bytes(data)
        second = decode_bytes(data)
    finally:
        set_cache_dir(None)
    assert first == second and len(calls) == 1
    assert len(list((tmp_path / "encoding").rglob("*.txt"))) == 1


def test_gb2312_and_gbk_labels_read_as_gb18030():
    """镕 is GBK, not GB2312: a page labelled gb2312 holding it decodes (as browsers read it)."""
    text = "朱镕基说中国的报纸很好"
    page = f'<html><head><meta charset="gb2312"></head><body><p>{text}</p></body></html>'.encode("gbk")
    assert text in decode_bytes(page)


def test_a_declared_encoding_that_nothing_decodes_cleanly_is_used_with_replacement():
    """A cut two-byte GBK sequence: the declared encoding with one U+FFFD, not windows-1252 mojibake."""
    text = "中国的报纸说了很多话"
    page = f'<html><head><meta charset="gbk"></head><body><p>{text}</p></body></html>'.encode("gbk")
    decoded = decode_bytes(page.replace(b"</p>", b"\x81</p>"))
    assert f"{text}\ufffd</p>" in decoded
    undeclared = b"<p>caf\xe9 \x81</p>"  # no declaration: windows-1252 as before
    assert decode_bytes(undeclared) == "<p>caf\u00e9 \ufffd</p>"
    # a Latin-1 page declared UTF-8: every accented letter would be damage, so windows-1252
    latin = b'<meta charset="utf-8"><p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>'
    assert decode_bytes(latin).endswith("<p>caf\u00e9 cr\u00e8me br\u00fbl\u00e9e</p>")
    # a UTF-8 page with one stray byte: its UTF-8 letters outnumber the damage
    stray = '<meta charset="utf-8"><p>“café” — crème</p>'.encode() + b"\x81"
    assert decode_bytes(stray).endswith("<p>“café” — crème</p>\ufffd")


def test_detection_does_not_depend_on_the_detector_bs4_finds(monkeypatch):
    """cchardet (datatrove's extra) or charset-normalizer installed beside chardet: bs4 would use
    it; the decoding must not change."""
    import bs4.dammit

    data = "<p>Крупнейшие города России: Москва, Санкт-Петербург, Новосибирск</p>".encode("koi8-r")
    expected = decode_bytes(data)

    class Other:
        @staticmethod
        def detect(_data):
            return {"encoding": "IBM866"}

    monkeypatch.setattr(bs4.dammit, "chardet_module", Other)
    from boilerbench.cache import set_cache_dir

    set_cache_dir(None)
    assert decode_bytes(data) == expected and "Москва" in expected


def test_detector_sees_no_letter_run_longer_than_64(monkeypatch):
    """chardet's single-byte probers are quadratic in a run of ASCII letters (27 s on 16,000
    letters after one accented byte; the fuzzer's pages stalled for minutes): the detector is
    given each run cut to 64 letters, the decode still covers the whole run. What would fail:
    the run handed to chardet whole, or cut in the decoded text too."""
    import re

    from boilerbench.datasets import encoding

    runs = []
    detect = encoding.chardet.detect
    monkeypatch.setattr(
        encoding.chardet,
        "detect",
        lambda data: runs.append(max(len(r) for r in re.findall(rb"[a-zA-Z]+", data))) or detect(data),
    )
    letters = "q" * 30_000
    decoded = decode_bytes(b"<p>caf\xe9 \xff\xfe\x81 " + letters.encode() + b" end</p>")
    assert runs == [64] and letters + " end" in decoded


def test_detector_reads_a_prefix_and_the_whole_page_is_decoded(monkeypatch):
    """chardet costs 8 us a byte: it sees the first DETECT_BYTES only (a 3 MB undecodable page
    took half a minute), while the decode that follows covers every byte of the page."""
    from boilerbench.datasets import encoding

    seen = []
    detect = encoding.chardet.detect
    monkeypatch.setattr(encoding.chardet, "detect", lambda data: seen.append(len(data)) or detect(data))
    line = "<p>Крупнейшие города России: Москва, Санкт-Петербург, Новосибирск</p>\n"
    text = line * (3 * encoding.DETECT_BYTES // len(line.encode("koi8-r")))
    decoded = decode_bytes(text.encode("koi8-r"))
    assert seen == [encoding.DETECT_BYTES]
    assert decoded == text
