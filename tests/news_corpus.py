"""A small corpus in the `20news-bydate` layout, generated for the news tests.

Nine groups across the four clusters plus misc.forsale, each with its own
vocabulary, written like real posts: a header block (From, Subject,
Organization, Lines), a quoted passage introduced by "In article ... writes:"
and lines starting with ">", and a signature after "--". The quotes and the
signature use another group's words, so an article that kept them would look
like the wrong group. Deterministic (its own generator), no network.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

GROUPS = {
    "comp.graphics": "pixel render shader polygon texture bitmap raytrace vertex opengl jpeg",
    "comp.sys.mac.hardware": "powerbook quadra nubus scsi appletalk macintosh simm adb centris duo",
    "rec.autos": "engine sedan transmission clutch dealer mileage torque brakes carburetor coupe",
    "rec.sport.hockey": "puck goalie stanley playoffs nhl rink slapshot defenseman powerplay leafs",
    "sci.space": "orbit shuttle nasa launch satellite lunar payload rocket apollo telescope",
    "sci.med": "patient doctor symptoms diagnosis vitamin clinical disease therapy dosage allergy",
    "talk.politics.guns": "firearms rifle handgun nra amendment ammunition militia atf waco permit",
    "soc.religion.christian": "church scripture gospel prayer jesus bible faith sermon apostle baptism",
    "misc.forsale": "sale offer shipping condition price obo asking brand cod sell",
}
CLUSTER_WORDS = {  # words a group shares with its cluster's other group, so siblings get confused
    "comp": "computer software drive memory card system", "rec": "game team season fun ride weekend",
    "sci": "research study science data theory evidence", "talk": "government moral rights belief truth law",
    "soc": "government moral rights belief truth law", "misc": "item box new used mail cheap",
}
SHARED = "the people think question anyone know really good time would like post read".split()


def _post(rng: np.random.Generator, group: str, number: int) -> str:
    own = GROUPS[group].split()
    others = [g for g in GROUPS if g != group]
    other = GROUPS[others[int(rng.integers(len(others)))]].split()
    near = CLUSTER_WORDS[group.split(".")[0]].split()

    def word() -> str:
        u = rng.random()
        pool = own if u < 0.12 else near if u < 0.35 else SHARED
        return pool[int(rng.integers(len(pool)))]

    words = [word() for _ in range(int(rng.integers(12, 30)))]
    subject = " ".join(own[int(rng.integers(len(own)))] for _ in range(3))
    quoted = [" ".join(other[int(rng.integers(len(other)))] for _ in range(8)) for _ in range(3)]
    return (f"From: user{number}@example.edu (User {number})\nSubject: Re: {subject}\n"
            f"Organization: Example University\nLines: {len(words) // 8 + 6}\n\n"
            f"In article <{number}@example.edu> someone@example.com writes:\n"
            + "".join(f"> {q}\n" for q in quoted)
            + "\n" + "\n".join(" ".join(words[i:i + 8]) for i in range(0, len(words), 8))
            + f"\n\n-- \n{' '.join(other[:4])}\nUser {number}, Example University\n")


def write_corpus(root: Path, per_group: int = 50, test_share: float = 0.3) -> Path:
    """Write the corpus under `root` (20news-bydate-train and -test) and return `root`."""
    rng = np.random.default_rng(20)
    number = 10000
    for group in GROUPS:
        n_test = int(per_group * test_share)
        for subset, n in (("20news-bydate-train", per_group - n_test), ("20news-bydate-test", n_test)):
            folder = root / subset / group
            folder.mkdir(parents=True, exist_ok=True)
            for _ in range(n):
                number += 1
                (folder / str(number)).write_text(_post(rng, group, number), encoding="latin-1")
    return root


if __name__ == "__main__":  # `python -m tests.news_corpus DIR`: the README's synthetic corpus
    import sys

    print(write_corpus(Path(sys.argv[1])))
