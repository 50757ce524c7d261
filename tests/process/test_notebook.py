"""examples/notebook.ipynb runs: executed top to bottom in a real kernel (ipykernel, this
interpreter), as a reader opening it would; and it is the same notebook as its Jupytext
percent form examples/notebook.py, committed without outputs. Its work (a support run to 920
and two to the end, five charts, a 4-run sweep) is about 3 s of CPU (`time python
examples/notebook.py`, user+sys: 3.0 to 3.3 s, 2026-11-28); the test took 13 to 23 s of wall
time on the shared two cores at a load average over 20."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_notebook_is_its_percent_form_and_carries_no_outputs():
    import jupytext  # here, not at collection: every worker collects this module
    import nbformat

    notebook = nbformat.read(EXAMPLES / "notebook.ipynb", as_version=4)
    percent = jupytext.read(EXAMPLES / "notebook.py")
    assert [(c.cell_type, c.source) for c in notebook.cells] == [(c.cell_type, c.source) for c in percent.cells], \
        "regenerate: .venv/bin/jupytext --to ipynb examples/notebook.py -o examples/notebook.ipynb"
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in notebook.cells if c.cell_type == "code")


@pytest.mark.heavy  # a kernel, support runs, a sweep: seconds
def test_the_notebook_executes_and_shows_its_proposals_charts_and_sweep(tmp_path):
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    notebook = nbformat.read(EXAMPLES / "notebook.ipynb", as_version=4)
    kernel = KernelManager(kernel_name="python3")
    assert kernel.format_kernel_cmd()[0] == sys.executable  # ipykernel in this interpreter: this ael_lab
    NotebookClient(notebook, km=kernel, timeout=180, resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    text = "\n".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "at episode 920 of 1200 (train); waiting: #1 insight, #2 arm" in text
    assert "the reflection read 0.5583" in text and "accuracy over episodes 800-919: 0.5583" in text
    assert sum("image/svg+xml" in o.get("data", {}) for o in outputs) == 5  # arms twice, reward, regret, regimes
    assert "<ael_lab.sweep.SweepTables: 4 runs" in text
    assert list(tmp_path.iterdir()) == []  # it writes nothing where it runs (its sweep goes to a temporary folder)
