"""A LaTeX thesis or paper, as a user of Charter has it: chapters in ``.tex`` files, a
bibliography, Charter's own ``charter.toml`` beside them."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.conftest import task_context_paths, write

Run = Callable[..., subprocess.CompletedProcess[str]]


def _thesis(root: Path) -> None:
    write(
        root,
        "paper.tex",
        "\\documentclass{jsbook}\n\\begin{document}\n\\input{chapters/01-introduction}\n\\input{chapters/02-preparation}\n\\end{document}\n",
    )
    write(
        root,
        "chapters/01-introduction.tex",
        "\\chapter{Introduction}\n\nThis thesis studies how mobile apps schedule work; "
        "each chapter cites the papers it builds on.\n",
    )
    write(
        root,
        "chapters/02-preparation.tex",
        "\\chapter{Preparation}\n\n\\section{Tools}\n\nThe apps are written in Kotlin and "
        "built with Gradle; the measurements run on two phones.\n",
    )
    write(
        root,
        "paper.bib",
        "@article{doe2019,\n  title={Structured concurrency},\n"
        "  author={Doe, Jane},\n  year={2019}\n}\n",
    )


def test_latex_chapters_are_indexed_and_searchable(repo: Path, run_charter: Run) -> None:
    """`.tex` files were a type search did not index: in a thesis, all of its text."""
    _thesis(repo)
    assert run_charter("index", cwd=repo).returncode == 0
    query = "which phones run the measurements"
    done = run_charter("search", query, "--mode", "review", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    hits = [r["path"] for r in json.loads(done.stdout)["results"]]
    assert hits and hits[0] == "chapters/02-preparation.tex", hits


def test_a_chapter_named_in_the_task_ranks_first_and_charters_config_not_at_all(
    repo: Path, run_charter: Run
) -> None:
    """ "the preparation chapter" is `02-preparation.tex`: an ordering prefix is no part of
    the name. Charter's own `charter.toml` ranked among the files a task needs."""
    _thesis(repo)
    write(repo, "charter.toml", "# add a related work section on the paper cite chapter\n")
    task = "Add a section on related work to the preparation chapter and cite the paper"
    paths = task_context_paths(run_charter, repo, task)
    assert paths[0] == "chapters/02-preparation.tex", paths
    assert "charter.toml" not in paths, paths


def test_a_name_many_numbered_files_share_names_none_of_them(repo: Path, run_charter: Run) -> None:
    """Every app's `0001_initial.py` would be "named" by a task saying "initial"."""
    for app in ("billing", "users", "orders", "stock"):
        write(repo, f"{app}/migrations/0001_initial.py", "operations = []\n")
    write(repo, "chapters/03-results.tex", "\\chapter{Results}\n")
    done = run_charter("task-context", "the initial results chapter", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    named = {
        n["path"]
        for n in json.loads(done.stdout)["nodes"]
        if "file name named in the task" in n["reasons"]
    }
    assert named == {"chapters/03-results.tex"}, named


def test_sources_of_more_languages_are_code(repo: Path, run_charter: Run) -> None:
    """A Fortran model or an Emacs package had none of its code searchable: `charter
    index` listed `.f90` and `.el` as types it skips, and task context weighed them as
    documents."""
    write(
        repo,
        "src/ocean_mixing.f90",
        "module ocean_mixing\ncontains\n  subroutine vertical_diffusivity(kappa, depth)\n"
        "    real, intent(out) :: kappa\n    real, intent(in) :: depth\n"
        "    kappa = 1.0e-5 * exp(-depth / 500.0)\n  end subroutine\nend module\n",
    )
    write(repo, "lisp/org-sync.el", '(defun org-sync-pull-agenda ()\n  "Pull the agenda.")\n')
    write(repo, "build.gradle", "dependencies {\n  implementation 'org.slf4j:slf4j-api:2.0.9'\n}\n")
    done = run_charter("index", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert not json.loads(done.stdout)["unindexed"], done.stdout
    query = "vertical diffusivity decays with depth"
    found = run_charter("search", query, "--mode", "review", "--json", cwd=repo)
    assert [r["path"] for r in json.loads(found.stdout)["results"]][:1] == ["src/ocean_mixing.f90"]
    task = "The vertical diffusivity is too strong below 500 m depth"
    done = run_charter("task-context", task, "--json", cwd=repo)
    node = json.loads(done.stdout)["nodes"][0]
    assert (node["path"], node["type"]) == ("src/ocean_mixing.f90", "source"), node


def _numbered_examples(root: Path) -> None:
    """A gem's library, several `error.rb` files, and numbered examples beside it."""
    for lib in ("runtime", "tools", "syntax"):
        write(
            root,
            f"lib/{lib}/error.rb",
            "module Gem\n  # an error raised while handling input\n  class Error < StandardError\n"
            "  end\nend\n",
        )
    write(
        root,
        "lib/runtime/bundle.rb",
        "module Gem\n  # Collects errors while formatting; each error is an example of a\n"
        "  # problem the caller may add to its own collection when handling a message.\n"
        "  class Bundle\n    def format(id, errors: nil)\n      errors&.push(id)\n"
        "    end\n  end\nend\n",
    )
    for number, name in ((1, "basic_usage"), (2, "selectors"), (7, "error_handling")):
        write(
            root,
            f"examples/{number:02d}_{name}.rb",
            f'require "gem"\n\n# {name.replace("_", " ")}\nbundle = Gem::Bundle.new\n'
            "puts bundle.format(:hello)\n",
        )


def test_a_numbered_file_named_whole_ranks_first(repo: Path, run_charter: Run) -> None:
    """ "Add error collection example to 07_error_handling" named no file: a word starting
    with a digit was no word of the task, and the name without its ordering prefix was all
    that was compared; a name of several words weighed as little as "error"."""
    _numbered_examples(repo)
    task = "Add error collection example to 07_error_handling"
    paths = task_context_paths(run_charter, repo, task)
    assert paths[0] == "examples/07_error_handling.rb", paths
    # the rest of the name still names it ("the error_handling example")
    paths = task_context_paths(run_charter, repo, "Add error collection to the error_handling one")
    assert paths[0] == "examples/07_error_handling.rb", paths
