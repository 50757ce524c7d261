"""News-stream benchmark: the paper's five-seed table on the generated test corpus.

The real 20 Newsgroups (18,846 articles) needs the network once; the generated
corpus (450 articles, `tests/news_corpus.py`) measures the engine and the
per-seed TF-IDF work, not the real corpus's one-off TF-IDF fit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.news_corpus import write_corpus


def table_wall() -> float:
    """Wall time of `ael-lab run news --data DIR --selector all --seeds 42,123,456,789,1024`
    (a new process: imports and start-up included)."""
    with tempfile.TemporaryDirectory() as d:
        data = write_corpus(Path(d) / "news")
        cmd = [os.path.join(os.path.dirname(sys.executable), "ael-lab"), "run", "news", "--data", str(data),
               "--seeds", "42,123,456,789,1024", "--selector", "all", "--quiet", "--json", os.path.join(d, "o.json")]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        return time.perf_counter() - t0


def run() -> list[dict]:
    return [{"name": "news: 5 seeds x 11 selectors, generated corpus, `ael-lab run` (wall)", "value": table_wall(),
             "unit": "s", "target": 15}]
