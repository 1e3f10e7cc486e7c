"""Every notebook in notebooks/ runs top to bottom, offline, in a fresh kernel."""

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {
        "01_quickstart.ipynb",
        "02_compose.ipynb",
        "03_evaluate.ipynb",
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on failure
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert errors == []
    if path.name == "01_quickstart.ipynb":  # both debate graphs are pictures, not a repr
        drawn = [c for c in notebook.cells if "graph_figure(" in c.source and "import" not in
                 c.source.splitlines()[-1]]  # fmt: skip
        assert len(drawn) == 2
        for cell in drawn:
            kinds = [o.get("data", {}) for o in cell.outputs if o.output_type == "execute_result"]
            assert kinds and "image/png" in kinds[0], cell.source
