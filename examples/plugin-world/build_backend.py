"""A PEP 517 build backend in 50 lines of the standard library, so this example installs
offline with nothing but pip (`pip install --no-build-isolation examples/plugin-world`).

It reads pyproject.toml's [project] (name, version, description, requires-python,
entry-points) and [tool.plugin-world] py-modules, and writes a pure-Python wheel. A real
plugin would use setuptools, hatchling or flit; this one must build where no build tool is
installed and nothing can be downloaded.
"""

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _project():
    doc = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))
    return doc["project"], doc["tool"]["plugin-world"]["py-modules"]


def _metadata(project) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    return "\n".join(lines) + "\n"


def _entry_points(project) -> str:
    return "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
                   for group, entries in project.get("entry-points", {}).items())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project, modules = _project()
    dist = project["name"].replace("-", "_")
    info = f"{dist}-{project['version']}.dist-info"
    files = {f"{m}.py": (HERE / f"{m}.py").read_bytes() for m in modules}
    files[f"{info}/METADATA"] = _metadata(project).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: plugin-world build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/entry_points.txt"] = _entry_points(project).encode()
    record = []
    name = f"{dist}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as whl:
        for arc, data in files.items():
            whl.writestr(arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{arc},sha256={digest},{len(data)}")
        whl.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return name
