"""A slow :class:`memorising.Memorising` for the kill tests: it sleeps ``extract_delay`` seconds per
page and ``save_delay`` seconds between the two halves of its saved file, so that a test can
kill ``run.py`` during extraction, during a fit (``delay``) or while the model is being saved."""

from __future__ import annotations

import json
import time
from pathlib import Path

from memorising import Memorising


class SlowMemorising(Memorising):
    def __init__(self, min_count: int = 1, delay: float = 0.0, extract_delay: float = 0.0, save_delay: float = 0.0):
        super().__init__(min_count, delay)
        self.extract_delay = extract_delay
        self.save_delay = save_delay

    def extract(self, page):
        time.sleep(self.extract_delay)
        return super().extract(page)

    def save(self, directory):
        data = json.dumps(self.content_)
        with open(Path(directory) / "content.json", "w") as handle:
            handle.write(data[: len(data) // 2])
            handle.flush()
            time.sleep(self.save_delay)
            handle.write(data[len(data) // 2 :])
