"""Which language identifier for pages: py3langid (the project's choice) or langdetect?

Both ship their model inside the package (nothing is downloaded). On the labelled pages of DANIEL
(905 pages: en, zh, el, pl, ru; ``doc_lg.json``) and of the Chinese WCE dataset (69 pages, all
zh), each identifier reads two texts per page: the reference text and the page's visible text
(:func:`boilerbench.language.page_text_sample`, all an extractor has), each through
:func:`boilerbench.language.detect`: its bounded sample (``text_sample``) and its rule, "" below
``MIN_LETTERS`` letters or ``MIN_CONFIDENCE`` probability (counted wrong; the abstentions in
brackets). langdetect is seeded (it samples n-grams at random). Then hand-made snippets in other
scripts; the mean time per page of each step (one thread); and py3langid on the visible text
under several sample sizes, up to the whole of it (``page_text_sample``'s up to 50,000
characters), which is how ``SAMPLE_CHARS`` was chosen.

    BOILERBENCH_DATA=/work/shared/datasets python -m studies.language_id
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

from benchmarks.common import run_main, timed
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.reading import read_gzip, read_json
from boilerbench.errors import DatasetNotFoundError, import_optional
from boilerbench.language import Identifier, detect, identify, page_text_sample

#: DANIEL's language names (doc_lg.json) -> ISO 639-1.
DANIEL_LANGUAGES = {"English": "en", "Chinese": "zh", "Greek": "el", "Polish": "pl", "Russian": "ru"}

#: Hand-made one- or two-sentence snippets in languages and scripts the datasets lack.
SNIPPETS = {
    "ar": "أعلنت وزارة الصحة اليوم عن افتتاح مستشفى جديد في وسط المدينة لخدمة آلاف المرضى.",
    "he": "משרד הבריאות הודיע היום על פתיחת בית חולים חדש במרכז העיר שישרת אלפי חולים.",
    "hi": "स्वास्थ्य मंत्रालय ने आज शहर के केंद्र में एक नए अस्पताल के उद्घाटन की घोषणा की।",
    "th": "กระทรวงสาธารณสุขประกาศเปิดโรงพยาบาลแห่งใหม่ในใจกลางเมืองเพื่อให้บริการผู้ป่วยหลายพันคน",
    "ja": "厚生労働省は今日、市の中心部に新しい病院を開設すると発表しました。",
    "ko": "보건복지부는 오늘 도심에 새로운 병원을 개원한다고 발표했습니다.",
    "uk": "Міністерство охорони здоров'я сьогодні оголосило про відкриття нової лікарні в центрі міста.",
    "de": "Das Gesundheitsministerium hat heute die Eröffnung eines neuen Krankenhauses im Stadtzentrum angekündigt.",
    "fr": "Le ministère de la Santé a annoncé aujourd'hui l'ouverture d'un nouvel hôpital au centre-ville.",
    "vi": "Bộ Y tế hôm nay đã thông báo khai trương một bệnh viện mới ở trung tâm thành phố.",
}


def langdetect(sample: str) -> tuple[str, float]:
    """langdetect's best language (``zh-cn``/``zh-tw`` -> ``zh``) and its probability; seeded."""
    module = import_optional("langdetect", "langdetect", 'goose3 brings it: pip install -e ".[refs]"')
    module.DetectorFactory.seed = 0
    try:
        best = module.detect_langs(sample)[0]
    except module.LangDetectException:
        return "", 0.0
    return best.lang.split("-")[0], best.prob


#: The sample sizes compared (0: the whole text).
SAMPLE_SIZES = (1_000, 2_000, 5_000, 20_000, 0)

IDENTIFIERS: dict[str, Identifier] = {"py3langid": identify, "langdetect": langdetect}


def labelled_pages(data: Path) -> Iterator[tuple[str, str, str, bytes]]:
    """(dataset, language, reference text, HTML bytes) of every labelled page."""
    daniel = data / "daniel"
    chinese = data / "chinese-wce"
    for folder in (daniel, chinese):
        if not folder.is_dir():
            raise DatasetNotFoundError(f"{folder} not found: set BOILERBENCH_DATA to the datasets folder")
    labels = read_json(daniel / "doc_lg.json")
    assert isinstance(labels, dict)
    for page_id, name in sorted(labels.items()):
        # DANIEL's references are <p>...</p> fragments: their text, as langdetect reads "<p>" as letters
        reference = page_text_sample(decode_bytes((daniel / "reference" / page_id).read_bytes(), is_html=False))
        yield "daniel", DANIEL_LANGUAGES[name], reference, read_gzip(daniel / "html" / f"{page_id}.gz")
    for html_path in sorted((chinese / "original").glob("*.html.gz")):
        page_id = html_path.name.removesuffix(".html.gz")
        reference = decode_bytes((chinese / "cleaned" / f"{page_id}.txt").read_bytes(), is_html=False)
        yield "chinese-wce", "zh", reference, read_gzip(html_path)


def timed_step(seconds: dict[str, float], step: str, call: Callable[..., str], *args: object, **kwargs: object) -> str:
    """``call(*args, **kwargs)``, adding its wall time to ``seconds[step]``."""
    result, spent = timed(lambda: call(*args, **kwargs))
    seconds[step] += spent
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("BOILERBENCH_DATA", ""), help="the datasets folder")
    args = parser.parse_args(argv)
    if not args.data:
        raise DatasetNotFoundError("no datasets folder: set BOILERBENCH_DATA or pass --data")
    identify("warm up: load the model")  # before the clock starts, as langdetect's profiles
    langdetect("warm up: load the profiles")

    columns = [f"{name} {text}" for name in IDENTIFIERS for text in ("ref", "html")]
    correct: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(columns, 0))
    abstained: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(columns, 0))
    count: dict[tuple[str, str], int] = defaultdict(int)
    seconds: dict[str, float] = defaultdict(float)
    pages = 0
    visible: list[tuple[str, str]] = []
    for dataset, language, reference, html_bytes in labelled_pages(Path(args.data)):
        pages += 1
        html = decode_bytes(html_bytes)
        texts = {"ref": reference, "html": timed_step(seconds, "page_text_sample", page_text_sample, html)}
        answers = {
            f"{name} {text}": timed_step(seconds, f"detect with {name}", detect, body, identifier)
            for name, identifier in IDENTIFIERS.items()
            for text, body in texts.items()
        }
        visible.append((language, texts["html"]))
        for key in ((dataset, language), ("all", "all")):
            count[key] += 1
            for column, answer in answers.items():
                correct[key][column] += answer == language
                abstained[key][column] += answer == ""

    print(f"Accuracy (correct / pages; abstentions in brackets), {pages} pages:\n")
    print("| dataset | lang | pages | " + " | ".join(columns) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in columns) + " |")
    for key in sorted(count, key=lambda k: (k[0] == "all", k)):
        cells = [f"{correct[key][c] / count[key]:.3f} ({abstained[key][c]})" for c in columns]
        print(f"| {key[0]} | {key[1]} | {count[key]} | " + " | ".join(cells) + " |")

    print("\nHand-made snippets (expected: answers):\n")
    print("| lang | " + " | ".join(IDENTIFIERS) + " |")
    print("| --- | " + " | ".join("---" for _ in IDENTIFIERS) + " |")
    for language, snippet in SNIPPETS.items():
        answers = [detect(snippet, identifier) or '""' for identifier in IDENTIFIERS.values()]
        print(f"| {language} | " + " | ".join(answers) + " |")

    print("\nMean time per page (detect: the mean over the reference and the visible text):\n")
    print("| step | ms/page |")
    print("| --- | ---: |")
    for step, total in seconds.items():
        reads = 2 if step in {f"detect with {name}" for name in IDENTIFIERS} else 1
        print(f"| {step} | {1000 * total / pages / reads:.2f} |")

    print("\npy3langid on the visible text by sample size (characters; 'whole': no sample):\n")
    print("| sample | correct | abstained | ms/page |")
    print("| --- | ---: | ---: | ---: |")
    for size in SAMPLE_SIZES:
        answers, elapsed = timed(lambda size=size: [detect(text, sample_chars=size or 10**9) for _, text in visible])
        right = sum(answer == language for answer, (language, _) in zip(answers, visible, strict=True))
        print(f"| {size or 'whole'} | {right} / {pages} | {answers.count('')} | {1000 * elapsed / pages:.2f} |")
    return 0


if __name__ == "__main__":
    run_main(main)
