"""Go and Rust in the graph: symbols, ``defines``, Go imports resolved through go.mod,
calls, ranking."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_go
from charter.graph.build import build_graph
from tests.conftest import task_context_paths, write

MODELS = """package models

import (
\t"fmt"
\t"strings"
)

// MaxTitle bounds a task title.
const MaxTitle = 250

const (
\tdoneBucket = iota
)

var ErrNoTitle = fmt.Errorf("no title")

type Task struct {
\tID    int64
\tTitle string
}

type Store interface {
\tSave(t *Task) error
}

func CreateTask(s Store, title string) (*Task, error) {
\tt := &Task{Title: strings.TrimSpace(title)}
\treturn t, t.validate()
}

func (t *Task) validate() error {
\tif t.Title == "" {
\t\treturn ErrNoTitle
\t}
\treturn nil
}
"""
LABELS = """package models

func AddLabel(t *Task, label string) error { return nil }
"""
ROUTES = """package v1

import (
\t"net/http"

\t"code.example.org/taskapp/pkg/models"
)

func CreateTaskHandler(w http.ResponseWriter, r *http.Request) {
\tvar t *models.Task
\tt, _ = models.CreateTask(nil, r.FormValue("title"))
\t_ = t
}
"""
TOOL = """package main

import "code.example.org/taskapp/tools/lint/rules"

func main() { rules.Run() }
"""


def make_go_project(root: Path) -> None:
    write(root, "go.mod", "module code.example.org/taskapp\n\ngo 1.22\n")
    write(root, "pkg/models/tasks.go", MODELS)
    write(root, "pkg/models/labels.go", LABELS)
    write(root, "pkg/models/tasks_test.go", "package models\n\nfunc TestCreate() {}\n")
    write(root, "pkg/routes/api/v1/tasks.go", ROUTES)
    # a second module in the same repository
    write(root, "tools/lint/go.mod", "module code.example.org/taskapp/tools/lint\n")
    write(root, "tools/lint/main.go", TOOL)
    write(root, "tools/lint/rules/rules.go", "package rules\n\nfunc Run() {}\n")
    write(root, "web/src/tasks.ts", "export function createTask(title: string) { return title }\n")


def test_go_symbols_methods_and_imports() -> None:
    out = extract_go.extract(MODELS.encode())
    spans = {s["qualname"]: (s["kind"], s["line_start"], s["exported"]) for s in out["symbols"]}
    assert spans == {
        "MaxTitle": ("const", 9, True),
        "ErrNoTitle": ("const", 15, True),
        "Task": ("class", 17, True),
        "Store": ("interface", 22, True),
        "CreateTask": ("function", 26, True),
        "Task.validate": ("method", 31, False),
    }
    assert [i["module"] for i in out["imports"]] == ["fmt", "strings"]
    routes = extract_go.extract(ROUTES.encode())
    uses = {i["module"]: i["names"] for i in routes["imports"]}
    assert uses["code.example.org/taskapp/pkg/models"] == ["CreateTask", "Task"]
    assert "CreateTask" in routes["calls"] and "Task" in routes["refs"]
    assert not routes["parse_errors"]


def test_go_graph_defines_imports_calls_and_tests(repo: Path) -> None:
    make_go_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    tasks = "src:pkg/models/tasks.go"
    assert graph.nodes[tasks].attrs["language"] == "go"
    assert (tasks, "sym:pkg/models/tasks.go#CreateTask", "defines") in edges
    assert ("sym:pkg/models/tasks.go#Task", "sym:pkg/models/tasks.go#Task.validate", "defines") in (
        edges
    )
    handler = "src:pkg/routes/api/v1/tasks.go"
    # the import names the package; the edge goes to the file defining what is used
    assert (handler, tasks, "imports") in edges
    assert (handler, "src:pkg/models/labels.go", "imports") not in edges
    assert (handler, "sym:pkg/models/tasks.go#CreateTask", "calls") in edges
    assert (handler, "sym:pkg/models/tasks.go#Task", "references") in edges
    # the nested module's import resolves in that module, not under the root one
    assert ("src:tools/lint/main.go", "src:tools/lint/rules/rules.go", "imports") in edges
    assert ("src:pkg/models/tasks_test.go", tasks, "tests") in edges
    assert not any(t.startswith("src:") and "fmt" in t for _, t, _ in edges)


def test_task_context_names_the_go_file_defining_a_function(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    make_go_project(repo)
    paths = task_context_paths(run_charter, repo, "CreateTask trims the title twice")
    assert paths[0] == "pkg/models/tasks.go"
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    packages = {p["package"]: p for p in capsule["module_map"]}
    assert "pkg/models/tasks.go#CreateTask" in packages["pkg/models"]["public_symbols"]
    assert packages["tools/lint"]["entry_points"] == ["tools/lint/main.go"]


RUST = """use crate::store::Store;

pub struct Engine {
    ready: bool,
}

impl Engine {
    pub fn start(&self) -> bool {
        check_ready(self.ready)
    }
}

fn check_ready(ready: bool) -> bool {
    ready
}
"""


def test_rust_items_and_impl_methods(repo: Path) -> None:
    from charter.graph import extract_rust

    out = extract_rust.extract(RUST.encode())
    spans = {s["qualname"]: (s["kind"], s["line_start"], s["exported"]) for s in out["symbols"]}
    assert spans == {
        "Engine": ("class", 3, True),
        "Engine.start": ("method", 8, True),
        "check_ready": ("function", 13, False),
    }
    write(repo, "src/engine.rs", RUST)
    write(repo, "src/main.rs", "fn main() {\n    let e = Engine { ready: true };\n}\n")
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert ("sym:src/engine.rs#Engine", "sym:src/engine.rs#Engine.start", "defines") in edges
    assert ("src:src/main.rs", "sym:src/engine.rs#Engine", "references") in edges


def test_rust_mod_declarations_and_use_paths_resolve_to_module_files(repo: Path) -> None:
    """A Rust compiler's impact view showed no importer for any file (``use`` paths were
    not resolved): ``mod x;``, ``crate::``, ``super::``, ``self::``, a child module and the
    package's own library name from ``tests/`` now name the module's file."""
    from charter.graph import extract_rust

    write(repo, "compiler/Cargo.toml", '[package]\nname = "lak-compiler"\n\n[lib]\nname = "lak"\n')
    write(repo, "compiler/src/lib.rs", "pub mod lexer;\npub mod semantic;\n")
    write(repo, "compiler/src/lexer/mod.rs", "mod cursor;\npub struct Lexer;\n")
    write(repo, "compiler/src/lexer/cursor.rs", "use super::Lexer;\npub struct Cursor;\n")
    write(
        repo,
        "compiler/src/semantic/mod.rs",
        "mod symbols;\nuse crate::lexer::{Lexer, cursor::Cursor as C};\nuse std::fmt;\n"
        "pub use self::symbols::Table;\npub struct SemanticAnalyzer;\n",
    )
    write(repo, "compiler/src/semantic/symbols.rs", "pub struct Table;\n")
    write(repo, "compiler/src/main.rs", "use lak::semantic::SemanticAnalyzer;\nfn main() {}\n")
    write(repo, "compiler/tests/e2e.rs", "use lak::lexer::Lexer;\n#[test]\nfn t() {}\n")
    imports = extract_rust.extract(b"use crate::a::{b::C, d as e};\nuse x::y::*;\nmod z;\n")[
        "imports"
    ]
    assert [(i["module"], i["kind"]) for i in imports] == [
        ("crate::a::b::C", "use"),
        ("crate::a::d", "use"),
        ("x::y", "use"),
        ("z", "mod"),
    ]
    graph = build_graph(Project.load(repo))
    imported = {(e.source[4:], e.target[4:]) for e in graph.edges if e.relation == "imports"}
    assert imported == {
        ("compiler/src/lib.rs", "compiler/src/lexer/mod.rs"),
        ("compiler/src/lib.rs", "compiler/src/semantic/mod.rs"),
        ("compiler/src/lexer/mod.rs", "compiler/src/lexer/cursor.rs"),
        ("compiler/src/lexer/cursor.rs", "compiler/src/lexer/mod.rs"),
        ("compiler/src/semantic/mod.rs", "compiler/src/semantic/symbols.rs"),
        ("compiler/src/semantic/mod.rs", "compiler/src/lexer/mod.rs"),
        ("compiler/src/semantic/mod.rs", "compiler/src/lexer/cursor.rs"),
        ("compiler/src/main.rs", "compiler/src/semantic/mod.rs"),
        ("compiler/tests/e2e.rs", "compiler/src/lexer/mod.rs"),
    }
    tests = {(e.source[4:], e.target[4:]) for e in graph.edges if e.relation == "tests"}
    assert ("compiler/tests/e2e.rs", "compiler/src/lexer/mod.rs") in tests
