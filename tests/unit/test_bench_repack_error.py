"""`python -m bench.repack_error`: how far the Q8_0 repack moved the bundled weights, read
from two hand-built GGUF files (one Q4_1 tensor, one F32) with known values."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from bench.repack_error import F32, Q4_1, Q8_0, largest_change_per_step


def gguf(path, tensors):
    """A GGUF v3 file of `tensors`: [(name, ggml type, raw bytes, elements)], aligned to 32."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 0)
    infos, blob = b"", b""
    for name, kind, raw, n in tensors:
        infos += (struct.pack("<Q", len(name)) + name.encode() + struct.pack("<IQ", 1, n)
                  + struct.pack("<IQ", kind, len(blob)))
        blob += raw + bytes(-len(raw) % 32)
    meta = head + infos
    path.write_bytes(meta + bytes(-len(meta) % 32) + blob)
    return path


def q4_1(step, low, q):
    nibbles = bytes((q[j] & 15) | (q[j + 16] << 4) for j in range(16))
    return np.float16(step).tobytes() + np.float16(low).tobytes() + nibbles


def q8_0(step, q):
    return np.float16(step).tobytes() + np.array(q, np.int8).tobytes()


QS = [j % 16 for j in range(32)]  # values low + step * q: -1.0 .. 0.875
BIAS = np.arange(4, dtype=np.float32).tobytes()


def test_the_largest_change_is_measured_in_q4_1_steps(tmp_path):
    bundled = gguf(tmp_path / "a.gguf", [("w", Q4_1, q4_1(0.125, -1.0, QS), 32), ("b", F32, BIAS, 4)])
    exact = [round((-1.0 + 0.125 * q) / (1 / 127) ) for q in QS]  # Q8_0 with a step of 1/127
    repacked = gguf(tmp_path / "b.gguf", [("w", Q8_0, q8_0(1 / 127, exact), 32), ("b", F32, BIAS, 4)])
    change = largest_change_per_step(bundled, repacked)
    assert 0 < change <= (1 / 127) / 2 / 0.125 + 1e-3  # within half a Q8_0 step, in Q4_1 steps
    off = list(exact)
    off[3] += 4  # one weight moved by 4/127, about a quarter of a Q4_1 step
    assert largest_change_per_step(bundled, gguf(tmp_path / "c.gguf", [("w", Q8_0, q8_0(1 / 127, off), 32),
                                                                      ("b", F32, BIAS, 4)])) > 0.2


def test_a_tensor_the_repack_should_not_touch_must_come_back_equal(tmp_path):
    bundled = gguf(tmp_path / "a.gguf", [("b", F32, BIAS, 4)])
    changed = gguf(tmp_path / "b.gguf", [("b", F32, np.arange(1, 5, dtype=np.float32).tobytes(), 4)])
    with pytest.raises(ValueError, match="changed"):
        largest_change_per_step(bundled, changed)


def test_a_malformed_or_missing_file_is_one_line_and_exit_code_2(tmp_path, capsys):
    from bench.repack_error import main

    good = gguf(tmp_path / "good.gguf", [("b", F32, BIAS, 4)])
    data = good.read_bytes()
    hostile = {
        "not_gguf": b"NOPE" + data[4:],
        "empty": b"",
        "truncated_header": data[:10],
        "huge_counts": data[:8] + struct.pack("<QQ", 2**62, 2**62) + data[24:],
        "unknown_meta_kind": b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1) + b"k"
                             + struct.pack("<I", 99) + bytes(16),
        "tensor_outside": gguf(tmp_path / "far.gguf", [("b", F32, BIAS, 2**40)]).read_bytes(),
    }
    for name, content in hostile.items():
        path = tmp_path / f"{name}.gguf"
        path.write_bytes(content)
        assert main([str(good), str(path)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("repack_error: ") and err.count("\n") == 1, (name, err)
    assert main([str(good), str(tmp_path / "missing.gguf")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
