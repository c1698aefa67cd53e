"""C# in the graph: symbols, ``defines``, namespaces, ``using`` resolved by namespace
declaration (global usings per project), calls, determinism, bad input, ranking."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_csharp
from charter.graph.build import build_graph
from tests.conftest import commit_all, symbol_spans, write

TODO_ITEM = """namespace Acme.Domain.Entities;

public class TodoItem : BaseEntity
{
    private string _title = "";

    public TodoItem(string title)
    {
        _title = title;
    }

    public TodoItem() : this("") { }

    public string Title { get; set; } = "";

    public void MarkDone()
    {
        Done = true;
    }

    public void MarkDone(bool done) => Done = done;

    internal void Reset() => Done = false;

    private void Audit() { }

    public enum Priority { Low, High }

    class Cache { }
}

interface ITodoRepository
{
    TodoItem Find(int id);
}
"""
TODO_LIST = """namespace Acme.Domain.Entities
{
    public class TodoList
    {
        public Status State { get; set; }
        public List<TodoItem> Items { get; } = new();
    }
}
"""
COMPLETE = """using Acme.Domain.Entities;
using static Acme.Application.Common.Guards;

namespace Acme.Application.TodoItems
{
    namespace Commands
    {
        [Audited]
        public record CompleteTodoItemCommand(int Id);

        public class CompleteTodoItemHandler
        {
            public void Handle(CompleteTodoItemCommand command)
            {
                var item = new TodoItem("x");
                item.MarkDone();
                AgainstNull(item);
                var slug = item?.Title.ToSlug();
            }
        }
    }
}
"""
GUARDS = """namespace Acme.Application.Common;

public static class Guards
{
    public static void AgainstNull(object value) { }
}
"""
EXTENSIONS = """namespace Acme.Application.Common;

public static class StringExtensions
{
    public static string ToSlug(this string text) => text.ToLowerInvariant();
}
"""


def make_csharp_project(root: Path) -> None:
    write(root, "src/Domain/Domain.csproj", '<Project Sdk="Microsoft.NET.Sdk" />\n')
    write(root, "src/Domain/GlobalUsings.cs", "global using Acme.Domain.Common;\n")
    write(
        root,
        "src/Domain/Common/BaseEntity.cs",
        "namespace Acme.Domain.Common;\n\npublic abstract class BaseEntity { }\n",
    )
    write(root, "src/Domain/Entities/TodoItem.cs", TODO_ITEM)
    write(root, "src/Domain/Entities/TodoList.cs", TODO_LIST)
    # Status is defined twice: the file's own namespace decides which one TodoList means
    write(
        root,
        "src/Domain/Entities/Status.cs",
        "namespace Acme.Domain.Entities;\n\npublic enum Status { Open, Done }\n",
    )
    write(root, "src/Web/Status.cs", "namespace Acme.Web;\n\npublic class Status { }\n")
    write(root, "src/Application/Application.csproj", '<Project Sdk="Microsoft.NET.Sdk" />\n')
    write(root, "src/Application/GlobalUsings.cs", "global using Acme.Application.Common;\n")
    write(root, "src/Application/Common/Guards.cs", GUARDS)
    write(root, "src/Application/Common/StringExtensions.cs", EXTENSIONS)
    write(root, "src/Application/TodoItems/CompleteTodoItem.cs", COMPLETE)


def test_csharp_types_members_and_exported() -> None:
    out = extract_csharp.extract(TODO_ITEM.encode())
    assert symbol_spans(out) == {
        "TodoItem": ("class", 3, True),
        "TodoItem.TodoItem": ("constructor", 7, True),  # two overloads: the first
        "TodoItem.Title": ("property", 14, True),
        "TodoItem.MarkDone": ("method", 16, True),
        "TodoItem.Reset": ("method", 23, True),  # internal
        "TodoItem.Audit": ("method", 25, False),
        "TodoItem.Priority": ("enum", 27, True),
        "TodoItem.Cache": ("class", 29, False),  # a nested type is private by default
        "ITodoRepository": ("interface", 32, True),  # a top-level type is internal
        "ITodoRepository.Find": ("method", 34, True),
    }
    # the constructor's name is not the type's: ``new TodoItem(`` has one target
    names = [s["name"] for s in out["symbols"]]
    assert names.count("TodoItem") == 1
    assert out["namespaces"] == ["Acme.Domain.Entities"]
    assert "BaseEntity" in out["refs"] and not out["parse_errors"]


def test_csharp_namespaces_usings_calls_and_refs() -> None:
    out = extract_csharp.extract(COMPLETE.encode())
    assert out["namespaces"] == [
        "Acme.Application.TodoItems",
        "Acme.Application.TodoItems.Commands",
    ]
    assert out["imports"] == [
        {"module": "Acme.Application.Common.Guards", "names": ["Guards"], "level": 0},
        {"module": "Acme.Domain.Entities", "names": [], "level": 0},
    ]
    assert {"TodoItem", "MarkDone", "AgainstNull", "ToSlug"} <= set(out["calls"])
    assert {"TodoItem", "CompleteTodoItemCommand", "Audited", "AuditedAttribute"} <= set(
        out["refs"]
    )
    assert symbol_spans(out)["CompleteTodoItemHandler.Handle"] == ("method", 13, True)
    assert extract_csharp.extract(EXTENSIONS.encode())["extensions"] == ["ToSlug"]
    assert "extensions" not in extract_csharp.extract(GUARDS.encode())
    usings = extract_csharp.extract(
        b"global using Acme.Model;\nusing Store = Acme.Store.TaskStore;\nusing Map = "
        b"System.Collections.Generic.Dictionary<string, int>;\n"
    )["imports"]
    assert usings == [
        {"module": "Acme.Model", "names": [], "level": 0, "global": True},
        {"module": "Acme.Store.TaskStore", "names": ["TaskStore"], "level": 0},
    ]


def test_csharp_graph_resolves_usings_by_namespace(repo: Path) -> None:
    make_csharp_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    item = "src:src/Domain/Entities/TodoItem.cs"
    todo_list = "src:src/Domain/Entities/TodoList.cs"
    handler = "src:src/Application/TodoItems/CompleteTodoItem.cs"
    guards = "src:src/Application/Common/Guards.cs"
    extensions = "src:src/Application/Common/StringExtensions.cs"
    assert graph.nodes[item].attrs["language"] == "csharp"
    item_sym = "sym:src/Domain/Entities/TodoItem.cs#TodoItem"
    assert (item, item_sym, "defines") in edges
    assert (item_sym, f"{item_sym}.MarkDone", "defines") in edges
    assert (item_sym, f"{item_sym}.TodoItem", "defines") in edges
    # ``using Acme.Domain.Entities``: the namespace's files whose types the handler uses
    assert (handler, item, "imports") in edges
    assert (handler, todo_list, "imports") not in edges
    # ``using static …Guards``, and the project's ``global using`` of the namespace whose
    # extension method the handler calls (its class is never named)
    assert (handler, guards, "imports") in edges
    assert (handler, extensions, "imports") in edges
    assert (handler, f"{item_sym}.MarkDone", "calls") in edges
    assert (handler, "sym:src/Application/Common/Guards.cs#Guards.AgainstNull", "calls") in edges
    to_slug = "sym:src/Application/Common/StringExtensions.cs#StringExtensions.ToSlug"
    assert (handler, to_slug, "calls") in edges
    # the Domain project's global using reaches its files, not the Application project's
    assert (item, "src:src/Domain/Common/BaseEntity.cs", "imports") in edges
    assert (handler, "src:src/Domain/Common/BaseEntity.cs", "imports") not in edges
    assert (item, guards, "imports") not in edges
    # a name defined twice resolves in the file's own namespace
    assert (todo_list, "sym:src/Domain/Entities/Status.cs#Status", "references") in edges
    assert (todo_list, "sym:src/Web/Status.cs#Status", "references") not in edges
    assert (todo_list, item_sym, "references") in edges


def test_csharp_snapshot_is_byte_identical_across_builds_and_clones(
    repo: Path, tmp_path: Path, run_charter: Callable[..., Any]
) -> None:
    make_csharp_project(repo)
    commit_all(repo)  # created_at is the commit's time, not the clock's second
    snapshot = ".charter/graph/snapshot.json"
    assert run_charter("graph", "build", cwd=repo).returncode == 0
    first = (repo / snapshot).read_bytes()
    assert b"TodoItem.MarkDone" in first
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    # another process (another hash seed), another folder, files read in another order
    assert run_charter("graph", "build", cwd=clone).returncode == 0
    assert (clone / snapshot).read_bytes() == first


def test_the_capsule_maps_csharp_projects_and_their_types(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    """The module map lists a C# folder's public types (not their members, which are
    not top-level names), as it does for the other languages with structure."""
    make_csharp_project(repo)
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    packages = {p["package"]: p for p in capsule["module_map"]}
    assert packages["src/Application/Common"]["public_symbols"] == [
        "src/Application/Common/Guards.cs#Guards",
        "src/Application/Common/StringExtensions.cs#StringExtensions",
    ]
    assert (
        "src/Domain/Entities/TodoItem.cs#TodoItem"
        in (packages["src/Domain/Entities"]["public_symbols"])
    )
