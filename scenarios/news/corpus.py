"""The 20 Newsgroups articles: from scikit-learn's data home or a local folder.

Two sources, one result (`Corpus`: every article's group, subject and body, in
one fixed order):
- `sklearn`: `fetch_20newsgroups(subset=..., remove=())` through scikit-learn,
  which downloads the by-date archive once into its data home
  (`SCIKIT_LEARN_DATA`, default ~/scikit_learn_data) and reads it from there
  afterwards;
- a folder in the standard `20news-bydate` layout
  (`20news-bydate-train/<group>/<numbered files>`, and `-test`), or the
  archive itself (`20news-bydate.tar.gz`, read in place), read here without
  any network.

Both read the raw posts and strip them here with the rules of scikit-learn's
`remove=('headers', 'footers', 'quotes')` (header, then footer, then quotes,
as `fetch_20newsgroups` applies them), so the subject can be taken from the
header first (the lab shows it) and both sources give the same articles. The
order is scikit-learn's with `shuffle=False`: train then test, groups and file
names sorted as text, so a local copy of the real data gives the same stream
as the fetched one.

A folder or an archive is untrusted input: symlinks and non-files are skipped,
each file is read up to `MAX_FILE_BYTES`, at most `MAX_FILES` files and
`MAX_GROUPS` groups (and an archive's members at most `MAX_ARCHIVE_BYTES` in
all), nothing is unpacked to disk, and bytes are decoded as latin-1 (as
scikit-learn does), which never fails.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.errors import AELError
from engine.network import downloads_allowed

SUBSETS = ("20news-bydate-train", "20news-bydate-test")
MAX_FILE_BYTES = 256 * 1024  # the real corpus's largest post is about 160 KB
MAX_FILES = 40_000           # the real corpus has 18,846
MAX_GROUPS = 100
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024  # the real archive unpacks to about 50 MB
ARCHIVE = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"

# The real by-date corpus: its 20 groups and 18,846 articles (11,314 train, 7,532 test).
# Only a corpus that is this one may stand beside the paper's table.
STANDARD_GROUPS = frozenset((
    "alt.atheism", "comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
    "comp.sys.mac.hardware", "comp.windows.x", "misc.forsale", "rec.autos", "rec.motorcycles",
    "rec.sport.baseball", "rec.sport.hockey", "sci.crypt", "sci.electronics", "sci.med", "sci.space",
    "soc.religion.christian", "talk.politics.guns", "talk.politics.mideast", "talk.politics.misc",
    "talk.religion.misc"))
STANDARD_SIZE = 18_846

# The four topic clusters a regime over-samples; a group in none of them (misc.forsale)
# is only ever drawn in the other 20%.
CLUSTERS = ("comp", "rec", "sci", "talk")
_CLUSTER_OF_PREFIX = {"comp": "comp", "rec": "rec", "sci": "sci", "talk": "talk", "soc": "talk", "alt": "talk"}

# scikit-learn's `_QUOTE_RE` (sklearn/datasets/_twenty_newsgroups.py)
_QUOTE_RE = re.compile(r"(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)")
_SUBJECT = re.compile(r"^subject:\s*(.*)$", re.IGNORECASE | re.MULTILINE)


def cluster_of(group: str) -> str | None:
    """The topic cluster of a newsgroup (`comp.graphics` -> comp, `soc.religion.christian` -> talk)."""
    return _CLUSTER_OF_PREFIX.get(group.split(".", 1)[0])


@dataclass(frozen=True)
class Corpus:
    """The articles in fixed order: parallel tuples of group, subject and stripped body."""

    source: str
    groups: tuple[str, ...]
    subjects: tuple[str, ...]
    texts: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def is_standard(self) -> bool:
        """Whether this is the paper's corpus (the whole 20news-bydate), not another collection."""
        return len(self) == STANDARD_SIZE and set(self.groups) == STANDARD_GROUPS


# ------------------------------------------------------------------ stripping
def strip_header(text: str) -> str:
    _before, _blank, after = text.partition("\n\n")
    return after


def strip_footer(text: str) -> str:
    """Drop the signature: everything from the last blank or all-hyphen line on."""
    lines = text.strip().split("\n")
    line_num = 0
    for line_num in range(len(lines) - 1, -1, -1):
        if lines[line_num].strip().strip("-") == "":
            break
    return "\n".join(lines[:line_num]) if line_num > 0 else text


def strip_quotes(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not _QUOTE_RE.search(line))


def subject_of(raw: str) -> str:
    """The Subject header of a raw post ("" when it has none), one line, at most 120 characters."""
    header = raw.partition("\n\n")[0]
    m = _SUBJECT.search(header)
    return " ".join(m.group(1).split())[:120] if m else ""


def article(raw: str) -> tuple[str, str]:
    """(subject, body) of a raw post, the body stripped as `remove=('headers','footers','quotes')`."""
    return subject_of(raw), strip_quotes(strip_footer(strip_header(raw)))


def _corpus(source: str, groups: list[str], raws: list[str]) -> Corpus:
    subjects, texts = zip(*(article(r) for r in raws)) if raws else ((), ())
    return Corpus(source, tuple(groups), tuple(subjects), tuple(texts))


# ------------------------------------------------------------- a local folder
def _regular_files(folder: Path) -> list[Path]:
    with os.scandir(folder) as it:
        return sorted((Path(e.path) for e in it if e.is_file(follow_symlinks=False)), key=lambda p: p.name)


def _group_dirs(folder: Path) -> list[Path]:
    with os.scandir(folder) as it:
        return sorted((Path(e.path) for e in it if e.is_dir(follow_symlinks=False)), key=lambda p: p.name)


def read_folder(path: str, flag: str = "--data") -> Corpus:
    """The articles of a `20news-bydate` copy at `path`; AELError (one line, naming `flag`) for a bad folder."""
    root = Path(path).expanduser()
    where = f"{flag} {path}"
    if not root.is_dir():
        raise AELError(f"{where}: no such folder (expected one holding 20news-bydate-train/<group>/<files>, "
                       "or the 20news-bydate.tar.gz archive)")
    subsets = [root / s for s in SUBSETS if (root / s).is_dir() and not (root / s).is_symlink()]
    if not subsets:
        raise AELError(f"{where}: no 20news-bydate-train or 20news-bydate-test folder inside "
                       f"(unpack {ARCHIVE} there)")
    groups: list[str] = []
    raws: list[str] = []
    try:
        for subset in subsets:
            dirs = _group_dirs(subset)
            if len(dirs) > MAX_GROUPS:
                raise AELError(f"{where}: {subset.name} has {len(dirs)} group folders (at most {MAX_GROUPS})")
            for d in dirs:
                for f in _regular_files(d):
                    if len(raws) >= MAX_FILES:
                        raise AELError(f"{where}: more than {MAX_FILES} files (the real corpus has 18,846)")
                    with open(f, "rb") as fh:
                        raws.append(fh.read(MAX_FILE_BYTES).decode("latin-1"))
                    groups.append(d.name)
    except OSError as err:
        raise AELError(f"{where}: cannot read {err.filename or 'a file'}: {err.strerror or err}") from None
    if not raws:
        raise AELError(f"{where}: no articles in 20news-bydate-train/<group>/ or 20news-bydate-test/<group>/")
    return _corpus(f"folder {root}", groups, raws)


# ----------------------------------------------------------- the archive
def is_archive(path: str) -> bool:
    return Path(path).expanduser().is_file() and path.endswith((".tar.gz", ".tgz", ".tar"))


def read_archive(path: str, flag: str = "--data") -> Corpus:
    """The articles of `20news-bydate.tar.gz` at `path`, read in place in the folder
    reader's order; AELError (one line, naming `flag`) for a bad archive."""
    import tarfile
    import zlib

    where = f"{flag} {path}"
    found: dict[tuple[int, str], list[tuple[str, str]]] = {}
    count = total = 0
    try:
        with tarfile.open(Path(path).expanduser(), "r:*") as archive:
            for member in archive:
                parts = member.name.strip("/").split("/")
                if not member.isreg() or len(parts) != 3 or parts[0] not in SUBSETS:
                    continue
                total += member.size
                count += 1
                if total > MAX_ARCHIVE_BYTES or count > MAX_FILES:
                    raise AELError(f"{where}: more than {MAX_ARCHIVE_BYTES >> 20} MiB or {MAX_FILES} files "
                                   "(the real corpus unpacks to about 50 MB, 18,846 files)")
                raw = archive.extractfile(member).read(MAX_FILE_BYTES).decode("latin-1")
                found.setdefault((SUBSETS.index(parts[0]), parts[1]), []).append((parts[2], raw))
    except (OSError, tarfile.TarError, EOFError, zlib.error) as err:
        why = (str(err).splitlines() or [type(err).__name__])[0][:160]  # tarfile lists every method it tried
        raise AELError(f"{where}: not a readable 20news-bydate archive ({why})") from None
    for subset in range(len(SUBSETS)):
        if len({g for s, g in found if s == subset}) > MAX_GROUPS:
            raise AELError(f"{where}: {SUBSETS[subset]} has more than {MAX_GROUPS} groups")
    if not found:
        raise AELError(f"{where}: no articles in 20news-bydate-train/<group>/ or 20news-bydate-test/<group>/")
    groups: list[str] = []
    raws: list[str] = []
    for (_subset, group), files in sorted(found.items()):
        for _name, raw in sorted(files):
            groups.append(group)
            raws.append(raw)
    return _corpus(f"archive {Path(path).expanduser()}", groups, raws)


def read_local(path: str, flag: str = "--data") -> Corpus:
    """A local copy: the archive or an unpacked folder."""
    return read_archive(path, flag) if is_archive(path) else read_folder(path, flag)


# ------------------------------------------------------------ scikit-learn
def data_home() -> str:
    from sklearn.datasets import get_data_home

    return get_data_home()


def fetch() -> Corpus:
    """Train then test through `fetch_20newsgroups` (downloads once into the data home);
    AELError saying how to get the data when it is neither there nor downloadable."""
    from sklearn.datasets import fetch_20newsgroups

    home = data_home()
    download = downloads_allowed()  # a served lab's visitor: what is in the data home, never the network
    groups: list[str] = []
    raws: list[str] = []
    try:
        with warnings.catch_warnings():  # its retry warnings would break the one-line error
            warnings.simplefilter("ignore")
            for subset in ("train", "test"):
                bunch = fetch_20newsgroups(data_home=home, subset=subset, remove=(), shuffle=False,
                                           download_if_missing=download)
                groups += [bunch.target_names[i] for i in bunch.target]
                raws += list(bunch.data)
    except Exception as err:  # noqa: BLE001 - any failure to download or read is the same advice
        if not download:
            raise AELError(f"news: the 20 Newsgroups data is not in scikit-learn's data home ({home}), and this "
                           "lab may not download it (a served lab); the teacher can give a local copy: "
                           "ael-lab serve --news-data DIR") from None
        reason = " ".join(str(err).split())[:160] or type(err).__name__
        raise AELError(f"news: the 20 Newsgroups data is not in scikit-learn's data home ({home}) and could not "
                       f"be downloaded ({reason}); run once with network access, or pass --data DIR holding "
                       f"20news-bydate-train/<group>/<files> (unpacked from {ARCHIVE})") from None
    return _corpus(f"scikit-learn ({home})", groups, raws)


@lru_cache(maxsize=4)
def load(data: str) -> Corpus:
    """The corpus for the scenario's `data` option (cached: every seed of a command shares it)."""
    return fetch() if data == "sklearn" else read_local(data)
