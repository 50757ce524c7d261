"""Compile llama-cpp-python (the `local` extra) so it runs on this machine and
on its siblings: `make local` runs `python -m engine.llm.local_build`.

Why not pip's default: llama.cpp's build turns on `GGML_NATIVE`, which compiles
for the exact CPU that builds it (AVX-512, AMX on a big server). The library
then dies with SIGILL, with no message, on a smaller machine sharing the same
home directory, the same image, or the same pip wheel cache. So:

* the instruction set is a fixed baseline, x86-64-v3 (AVX, AVX2, FMA, F16C),
  which every x86 machine of the last ten years has; wider sets are off. A
  builder without AVX2 gets the plain build. Other architectures keep llama.cpp's
  portable defaults with `GGML_NATIVE=OFF`;
* pip compiles from source (`--no-binary`) and bypasses its wheel cache
  (`--no-cache-dir`), so a wheel built elsewhere is never taken;
* a stamp in the virtual environment records the flags it was built with; a
  library built another way (an older `make local`, a plain `pip install`) is
  rebuilt;
* after the build, the model answers one token in a child process
  (`local_model.probe`) before the build is called done;
* then the bundled model is repacked from Q4_1 to Q8_0 once (`local_repack`: about
  1.6 times the speed on this build, the same weights), in a child process, beside a
  stamp; a repack that fails leaves the bundled file in use and says so in one line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
from pathlib import Path

PACKAGE = "llama-cpp-python"
STAMP_NAME = "ael-local-build.json"
BASELINE = ("avx", "avx2", "fma", "f16c")     # x86-64-v3, as /proc/cpuinfo names them
GGML_BASELINE = ("AVX", "AVX2", "FMA", "F16C")
# never compiled in: a machine without them must still run the library
GGML_WIDER = ("AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AVX_VNNI",
              "AMX_TILE", "AMX_INT8", "AMX_BF16", "BMI2")
X86 = {"x86_64", "amd64", "i686", "i386"}
TOOLS_HINT = ("llama-cpp-python compiles from source and needs gcc, g++ and cmake "
              "(Debian/Ubuntu: apt-get install build-essential cmake; macOS: xcode-select --install, brew install cmake)")


def cpu_flags() -> frozenset[str] | None:
    """This CPU's feature flags (Linux's /proc/cpuinfo), or None where they cannot be read."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return None


def cmake_args(machine: str | None = None, flags: frozenset[str] | None = None) -> list[str]:
    """CMake's arguments for a build that runs on this machine and its siblings."""
    machine = (machine or platform.machine()).lower()
    args = ["-DGGML_NATIVE=OFF"]
    if machine in X86:
        # unknown flags (not Linux): the baseline, as on any x86 machine built since 2013
        baseline = flags is None or set(BASELINE) <= flags
        args += [f"-DGGML_{name}={'ON' if baseline else 'OFF'}" for name in GGML_BASELINE]
        args += [f"-DGGML_{name}=OFF" for name in GGML_WIDER]
    return args


def stamp_path(prefix: str | Path = sys.prefix) -> Path:
    return Path(prefix) / STAMP_NAME


def read_stamp(prefix: str | Path = sys.prefix) -> dict | None:
    try:
        data = json.loads(stamp_path(prefix).read_text()[:10_000])
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def installed_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return None


def up_to_date(args: list[str], prefix: str | Path = sys.prefix) -> bool:
    """The installed library was built here by this module with these flags."""
    stamp = read_stamp(prefix)
    version = installed_version()
    return bool(version and stamp and stamp.get("cmake_args") == args and stamp.get("version") == version)


def missing_tools() -> list[str]:
    return [tool for tool in ("cc", "c++", "cmake") if shutil.which(tool) is None]


def pip_command(python: str, extras: str, constraints: str) -> list[str]:
    return [python, "-m", "pip", "install", "--quiet", "--no-cache-dir", "--no-binary", PACKAGE,
            "-c", constraints, "-e", f".[{extras}]"]


def build(python: str, jobs: int, log: Path, constraints: str = "constraints.txt",
          extras: str = "test,local") -> str:
    """Install the local extra with a portable llama-cpp-python; "" when done, else one line."""
    missing = missing_tools()
    if missing:
        return f"{', '.join(missing)} not found; {TOOLS_HINT}"
    args = cmake_args(flags=cpu_flags())
    if installed_version() and not up_to_date(args):
        # built another way (native flags, a cached wheel): pip would keep it, so remove it first
        subprocess.run([python, "-m", "pip", "uninstall", "--quiet", "--yes", PACKAGE],
                       capture_output=True, check=False)
    env = {**os.environ, "CMAKE_ARGS": " ".join(args), "FORCE_CMAKE": "1",
           "CMAKE_BUILD_PARALLEL_LEVEL": str(jobs)}
    with open(log, "w") as out:
        done = subprocess.run(pip_command(python, extras, constraints), stdout=out, stderr=subprocess.STDOUT,
                              env=env, check=False)
    if done.returncode != 0:
        return f"the install failed; the whole log is in {log}"
    stamp = {"version": installed_version(), "cmake_args": args, "machine": platform.machine()}
    stamp_path().write_text(json.dumps(stamp, indent=1) + "\n")
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.llm.local_build",
                                     description="Install the local model's runtime, built to run on this machine's siblings.")
    parser.add_argument("--jobs", type=int, default=2, help="compile jobs (2 leaves a shared machine usable)")
    parser.add_argument("--log", default=str(Path(sys.prefix) / "local-build.log"))
    parser.add_argument("--print-cmake-args", action="store_true", help="print the CMake arguments and stop")
    opts = parser.parse_args(argv)
    args = cmake_args(flags=cpu_flags())
    if opts.print_cmake_args:
        print(" ".join(args))
        return 0
    from .local_model import bundled_model, why_unusable

    if not up_to_date(args) or bundled_model() is None:
        print(f"make local: compiling {PACKAGE} for this machine and its siblings ({' '.join(args)}); "
              "about 10 minutes the first time", flush=True)
        why = build(sys.executable, opts.jobs, Path(opts.log))
        if why:
            log = Path(opts.log)
            if log.is_file():
                print("\n".join(log.read_text(errors="replace").splitlines()[-40:]), file=sys.stderr)
            print(f"make local: {why}", file=sys.stderr)
            return 2 if "not found" in why else 1
    why = why_unusable(refresh=True)
    if why:
        print(f"make local: {why}", file=sys.stderr)
        return 1
    print(f"make local: {repack_bundled()}", flush=True)
    print("make local: done; try .venv/bin/ael-lab run support --episodes 60 --agent local --reflector local")
    return 0


def repack_bundled() -> str:
    """Repack the bundled model to Q8_0 (`local_repack`) unless that is current, and
    probe what the default model now is; one line on which file runs. A repack that
    fails or does not load costs speed, never the install."""
    from . import local_repack
    from .local_model import DEFAULT_LOCAL_MODEL, bundled_model, model_path, why_unusable

    source = bundled_model()
    if source is None:  # checked by the caller's probe; here for the type checker
        return f"the bundled model {DEFAULT_LOCAL_MODEL} is not installed"
    folder = local_repack.models_dir()
    output = local_repack.repacked_path(source, folder)
    if local_repack.is_current(source, folder):
        return f"{DEFAULT_LOCAL_MODEL} runs repacked to {local_repack.QUANTISATION}: {output} (up to date)"
    print(f"make local: repacking {source.name} to {local_repack.QUANTISATION} in {folder} "
          "(faster on this CPU; seconds)", flush=True)
    why = local_repack.repack(source, folder)
    if not why and model_path(None) != output:
        why = "the repacked file does not match its stamp"
    if not why:
        why = why_unusable(refresh=True)  # the probe's verdict, cached for the first run
    if why:
        for path in (local_repack.stamp_path(output), output):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        return f"the model runs unrepacked ({source.name}, slower): {why}"
    return f"{DEFAULT_LOCAL_MODEL} runs repacked to {local_repack.QUANTISATION}: {output}"


if __name__ == "__main__":
    # a terminated make local unwinds (its repack's child stopped, the temporary file removed)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    raise SystemExit(main())
