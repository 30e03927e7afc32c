"""Milliseconds per page by stage and by member, from py-spy's raw samples of
``studies/speed_profile.py`` (``py-spy record --format raw``: one line per distinct stack, its
frames ``function (file:line)`` joined by ``;``, then its sample count).

Only the samples inside ``Stack.extract`` outside model loading count (the profile's own
trafilatura calls, imports and the model's golden-page check do not). A member's samples are
split into its library's HTML parse (``load_html``, ``build_doc``, ``html_to_dom``), boilerpy3's
pure-Python tokenizer (``html.parser``), readability's link rewriting, jusText's stoplist choice
(the page's language identification: shared with the features, which would otherwise pay it) and
the rest; ``alignment`` is the aligner run on the text-only members' output.

    python studies/speed_flame_summary.py reports/out/speed/flame.txt --rate 250 --pages 50
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

#: A reference adapter's ``_text`` frame: the member's work.
MEMBER = re.compile(r"(\w+)\._text$")
#: Frames that are a library's own parse of the HTML string.
PARSE = frozenset({"load_html", "build_doc", "html_to_dom"})
#: The stack's stages below ``Stack.extract`` (first matching frame wins).
STAGES = (
    ("vote_matrix", "members"),
    ("page_matrix", "features"),
    ("Stack.probabilities", "trees"),
    ("Page.blocks", "segment"),
)


def member_part(frames: list[str], files: list[str]) -> str:
    """What part of a member's work a sample of it is."""
    if PARSE.intersection(frames):
        return "parse"
    if "html/parser.py" in files[-1]:
        return "tokenizer (html.parser)"
    if any(f.endswith("make_links_absolute") for f in frames):
        return "link rewriting"
    if "JusText.stoplist_for" in frames:
        return "stoplist (language id)"
    return "own"


def category(stack: str) -> tuple[str, str] | None:
    """(group, item) of one sampled stack, or None outside the stack's per-page work."""
    full = stack.split(";")
    frames = [f.split(" (")[0] for f in full]
    files = [f.partition(" (")[2] for f in full]
    if "Stack.extract" not in frames or "load_model" in frames:
        return None
    member = next((m for m in map(MEMBER.match, frames) if m), None)
    if member is not None:
        return f"member {member.group(1)}", member_part(frames, files)
    if "align_labels" in frames and "vote_matrix" in frames:
        return "members", "alignment"
    for frame, stage in STAGES:
        if frame in frames:
            below = frames[frames.index(frame) + 1 :]
            return stage, below[0] if below else "(itself)"
    return "stack", frames[-1]


def summarise(path: Path, rate: float, pages: int) -> dict[tuple[str, str], float]:
    """Milliseconds per page of each (group, item) in the raw samples at ``path``."""
    samples: Counter[tuple[str, str]] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        key = category(stack)
        if key is not None:
            samples[key] += int(count)
    return {key: 1000 * n / rate / pages for key, n in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", type=Path, help="py-spy's --format raw output")
    parser.add_argument("--rate", type=float, required=True, help="py-spy's sampling rate (-r)")
    parser.add_argument("--pages", type=int, required=True, help="pages the profiled run extracted")
    parser.add_argument("--min-ms", type=float, default=0.3, help="hide items below this (ms/page)")
    args = parser.parse_args()
    ms = summarise(args.raw, args.rate, args.pages)
    groups: Counter[str] = Counter()
    for (group, _), value in ms.items():
        groups[group] += value
    print(f"stack total {sum(groups.values()):.1f} ms/page (py-spy samples)")
    for group, total in groups.most_common():
        print(f"  {group:<28} {total:7.2f}")
        items = sorted(((v, item) for (g, item), v in ms.items() if g == group), reverse=True)
        for value, item in items:
            if value >= args.min_ms:
                print(f"      {item:<40} {value:7.2f}")


if __name__ == "__main__":
    main()
