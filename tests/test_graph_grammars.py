"""Each tree-sitter grammar loads only when a file of its language is parsed: a project
without Go never imports the Go grammar, so a cold hook stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write


def grammars_loaded_by_build(root: Path) -> list[str]:
    """The tree-sitter grammar wheels a fresh process imports to build ``root``'s graph
    (``tree_sitter_python``, …): a grammar must load only for a file of its language."""
    probe = (
        "import sys\nfrom charter.config import Project\n"
        "from charter.graph.build import build_graph\n"
        f"build_graph(Project.load(__import__('pathlib').Path({str(root)!r})))\n"
        "print(sorted(m for m in sys.modules if m.startswith('tree_sitter_') and '.' not in m))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.strip().replace("'", '"'))
    return loaded


@pytest.mark.parametrize(
    ("path", "text", "grammar"),
    [
        ("cmd/tool/main.go", "package main\n\nfunc main() {}\n", "tree_sitter_go"),
        ("src/main/kotlin/App.kt", "fun main() {}\n", "tree_sitter_kotlin"),
        ("lib/tasks.rb", "class Tasks\nend\n", "tree_sitter_ruby"),
        ("app/Kernel.php", "<?php\nnamespace App;\nclass Kernel {}\n", "tree_sitter_php"),
        ("src/ring.c", "int ring_size(void) { return 0; }\n", "tree_sitter_c"),
        ("src/table.cc", "class Table {};\n", "tree_sitter_cpp"),
        ("Sources/Ring.m", "@implementation Ring\n@end\n", "tree_sitter_objc"),
        ("src/ring.zig", "pub fn size() usize {\n    return 0;\n}\n", "tree_sitter_zig"),
        ("src/Web/Program.cs", "var app = WebApplication.Create(args);\n", "tree_sitter_c_sharp"),
        ("Sources/App/App.swift", "struct App {}\n", "tree_sitter_swift"),
        ("lib/shop/cart.ex", "defmodule Shop.Cart do\nend\n", "tree_sitter_elixir"),
        ("src/main/scala/App.scala", "object App\n", "tree_sitter_scala"),
        ("lua/finder/init.lua", "local M = {}\nreturn M\n", "tree_sitter_lua"),
        ("lib/main.dart", "void main() {}\n", "tree_sitter_dart"),
        ("infra/main.tf", 'resource "aws_s3_bucket" "logs" {}\n', "tree_sitter_hcl"),
        ("src/Vault.sol", "contract Vault {}\n", "tree_sitter_solidity"),
        ("hack/build.sh", "build() {\n  go build ./...\n}\n", "tree_sitter_bash"),
    ],
)
def test_a_grammar_loads_only_when_a_file_of_its_language_is_parsed(
    repo: Path, path: str, text: str, grammar: str
) -> None:
    write(repo, "app.py", "def main():\n    return 1\n")
    write(repo, "composer.json", '{"autoload": {"psr-4": {"App\\\\": "app/"}}}\n')
    # .NET project files and templates are text: no C# grammar for them
    write(repo, "src/Web/Web.csproj", '<Project Sdk="Microsoft.NET.Sdk.Web" />\n')
    write(repo, "src/Web/Pages/Index.cshtml", "@page\n<h1>Hello</h1>\n")
    assert grammars_loaded_by_build(repo) == ["tree_sitter_python"]  # no manifest loads one
    write(repo, path, text)
    # app.py is unchanged (cached): only the new file is parsed
    assert grammars_loaded_by_build(repo) == [grammar]


@pytest.mark.parametrize(
    ("folder", "suffix", "broken", "language"),
    [
        ("src/Web", ".cs", "namespace Acme.Web;\npublic class Broken { void M( { }\n", "csharp"),
        ("Sources/TodoKit", ".swift", "struct Broken { func f( { }\n", "swift"),
        ("lib/shop", ".ex", "defmodule Broken do\n  def f(, do\n", "elixir"),
        ("app", ".rb", "class Broken\n  def x(\nend\n", "ruby"),
        ("core/src/main/scala", ".scala", "class Broken { def f( = }\n", "scala"),
        ("lua/finder", ".lua", "local M = {}\nfunction M.open(\nreturn M\n", "lua"),
        ("lib/src", ".dart", "class Broken { void f( { }\n", "dart"),
        ("modules/storage", ".tf", 'resource "aws_s3_bucket" "logs" {\n  bucket = \n', "hcl"),
        ("src", ".sol", "contract Broken {\n  function f( {\n}\n", "solidity"),
        ("proto/acme/v1", ".proto", "package acme.v1;\nmessage Broken {\n  int32 x = \n", "proto"),
    ],
)
def test_a_broken_empty_or_binary_source_keeps_the_build(
    repo: Path, folder: str, suffix: str, broken: str, language: str
) -> None:
    """A file its grammar cannot read is kept with a note and whatever symbols the parser
    recovered, an empty one keeps its language, a binary one is a binary file, and the
    other files are built as before."""
    from charter.config import Project
    from charter.graph.build import build_graph

    write(repo, "app.py", "def main():\n    return 1\n")
    write(repo, f"{folder}/Broken{suffix}", broken)
    write(repo, f"{folder}/Empty{suffix}", "")
    (repo / folder / f"Blob{suffix}").write_bytes(b"\x00\xff\xfe binary")
    graph = build_graph(Project.load(repo))
    assert "syntax errors" in graph.nodes[f"src:{folder}/Broken{suffix}"].attrs["note"]
    assert graph.nodes[f"src:{folder}/Empty{suffix}"].attrs["language"] == language
    assert graph.nodes[f"src:{folder}/Blob{suffix}"].attrs["language"] == "binary"
    assert "sym:app.py#main" in graph.nodes


def _builders() -> list[tuple[str, Any, str]]:
    from tests.test_graph_c import make_c_project
    from tests.test_graph_dart import make_dart_project
    from tests.test_graph_elixir import make_elixir_project
    from tests.test_graph_hcl import make_terraform_project
    from tests.test_graph_lua import make_lua_project
    from tests.test_graph_php import make_php_project
    from tests.test_graph_proto import make_proto_project
    from tests.test_graph_ruby import make_ruby_project
    from tests.test_graph_scala import make_scala_project
    from tests.test_graph_shell import make_shell_project
    from tests.test_graph_solidity import make_solidity_project
    from tests.test_graph_swift import make_swift_project

    return [
        ("c", make_c_project, "Table.Get"),
        ("dart", make_dart_project, "TodoItem.markDone"),
        ("elixir", make_elixir_project, "Shop.Cart.total"),
        ("hcl", make_terraform_project, "aws_s3_bucket.logs"),
        ("lua", make_lua_project, "Picker.refresh_results"),
        ("php", make_php_project, "App\\\\Models\\\\Account"),
        ("proto", make_proto_project, "acme.jobs.v1.JobService.CreateJob"),
        ("ruby", make_ruby_project, "Account::Syncer.perform_sync"),
        ("scala", make_scala_project, "Task.normalizedTitle"),
        ("solidity", make_solidity_project, "FeeMath.applyFee"),
        ("shell", make_shell_project, "push_images"),
        ("swift", make_swift_project, "TodoItem.markDone"),
    ]


@pytest.mark.parametrize(
    "language",
    [
        "c",
        "dart",
        "elixir",
        "hcl",
        "lua",
        "php",
        "proto",
        "ruby",
        "scala",
        "shell",
        "solidity",
        "swift",
    ],
)
def test_each_language_s_snapshot_is_byte_identical_across_fresh_builds(
    repo: Path, language: str
) -> None:
    """Two builds from no graph state give the same bytes (the snapshot's time is HEAD's
    commit time, not the clock's), with the language's symbols in them."""
    from tests.conftest import commit_all, fresh_snapshot_sha256

    make, symbol = next((m, s) for name, m, s in _builders() if name == language)
    make(repo)
    commit_all(repo)
    assert fresh_snapshot_sha256(repo) == fresh_snapshot_sha256(repo)
    assert symbol in (repo / ".charter/graph/snapshot.json").read_text()


def test_every_language_with_structure_has_one_extractor() -> None:
    """A grammar in ``parsers`` without an extractor would parse nothing; an extractor
    without a grammar would never run: the two tables name the same languages."""
    from charter.graph.extract import _EXTRACTORS
    from charter.graph.parsers import STRUCTURED

    assert set(_EXTRACTORS) == set(STRUCTURED)


def _ranking_cases() -> dict[str, tuple[Any, dict[str, str], str, str]]:
    """Per language: a project, a file that says the task's words and calls the method
    (read as text it came first), the task, and the file defining the method."""
    from tests import test_graph_dart as da
    from tests import test_graph_elixir as ex
    from tests import test_graph_hcl as tf
    from tests import test_graph_lua as lu
    from tests import test_graph_proto as pb
    from tests import test_graph_scala as sc
    from tests import test_graph_shell as sh
    from tests import test_graph_solidity as so
    from tests import test_graph_swift as sw
    from tests.test_graph_csharp import make_csharp_project
    from tests.test_graph_zig import make_zig_project

    return {
        "csharp": (
            make_csharp_project,
            {},
            "MarkDone should record when the item was completed",
            "src/Domain/Entities/TodoItem.cs",
        ),
        "dart": (
            da.make_dart_project,
            {"packages/app/lib/done_banner.dart": da.DONE_BANNER},
            "markDone should record the time the item was done",
            "packages/core/lib/src/todo_item.dart",
        ),
        "elixir": (
            ex.make_elixir_project,
            {"lib/shop/rounding.ex": ex.ROUNDING},
            "add_cents should round half cents up",
            "lib/shop/money.ex",
        ),
        "hcl": (
            tf.make_terraform_project,
            {"modules/storage/lifecycle.tf": tf.LIFECYCLE_TF},
            "aws_s3_bucket.logs should expire old log objects after ninety days",
            "modules/storage/main.tf",
        ),
        "lua": (
            lu.make_lua_project,
            {},
            "refresh_results should keep the prompt",
            "lua/finder/picker.lua",
        ),
        "proto": (
            pb.make_proto_project,
            {"proto/acme/jobs/v1/audit.proto": pb.AUDIT_PROTO},
            "JobService.CreateJob should keep the retry of retried jobs",
            "proto/acme/jobs/v1/jobs.proto",
        ),
        "scala": (
            sc.make_scala_project,
            {"jobs/src/main/scala/com/acme/jobs/ArchiveJob.scala": sc.ARCHIVE_JOB},
            "archiveTask should keep the title",
            "store/src/main/scala/com/acme/store/TaskStore.scala",
        ),
        "solidity": (
            so.make_solidity_project,
            {"src/FeeReport.sol": so.FEE_REPORT_SOL},
            "applyFee should round the fee up",
            "src/libraries/FeeMath.sol",
        ),
        "shell": (
            sh.make_shell_project,
            {"scripts/publish.sh": sh.PUBLISH_SH},
            "push_images should not docker push on a dry run",
            "scripts/release.sh",
        ),
        "swift": (
            sw.make_swift_project,
            {"Sources/TodoKit/SyncQueue.swift": sw.SYNC_QUEUE},
            "markDone should record when it was done",
            "Sources/TodoKit/Models/TodoItem.swift",
        ),
        "zig": (
            make_zig_project,
            {},
            "clearRow leaves stale rows when scrolling",
            "src/terminal/page.zig",
        ),
    }


@pytest.mark.parametrize(
    "language",
    [
        "csharp",
        "dart",
        "elixir",
        "hcl",
        "lua",
        "proto",
        "scala",
        "shell",
        "solidity",
        "swift",
        "zig",
    ],
)
def test_task_context_names_the_file_defining_the_method_a_task_names(
    repo: Path, run_charter: Any, language: str
) -> None:
    """Read as text, a file that says the task's words and calls the method came first;
    with the language's structure, the file defining it does."""
    from tests.conftest import task_context_paths

    make, extra, task, expected = _ranking_cases()[language]
    make(repo)
    for rel, text in extra.items():
        write(repo, rel, text)
    assert task_context_paths(run_charter, repo, task)[0] == expected
