"""Jupyter notebooks: cells read with the file lines that store them, outputs never read,
searched cell by cell and parsed for symbols and imports in the graph."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.embed.registry import get_embedder
from charter.errors import CharterError
from charter.graph.api import capsule
from charter.graph.build import build_graph
from charter.graph.extract import extract_file
from charter.notebooks import python_lines, read_notebook
from charter.search.indexer import Indexer
from charter.search.notebook import chunk_notebook
from charter.search.store import SearchStore
from tests.conftest import write
from tests.search_support import open_engine
from tests.secrets_support import make_secrets

CHARTER = Path(sys.executable).with_name("charter")


def _cell(kind: str, source: str | list[str], outputs: list[Any] | None = None) -> dict[str, Any]:
    lines = source if isinstance(source, list) else source.splitlines(keepends=True)
    cell: dict[str, Any] = {"cell_type": kind, "id": f"c{random.random()}", "metadata": {}}
    cell["source"] = lines
    if kind == "code":
        cell["execution_count"] = 1
        cell["outputs"] = outputs or []
    return cell


def notebook_json(cells: list[dict[str, Any]], language: str = "python") -> str:
    """A notebook as Jupyter writes one: sorted keys, one-space indent, raw UTF-8."""
    data = {
        "cells": cells,
        "metadata": {"kernelspec": {"language": language, "name": "k"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


#: outputs that hold what a parser anchored on keys would confuse with sources
TRICKY_OUTPUTS = [
    {"name": "stdout", "output_type": "stream", "text": ['"source": [\n', "def ghost():\n"]},
    {
        "data": {"application/json": {"source": ["class Phantom: pass"]}},
        "metadata": {},
        "output_type": "display_data",
    },
]

CHURN = [
    _cell("markdown", "# Churn model\n\nWe train a classifier on monthly usage.\n"),
    _cell(
        "code",
        "%matplotlib inline\nimport pandas as pd\nfrom churn.features import build_features\n\n"
        "def load_usage(path):\n    !ls data\n    return pd.read_csv(path)\n",
        TRICKY_OUTPUTS,
    ),
    _cell("markdown", "## Feature engineering\n"),
    _cell("code", "class ChurnScorer:\n    def score(self, row):\n        return row.tenure\n"),
    _cell("code", "%%bash\necho not python\n"),
    _cell("code", "!pip install -q \\\n    scikit-learn \\\n    pandas\nX = build_features()\n"),
]


def test_every_source_line_is_tied_to_the_file_line_that_stores_it() -> None:
    text = notebook_json(CHURN)
    physical = text.split("\n")
    notebook = read_notebook(text, "churn.ipynb")
    assert notebook.language == "python"
    assert [c.kind for c in notebook.cells] == ["markdown", "code"] + ["markdown"] + ["code"] * 3
    for cell in notebook.cells:
        lines = cell.source.split("\n")
        assert len(cell.lines) == len(lines)
        for number, line in zip(cell.lines, lines, strict=True):
            if line:  # the stored string on that file line, decoded, is the source line
                stored = json.loads(physical[number - 1].strip().rstrip(","))
                assert stored.rstrip("\n") == line
    # outputs are not sources: their text is nowhere in the notebook's words
    assert "ghost" not in notebook.text() and "Phantom" not in notebook.text()


def test_aligned_code_places_each_symbol_at_its_file_line() -> None:
    text = notebook_json(CHURN)
    physical = text.split("\n")
    aligned = read_notebook(text, "churn.ipynb").aligned_code().split("\n")
    assert len(aligned) == len(physical)
    for number, line in enumerate(aligned, start=1):
        if line.strip() and line.strip() != "pass":
            assert json.loads(physical[number - 1].strip().rstrip(",")).rstrip("\n") == line
    code = "\n".join(aligned)
    assert "def load_usage" in code and "class ChurnScorer" in code
    assert "echo not python" not in code  # a %%bash body is not Python: left out
    assert "X = build_features()" in code  # a shell line continued with ``\`` is skipped
    compile(code, "churn.ipynb", "exec")


def test_magics_become_pass_and_other_languages_stay_text() -> None:
    assert python_lines(["%time x = 1", "y = 2"]) == ["pass", "y = 2"]
    assert python_lines(["if True:", "    !ls", "z = 3"]) == ["if True:", "    pass", "z = 3"]
    assert python_lines(["%%bash", "ls -la | wc"]) is None
    assert python_lines(["def broken(:"]) is None
    r_notebook = notebook_json([_cell("code", "library(dplyr)\nx <- 1\n")], language="R")
    notebook = read_notebook(r_notebook, "a.ipynb")
    assert notebook.language == "r"
    assert "library(dplyr)" in notebook.text()


def test_a_notebook_of_another_kernel_is_words_only_in_the_graph(tmp_path: Path) -> None:
    write(tmp_path, "a.ipynb", notebook_json([_cell("code", "tidy <- function(x) x\n")], "R"))
    record = extract_file(tmp_path, "a.ipynb", 1_000_000)
    assert record["language"] == "text" and "symbols" not in record
    assert record["tf"].get("function") == 1  # its words, stemmed as every file's


def test_a_source_stored_as_one_string_is_cited_at_that_line_and_not_parsed() -> None:
    cells = [_cell("code", "import os\n")]
    cells[0]["source"] = "def one():\n    return 1\n"
    text = notebook_json(cells)
    notebook = read_notebook(text, "a.ipynb")
    (cell,) = notebook.cells
    assert len(set(cell.lines[:2])) == 1  # both lines live in one JSON string
    assert '"def one()' in text.split("\n")[cell.lines[0] - 1]
    assert "def one" not in notebook.aligned_code()


def test_nbformat_3_worksheets_are_read() -> None:
    data = {
        "metadata": {"name": "old"},
        "nbformat": 3,
        "worksheets": [
            {
                "cells": [
                    {"cell_type": "markdown", "metadata": {}, "source": ["# Old notebook\n"]},
                    {
                        "cell_type": "code",
                        "input": ["def legacy():\n", "    return 3\n"],
                        "language": "python",
                        "outputs": [],
                    },
                ]
            }
        ],
    }
    text = json.dumps(data, indent=1)
    notebook = read_notebook(text, "old.ipynb")
    assert [c.kind for c in notebook.cells] == ["markdown", "code"]
    assert "def legacy():" in notebook.aligned_code()


@pytest.mark.parametrize(
    "text", ["{not json", "[1, 2]", '{"metadata": {}}', '{"cells": "none"}', ""]
)
def test_a_file_that_is_not_a_notebook_is_one_clear_error(text: str) -> None:
    with pytest.raises(CharterError) as caught:
        read_notebook(text, "notebooks/bad.ipynb")
    message = str(caught.value)
    assert message.startswith("notebooks/bad.ipynb: not a valid notebook")
    assert "\n" not in message


def test_search_chunks_cells_under_the_notebook_headings() -> None:
    text = notebook_json(CHURN)
    physical = text.split("\n")
    parsed = chunk_notebook(text, "churn.ipynb", 400)
    by_section = {c.section: c for c in parsed.chunks}
    scorer = next(c for s, c in by_section.items() if "class ChurnScorer" in s)
    assert scorer.section.startswith("Churn model > Feature engineering > cell 4")
    assert "class ChurnScorer" in physical[scorer.line_start - 1]
    assert "return row.tenure" in physical[scorer.line_end - 1]
    assert all("ghost" not in c.text and "Phantom" not in c.text for c in parsed.chunks)
    assert len({c.ordinal for c in parsed.chunks}) == len(parsed.chunks)


def _big_output() -> dict[str, Any]:
    """A plot as Jupyter stores one: a base64 PNG on one line, over a megabyte."""
    png = base64.b64encode(random.Random(3).randbytes(1_200_000)).decode()
    return {"data": {"image/png": png}, "metadata": {}, "output_type": "display_data"}


def _notebook_project(root: Path) -> dict[str, str]:
    secrets = make_secrets()
    write(root, "churn/__init__.py", "")
    write(
        root,
        "churn/features.py",
        "def build_features():\n    '''monthly usage features'''\n    return []\n",
    )
    cells = [
        _cell("markdown", "# Retention analysis\n\nWhy do accounts on the annual plan leave?\n"),
        _cell(
            "code",
            "import pandas as pd\nfrom churn.features import build_features\n",
            [_big_output()],
        ),
        _cell("markdown", "## Cohort survival curves\n"),
        _cell(
            "code",
            f"GITHUB_TOKEN = '{secrets['github']}'\n\n"
            "def survival_curve(cohort):\n    return cohort.groupby('month').size()\n",
            [{"name": "stdout", "output_type": "stream", "text": [secrets["stripe"] + "\n"]}],
        ),
    ]
    write(root, "notebooks/retention.ipynb", notebook_json(cells))
    return secrets


def test_search_finds_a_cell_cites_its_lines_and_stores_no_output_or_secret(repo: Path) -> None:
    root = repo
    secrets = _notebook_project(root)
    (root / "charter.toml").write_text('[search.modes.code]\nsearch_paths = ["**"]\n')
    assert (root / "notebooks/retention.ipynb").stat().st_size > 1_000_000  # over the caps
    report = Indexer(Project.load(root), get_embedder("minilm")).run()
    assert "notebooks/retention.ipynb" in report.indexed, report.skipped
    with open_engine(root) as engine:
        found = engine.search("survival curves of a cohort by month", mode="code", log=False)
    hit = next(r for r in found.results if r.path == "notebooks/retention.ipynb")
    assert "Cohort survival curves" in hit.citation
    physical = (root / "notebooks/retention.ipynb").read_text().split("\n")
    start, end = (int(n) for n in hit.citation.split("#L")[1].split(" ")[0].split("-L"))
    assert "def survival_curve" in "\n".join(physical[start - 1 : end])
    with SearchStore.for_state_dir(root / ".charter") as store:
        stored = " ".join(r[0] for r in store.conn.execute("SELECT text FROM chunks"))
    assert "survival_curve" in stored
    assert secrets["github"] not in stored and secrets["stripe"] not in stored
    assert "image/png" not in stored and "iVBOR" not in stored


def test_graph_reads_a_notebook_s_symbols_and_imports_at_its_lines(repo: Path) -> None:
    secrets = _notebook_project(repo)
    graph = build_graph(Project.load(repo))
    nodes = graph.nodes
    curve = next(n for n in graph.nodes.values() if n.name == "survival_curve")
    assert curve.path == "notebooks/retention.ipynb"
    physical = (repo / "notebooks/retention.ipynb").read_text().split("\n")
    assert "def survival_curve" in physical[(curve.line_start or 0) - 1]
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert any(
        s == "src:notebooks/retention.ipynb" and t == "src:churn/features.py"
        for s, t, _relation in edges
    ), sorted(e for e in edges if "retention" in e[0])
    source = nodes["src:notebooks/retention.ipynb"]
    assert source.attrs["language"] == "python" and "note" not in source.attrs
    cache = (repo / ".charter/graph/files.json").read_text()
    assert secrets["github"] not in cache and secrets["stripe"] not in cache
    assert "iVBOR" not in cache
    modules = json.dumps(capsule(Project.load(repo), graph, write=False)["module_map"])
    assert "retention.ipynb" not in modules  # a notebook's functions are no API
    assert "churn/features.py#build_features" in modules


TASK = "plot cohort survival curves for annual plan accounts"


def test_task_context_ranks_the_notebook_a_task_describes(repo: Path) -> None:
    _notebook_project(repo)
    write(repo, "notebooks/pricing.ipynb", notebook_json([_cell("code", "PRICE = 10\n")]))
    done = subprocess.run(
        [str(CHARTER), "task-context", "--project", str(repo), "--json", "--", TASK],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    paths = [n.get("path") for n in json.loads(done.stdout)["nodes"]]
    assert paths[0] == "notebooks/retention.ipynb", paths


def test_a_broken_notebook_is_reported_by_name_and_the_rest_indexed(repo: Path) -> None:
    root = repo
    _notebook_project(root)
    write(root, "notebooks/broken.ipynb", '{"cells": [ {"cell_type": "code",')
    write(root, "tests/fixtures/bad.ipynb", "{oops")  # broken on purpose: quiet
    done = subprocess.run(
        [str(CHARTER), "index", "--project", str(root)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "notebooks/broken.ipynb: not a valid notebook" in done.stderr
    assert "bad.ipynb" not in done.stderr and "Traceback" not in done.stderr
    graph = build_graph(Project.load(root))
    broken = next(n for n in graph.nodes.values() if n.path == "notebooks/broken.ipynb")
    assert broken.attrs.get("note") == "not a valid notebook: file level only"


def test_secrets_in_a_notebook_are_judged_cell_by_cell(repo: Path) -> None:
    """A code cell that reads a key from a file is code, not a sentence naming a secret
    (the keyword rule for prose flagged it in three cells of a real course repository);
    a password written in a Markdown cell is still prose with a secret in it."""
    root = repo
    secrets = make_secrets()
    cells = [
        _cell("markdown", f"Log in to the staging box with password: {secrets['db_password']}\n"),
        _cell(
            "code",
            'with open("config.json") as handle:\n    config = json.load(handle)\n'
            '    api_key = config["OPENAI_API_KEY"]\n',
        ),
    ]
    write(root, "notebooks/setup.ipynb", notebook_json(cells))
    report = Indexer(Project.load(root), get_embedder("hash")).run()
    assert report.redacted == {"notebooks/setup.ipynb": 1}, report.redacted
    with SearchStore.for_state_dir(root / ".charter") as store:
        stored = " ".join(r[0] for r in store.conn.execute("SELECT text FROM chunks"))
    assert 'api_key = config["OPENAI_API_KEY"]' in stored
    assert secrets["db_password"] not in stored
    graph = build_graph(Project.load(root))
    assert graph.nodes["src:notebooks/setup.ipynb"].attrs["language"] == "python"
    cache = (root / ".charter/graph/files.json").read_text()
    assert secrets["db_password"] not in cache and "openai_api_key" in cache.lower()
