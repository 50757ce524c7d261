"""How far `make local`'s Q8_0 repack moved the bundled model's weights
(`engine/llm/local_repack.py`): every tensor of both GGUF files dequantised with
numpy, and each Q4_1 block's largest change divided by that block's step (the
distance between two of its representable values). Under 1/16 means the repack
keeps every weight far closer to the bundled value than Q4_1 itself can resolve.

    .venv/bin/python -m bench.repack_error [BUNDLED.gguf REPACKED.gguf]

`python -m bench local` reports it as a row beside the call timings.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

import numpy as np

F32, F16, Q4_1, Q8_0 = 0, 1, 3, 8  # ggml's type ids
BLOCK = 32  # weights per Q4_1 and Q8_0 block
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def _read(f, fmt: str) -> tuple:
    size = struct.calcsize("<" + fmt)
    raw = f.read(size)
    if len(raw) != size:
        raise ValueError("the file ends inside its header")
    return struct.unpack("<" + fmt, raw)


def _count(f, n: int) -> int:
    """A count read from the file, refused when more items than bytes are left (each takes one
    at least): a damaged header would otherwise loop or allocate without end."""
    left = os.fstat(f.fileno()).st_size - f.tell()
    if n > left:
        raise ValueError(f"the header counts {n} items where {left} bytes are left")
    return n


def _string(f) -> str:
    (n,) = _read(f, "Q")
    return f.read(_count(f, n)).decode("utf-8", errors="replace")


def _value(f, kind: int):
    if kind == 8:
        return _string(f)
    if kind == 9:
        inner, n = _read(f, "IQ")
        return [_value(f, inner) for _ in range(_count(f, n))]
    if kind not in _SCALARS:
        raise ValueError(f"unknown metadata type {kind}")
    return _read(f, _SCALARS[kind])[0]


def tensors(path: Path) -> tuple[dict[str, tuple[int, int, int]], np.ndarray]:
    """{name: (elements, ggml type, byte offset)} and the file's bytes (memory-mapped)."""
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError(f"{path} is not a GGUF file")
        _, n_tensors, n_kv = _read(f, "IQQ")
        n_tensors, n_kv = _count(f, n_tensors), _count(f, n_kv)
        meta = {}
        for _ in range(n_kv):
            key = _string(f)
            (kind,) = _read(f, "I")
            meta[key] = _value(f, kind)
        infos = []
        for _ in range(n_tensors):
            name = _string(f)
            (n_dims,) = _read(f, "I")
            dims = _read(f, "Q" * _count(f, n_dims))
            kind, offset = _read(f, "IQ")
            infos.append((name, int(np.prod(dims)), kind, offset))
        align = int(meta.get("general.alignment", 32))
        start = (f.tell() + align - 1) // align * align
    data = np.memmap(path, dtype=np.uint8, mode="r")
    return {name: (n, kind, start + offset) for name, n, kind, offset in infos}, data


def dequantise(data: np.ndarray, n: int, kind: int, at: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The tensor's values, and each block's step (None for float tensors)."""
    if not 0 <= at <= len(data) or n > len(data):
        raise ValueError("a tensor lies outside the file")
    if kind == F32:
        return np.frombuffer(data[at:at + 4 * n], np.float32).astype(np.float64), None
    if kind == F16:
        return np.frombuffer(data[at:at + 2 * n], np.float16).astype(np.float64), None
    blocks = n // BLOCK
    if kind == Q4_1:  # f16 scale, f16 minimum, 16 bytes: weight j in the low nibble, j + 16 in the high
        raw = np.frombuffer(data[at:at + blocks * 20], np.uint8).reshape(blocks, 20)
        step = raw[:, 0:2].copy().view(np.float16).astype(np.float64)
        low = raw[:, 2:4].copy().view(np.float16).astype(np.float64)
        q = np.concatenate([raw[:, 4:] & 15, raw[:, 4:] >> 4], axis=1).astype(np.float64)
        return (step * q + low).ravel(), step.ravel()
    if kind == Q8_0:  # f16 scale, 32 signed bytes
        raw = np.frombuffer(data[at:at + blocks * 34], np.uint8).reshape(blocks, 34)
        step = raw[:, 0:2].copy().view(np.float16).astype(np.float64)
        return (step * raw[:, 2:].copy().view(np.int8).astype(np.float64)).ravel(), step.ravel()
    raise ValueError(f"ggml type {kind} is not read here")


def largest_change_per_step(bundled: Path, repacked: Path) -> float:
    """The largest |repacked - bundled| of any weight over its Q4_1 block's step; a tensor
    of another type must come back equal."""
    a, a_data = tensors(bundled)
    b, b_data = tensors(repacked)
    if a.keys() != b.keys():
        raise ValueError("the two files hold different tensors")
    worst = 0.0
    for name, (n, kind, at) in a.items():
        x, step = dequantise(a_data, n, kind, at)
        y, _ = dequantise(b_data, *b[name])
        change = np.abs(x - y)
        if kind == Q4_1:
            per_block = change.reshape(-1, BLOCK).max(axis=1) / np.maximum(step, np.finfo(np.float64).tiny)
            worst = max(worst, float(per_block.max()))
        elif change.max() > 0:
            raise ValueError(f"{name} ({kind}) changed in the repack")
    return worst


def default_files() -> tuple[Path, Path] | None:
    from engine.llm.local_model import bundled_model
    from engine.llm.local_repack import usable_repack

    source = bundled_model()
    repacked = usable_repack(source) if source else None
    return (source, repacked) if source and repacked else None


def main(argv: list[str]) -> int:
    files = (Path(argv[0]), Path(argv[1])) if len(argv) == 2 else default_files()
    if files is None:
        print("no repacked model here (make local writes one)", file=sys.stderr)
        return 2
    try:
        worst = largest_change_per_step(*files)
    except (OSError, ValueError) as exc:  # a missing or malformed file: one line, no traceback
        print(f"repack_error: {exc}", file=sys.stderr)
        return 2
    print(f"largest weight change / its Q4_1 block's step: {worst:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
