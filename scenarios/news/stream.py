"""The seed's stream of 200 articles and their TF-IDF cosine similarities.

Four regimes of 50 episodes; regime g over-samples cluster `CLUSTERS[g]`: each
episode draws, with probability 0.8, an article of that cluster, else one of
the rest of the corpus (misc.forsale included), uniformly among the articles
not drawn yet. One generator, `default_rng([seed, 0])`, so the stream is a
pure function of (corpus, seed) and every selector on a seed sees the same one
(the session's own generator, `[seed, 1]`, drives only the selectors).

TF-IDF (scikit-learn's `TfidfVectorizer`, English stop words, sublinear tf) is
fitted once per corpus on all its articles, no labels involved; the stream's
200×200 cosine matrix comes from `sklearn.metrics.pairwise.cosine_similarity`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from engine.errors import AELError

from .corpus import CLUSTERS, Corpus, cluster_of, load

N_EPISODES = 200
N_REGIMES = len(CLUSTERS)
REGIME_LEN = N_EPISODES // N_REGIMES
P_FOCUS = 0.8


def regime_of(t: int) -> int:
    return min(t // REGIME_LEN, N_REGIMES - 1)


@dataclass(frozen=True)
class Stream:
    docs: np.ndarray        # corpus index of episode t's article
    labels: tuple[str, ...]  # its newsgroup
    sim: np.ndarray          # cosine similarity between episodes' articles (read-only)


@lru_cache(maxsize=4)
def _tfidf(data: str):
    from sklearn.feature_extraction.text import TfidfVectorizer

    corpus = load(data)
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float64)
    try:
        return vectorizer.fit_transform(corpus.texts)
    except ValueError:  # every article empty after stripping, or only stop words
        raise AELError(f"news: the articles of {corpus.source} hold no words to compare") from None


def sample(corpus: Corpus, seed: int) -> np.ndarray:
    """The corpus indices of the seed's 200 articles, in episode order."""
    clusters = np.array([cluster_of(g) or "" for g in corpus.groups])
    for c in CLUSTERS:
        if int((clusters == c).sum()) < REGIME_LEN:
            raise AELError(f"news: {corpus.source} has {int((clusters == c).sum())} articles of the {c} cluster; "
                           f"a regime needs at least {REGIME_LEN}")
    if len(corpus) < N_EPISODES:
        raise AELError(f"news: {corpus.source} has {len(corpus)} articles; the stream needs at least {N_EPISODES}")
    rng = np.random.default_rng([seed, 0])
    free = np.ones(len(corpus), dtype=bool)
    out = np.empty(N_EPISODES, dtype=np.int64)
    for t in range(N_EPISODES):
        focus = clusters == CLUSTERS[regime_of(t)]
        side = focus if rng.random() < P_FOCUS else ~focus
        candidates = np.flatnonzero(side & free)
        if len(candidates) == 0:  # an exhausted side: draw from whatever is left
            candidates = np.flatnonzero(free)
        out[t] = candidates[int(rng.integers(len(candidates)))]
        free[out[t]] = False
    return out


@lru_cache(maxsize=16)
def stream(data: str, seed: int) -> Stream:
    from sklearn.metrics.pairwise import cosine_similarity

    corpus = load(data)
    docs = sample(corpus, seed)
    x = _tfidf(data)[docs]
    sim = cosine_similarity(x)
    sim.setflags(write=False)  # shared by every session on this seed
    docs.setflags(write=False)
    return Stream(docs, tuple(corpus.groups[i] for i in docs), sim)
