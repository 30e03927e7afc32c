"""The script-aware tokenizer (boilerbench.tokenizer) and the metrics on hand-made Chinese,
Japanese, Thai, Greek and Russian text, with hand-computed scores."""

from __future__ import annotations

import pytest

from boilerbench.datasets.align import align_labels
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.plaintext import PlainText
from boilerbench.evaluation import cleaneval_score, rouge_lsum, token_prf
from boilerbench.tokenizer import detect_tokenizer, normalise_tokens, split_tokens, tokenizer_for
from tests.conftest import PROJECT

CHINESE = PROJECT / "tests" / "data" / "chinese"


def test_latin_text_is_split_exactly_as_cleaneval_does():
    text = "Hello, World! The café's menu: soup; bread. Ünïcödé?"
    expected = text.lower().replace(",", "").replace("!", "").replace(":", "").replace(";", "")
    expected = expected.replace(".", "").replace("?", "").split()
    for tokenizer in (None, "whitespace", "zh", "ja", "th"):
        assert normalise_tokens(text, tokenizer) == expected


def test_detection_by_script_and_hint_overrides():
    assert detect_tokenizer("plain English") == "whitespace"
    assert detect_tokenizer("Ελληνικά και русский") == "whitespace"
    assert detect_tokenizer("我们在北京") == "zh"
    assert detect_tokenizer("日本語のテキスト") == "ja"  # kana makes it Japanese
    assert detect_tokenizer("ภาษาไทย") == "th"
    assert tokenizer_for("zh-TW", "anything") == "zh"
    assert tokenizer_for("ja") == "ja"
    assert tokenizer_for("el", "我们在北京") == "whitespace"  # the hint wins over the script
    assert tokenizer_for(None, "我们在北京") == "zh"


def test_chinese_words_japanese_characters_thai_words():
    assert normalise_tokens("我们在北京大学学习。", "zh") == ["我们", "在", "北京大学", "学习"]
    assert normalise_tokens("我们在北京大学学习。", "ja") == list("我们在北京大学学习")
    assert normalise_tokens("日本語のテキスト、です。") == list("日本語のテキストです")
    assert normalise_tokens("ผมรักภาษาไทย") == ["ผม", "รัก", "ภาษาไทย"]


def test_mixed_scripts_in_one_token():
    assert normalise_tokens("学习Python编程，入门 Καλημέρα!", "zh") == ["学习", "python", "编程", "入门", "καλημέρα"]
    # ROUGE's tokens keep case and punctuation
    assert split_tokens("Python编程。入门", "zh") == ["Python", "编程", "。", "入门"]


def test_text_with_no_letters():
    assert normalise_tokens("!!! ... ;;; ?", "zh") == []
    assert normalise_tokens("12 345 —— 。。", None) == ["12", "345", "——", "。。"]
    assert cleaneval_score("!!! ...", "") == 100.0  # both empty after normalisation
    assert cleaneval_score("12 345", "") == 0.0
    assert token_prf("。！？", "。", "zh").f1 == 1.0  # full-width punctuation only: both empty
    assert token_prf("。！？", "。").f1 == 0.0  # no Han: whitespace tokens, kept as CleanEval keeps them


def test_greek_and_russian_scores_by_hand():
    gold = "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας."
    pred = "Αθήνα είναι πρωτεύουσα."
    # gold 7 tokens, prediction 3, all three in order: 100 * 3 / (3 + 7 - 3)
    assert cleaneval_score(pred, gold) == pytest.approx(300 / 7)
    gold = "Москва — столица России. Погода сегодня хорошая."
    pred = "Москва столица России. Реклама!"
    # gold: москва — столица россии погода сегодня хорошая (7); pred: москва столица россии реклама (4); LCS 3
    assert cleaneval_score(pred, gold) == pytest.approx(100 * 3 / (4 + 7 - 3))


def test_chinese_score_by_both_tokenizers():
    gold, pred = "我们在北京大学学习", "我们在北京学习"
    # words: gold 我们/在/北京大学/学习, prediction 我们/在/北京/学习: LCS 3 -> 100 * 3 / (4 + 4 - 3)
    assert cleaneval_score(pred, gold, "zh") == pytest.approx(60.0)
    # characters (the Japanese tokenizer treats Han as characters): 9 and 7, LCS 7 -> 100 * 7 / 9
    assert cleaneval_score(pred, gold, "ja") == pytest.approx(700 / 9)
    # whitespace: one "word" each, different: 0
    assert cleaneval_score(pred, gold, "whitespace") == 0.0
    # detection from the gold picks the word tokenizer
    assert cleaneval_score(pred, gold) == pytest.approx(60.0)
    assert token_prf(pred, gold).f1 == pytest.approx(0.75)  # 3 of 4 words on both sides


def test_japanese_score_by_hand():
    gold, pred = "東京は晴れです。", "東京は雨です。"
    # characters: 東 京 は 晴 れ で す (7) and 東 京 は 雨 で す (6): LCS 5 -> 100 * 5 / (7 + 6 - 5)
    assert cleaneval_score(pred, gold) == pytest.approx(62.5)


def test_rouge_segments_chinese_sentences():
    gold = "我们在北京大学学习。今天天气很好。"
    assert rouge_lsum(gold, gold).f1 == pytest.approx(1.0)
    assert rouge_lsum("今天天气很好。", gold).precision == pytest.approx(1.0)
    assert 0 < rouge_lsum("今天天气很好。", gold).recall < 1


def test_aligner_labels_chinese_blocks_by_words():
    html = (
        "<html><body><div><a href='/'>首页</a> <a href='/n'>新闻</a></div>"
        "<p>我们在北京大学学习中文。</p><p>版权所有</p></body></html>"
    )
    blocks = segment(html, language="zh")
    assert blocks.tokenizer == "zh"
    assert align_labels(blocks, "我们在北京大学学习中文").tolist() == [0, 0, 1, 0]
    # detection per page, not per block: a kanji-only block on a Japanese page is split into characters
    ja = segment("<html><body><p>東京</p><p>東京はきれいです</p></body></html>")
    assert ja.tokenizer == "ja" and ja.tokens[0] == ["東", "京"]


def test_plaintext_language_hints(tmp_path):
    pages = PlainText(root=CHINESE).load().test
    assert len(pages) == 6 and {p.meta["language"] for p in pages} == {"zh"}
    assert all(p.tokenizer == "zh" for p in pages)
    jsonl = tmp_path / "pages.jsonl"
    jsonl.write_text(
        '{"id": "a", "html": "<p>东京</p>", "text": "东京", "language": "ja"}\n'
        '{"id": "b", "html": "<p>x</p>", "text": "x"}\n',
        encoding="utf-8",
    )
    a, b = PlainText(root=jsonl).load().test
    assert a.meta["language"] == "ja" and a.tokenizer == "ja" and "language" not in b.meta


def test_chinese_gold_labels_pick_the_article(tmp_path):
    page = next(p for p in PlainText(root=CHINESE).load().test if p.id == "zh_long")
    labels = page.gold_labels
    texts = page.blocks.texts
    content = {t for t, label in zip(texts, labels, strict=True) if label}
    assert "城市公园改造工程完工" in content
    assert any(t.startswith("经过八个月的施工") for t in content)
    assert not any("版权所有" in t or t == "首页" or "网友甲" in t for t in content)
