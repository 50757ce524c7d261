"""The 20 Newsgroups articles: from scikit-learn's data home or a local folder.

Three sources, one result (`Corpus`: every article's group, subject and body, in
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

- the archive itself (`20news-bydate.tar.gz`, or any tar scikit-learn's
  layout fits), read member by member in memory: nothing is extracted.

A folder or an archive is untrusted input: symlinks, links and non-files are
skipped, each file is read up to `MAX_FILE_BYTES`, at most `MAX_FILES` files
and `MAX_GROUPS` groups (an archive also at most `MAX_MEMBERS` members and
`MAX_ARCHIVE_BYTES` of content), a member's path must be exactly
`<subset>/<group>/<file>` (no `..`, no absolute path), and bytes are decoded
as latin-1 (as scikit-learn does), which never fails.
"""

from __future__ import annotations

import os
import re
import tarfile
import warnings
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.data_files import open_data
from engine.errors import AELError
from engine.network import downloads_allowed

SUBSETS = ("20news-bydate-train", "20news-bydate-test")
MAX_FILE_BYTES = 256 * 1024  # the real corpus's largest post is about 160 KB
MAX_FILES = 40_000           # the real corpus has 18,846
MAX_GROUPS = 100
MAX_MEMBERS = 50_000              # the real archive has 18,888 (its folders included)
MAX_ARCHIVE_BYTES = 400 * 2**20   # of members' content; the real archive unpacks to about 85 MB
MAX_ARCHIVE_FILE_BYTES = MAX_ARCHIVE_BYTES + MAX_MEMBERS * 1024  # the archive file: content and headers
_MEMBER = re.compile(r"^(?:\./)?(20news-bydate-(?:train|test))/([^/]+)/([^/]+)$")
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
        raise AELError(f"{where}: no such folder or archive (expected 20news-bydate.tar.gz or a folder holding "
                       "20news-bydate-train/<group>/<files>)")
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


# --------------------------------------------------------------- an archive
def is_archive(path: str) -> bool:
    """Whether `path` names a file (not a folder) that `--data` should read as a tar archive."""
    p = Path(path).expanduser()
    return p.is_file() and (path.endswith((".tar.gz", ".tgz", ".tar")) or tarfile.is_tarfile(p))


def read_archive(path: str, flag: str = "--data") -> Corpus:
    """The articles of a `20news-bydate.tar.gz` at `path`, read in memory (nothing written
    to disk); AELError (one line, naming `flag`) for a bad or hostile archive."""
    where = f"{flag} {path}"
    files: dict[tuple[str, str, str], str] = {}
    total = members = 0
    groups_seen: set[tuple[str, str]] = set()
    try:
        # a regular file within its cap, checked before the open reads it (a FIFO or device
        # named by a save would otherwise be read forever)
        with open_data(path, where, MAX_ARCHIVE_FILE_BYTES) as raw, tarfile.open(fileobj=raw, mode="r:*") as tar:
            for member in tar:
                members += 1
                if members > MAX_MEMBERS:
                    raise AELError(f"{where}: more than {MAX_MEMBERS} members in the archive "
                                   "(the real one has 18,888)")
                m = _MEMBER.match(member.name)
                if not member.isreg() or not m or ".." in m.groups():
                    continue  # folders, links, devices, other paths: never followed, never read
                subset, group, name = m.groups()
                groups_seen.add((subset, group))
                if len(groups_seen) > 2 * MAX_GROUPS:
                    raise AELError(f"{where}: more than {MAX_GROUPS} group folders per split")
                if len(files) >= MAX_FILES:
                    raise AELError(f"{where}: more than {MAX_FILES} files (the real corpus has 18,846)")
                total += member.size  # declared sizes: a bomb is refused before it is inflated
                if total > MAX_ARCHIVE_BYTES:
                    raise AELError(f"{where}: more than {MAX_ARCHIVE_BYTES // 2**20} MB of articles "
                                   "(the real corpus has about 85 MB)")
                handle = tar.extractfile(member)
                if handle is None:
                    continue
                files[(subset, group, name)] = handle.read(MAX_FILE_BYTES).decode("latin-1")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as err:
        reason = getattr(err, "strerror", None) or " ".join(str(err).split())[:120] or type(err).__name__
        raise AELError(f"{where}: cannot read it as a 20news-bydate archive ({reason})") from None
    if not files:
        raise AELError(f"{where}: no articles at 20news-bydate-train/<group>/<file> or "
                       "20news-bydate-test/<group>/<file> in the archive")
    # scikit-learn's order, as `read_folder`: train then test, groups then files sorted as text
    order = sorted(files, key=lambda k: (SUBSETS.index(k[0]), k[1], k[2]))
    return _corpus(f"archive {Path(path).expanduser().resolve()}", [k[1] for k in order],
                   [files[k] for k in order])


# ------------------------------------------------------------ scikit-learn
def data_home() -> str:
    from sklearn.datasets import get_data_home

    return get_data_home()


PICKLE_CACHE = "20news-bydate_py3.pkz"  # what fetch_20newsgroups keeps in the data home


def check_pickle_cache(home: str) -> None:
    """AELError (one line) when scikit-learn's cache file in `home` is there but is not a
    regular file: its plain open() would follow a symlink out of the folder, or wait for
    ever on a FIFO. Its content is scikit-learn's own (a compressed pickle it wrote, read
    back without a checksum): a damaged one fails to load and is the usual one-line error."""
    import stat

    path = os.path.join(home, PICKLE_CACHE)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # not there: scikit-learn downloads it
    if not stat.S_ISREG(mode):
        raise AELError(f"news: {path} is not a regular file (a symlink, FIFO or device where scikit-learn keeps "
                       "its copy of the 20 Newsgroups data); remove it, or pass --data DIR")


# What scikit-learn's cache may hold: its Bunch of lists of text and numpy arrays of
# numbers and names. Anything else named in the pickle is refused before it is built,
# so a file planted in the data home cannot run code in this process.
_CACHE_CLASSES = {
    ("sklearn.utils._bunch", "Bunch"), ("sklearn.utils", "Bunch"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
}
MAX_CACHE_BYTES = 256 * 2**20  # compressed; the real cache is about 15 MB
MAX_CACHE_INFLATED = 1024 * 2**20


def read_pickle_cache(path: str) -> dict:
    """scikit-learn's `20news-bydate_py3.pkz`, read without trusting it: a regular file only,
    size-capped, inflated with a cap, unpickled with only the classes above allowed, and its
    shape checked; AELError (one line, naming the file) otherwise."""
    import io
    import pickle

    from engine.store.cache_files import read_regular

    class _Only(pickle.Unpickler):
        def find_class(self, module: str, name: str):
            if (module, name) not in _CACHE_CLASSES:
                raise pickle.UnpicklingError(f"it names {module}.{name}")
            return super().find_class(module, name)

    try:
        raw = read_regular(path, MAX_CACHE_BYTES)
        if raw is None:
            raise ValueError(f"not a regular file of at most {MAX_CACHE_BYTES >> 20} MiB")
        inflater = zlib.decompressobj()
        data = inflater.decompress(raw, MAX_CACHE_INFLATED)
        if inflater.unconsumed_tail:
            raise ValueError(f"it inflates past {MAX_CACHE_INFLATED >> 20} MiB")
        cache = _Only(io.BytesIO(data)).load()
        for subset in ("train", "test"):
            bunch = cache[subset]
            names, target, texts = list(bunch["target_names"]), bunch["target"], bunch["data"]
            if not (all(isinstance(n, str) for n in names) and all(isinstance(t, str) for t in texts)
                    and len(target) == len(texts) and all(0 <= int(i) < len(names) for i in target)):
                raise ValueError("its articles, groups and labels do not fit together")
    except Exception as err:  # noqa: BLE001 - whatever is wrong with it, the advice is the same
        reason = " ".join(str(err).split())[:160] or type(err).__name__
        raise AELError(f"news: {path} is not scikit-learn's 20 Newsgroups cache as it writes it ({reason}); "
                       "delete it to download again, or pass --data with the archive or a folder") from None
    return cache


def fetch() -> Corpus:
    """Train then test from scikit-learn's data home: its cache read here without trusting it
    (`read_pickle_cache`), or, when there is none, `fetch_20newsgroups` downloading it once;
    AELError saying how to get the data when it is neither there nor downloadable."""
    home = data_home()
    download = downloads_allowed()  # a served lab's visitor: what is in the data home, never the network
    check_pickle_cache(home)
    cached = os.path.join(home, PICKLE_CACHE)
    downloaded = not os.path.lexists(cached)
    cache = _download(home, download) if downloaded else read_pickle_cache(cached)
    groups: list[str] = []
    raws: list[str] = []
    for subset in ("train", "test"):
        bunch = cache[subset]
        groups += [bunch["target_names"][int(i)] for i in bunch["target"]]
        raws += list(bunch["data"])
    from .corpus_seal import check  # the articles as this lab first read them, or one line

    check(home, cached, groups, raws, downloaded)
    return _corpus(f"scikit-learn ({home})", groups, raws)


def _download(home: str, download: bool) -> dict:
    """The by-date archive through `fetch_20newsgroups`, which writes its cache as it goes
    (read back by `read_pickle_cache` from then on)."""
    from sklearn.datasets import fetch_20newsgroups

    try:
        with warnings.catch_warnings():  # its retry warnings would break the one-line error
            warnings.simplefilter("ignore")
            return {subset: fetch_20newsgroups(data_home=home, subset=subset, remove=(), shuffle=False,
                                               download_if_missing=download)
                    for subset in ("train", "test")}
    except Exception as err:  # noqa: BLE001 - any failure to download or read is the same advice
        if not download:
            raise AELError(f"news: the 20 Newsgroups data is not in scikit-learn's data home ({home}), and this "
                           "lab may not download it (a served lab); the teacher can give a local copy: "
                           "ael-lab serve --news-data DIR") from None
        reason = " ".join(str(err).split())[:160] or type(err).__name__
        raise AELError(f"news: the 20 Newsgroups data is not in scikit-learn's data home ({home}) and could not "
                       f"be downloaded ({reason}); run once with network access, or pass --data DIR holding "
                       f"20news-bydate-train/<group>/<files> (unpacked from {ARCHIVE})") from None


def read_local(path: str, flag: str = "--data") -> Corpus:
    """A local copy: the archive or an unpacked folder."""
    return read_archive(path, flag) if is_archive(path) else read_folder(path, flag)


@lru_cache(maxsize=4)
def load(data: str) -> Corpus:
    """The corpus for the scenario's `data` option (cached: every seed of a command shares it)."""
    return fetch() if data == "sklearn" else read_local(data)
