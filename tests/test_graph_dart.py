"""Dart (Flutter) in the graph: classes, mixins, extensions, enums, constructors, getters
and top-level functions, ``_`` as private, ``package:`` and relative imports resolved
through each package's pubspec, re-exports, calls, ranking."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.graph import extract_dart
from charter.graph.build import build_graph
from tests.conftest import symbol_spans, write

CORE_PUBSPEC = "name: todo_core\ndescription: models\n"
APP_PUBSPEC = "name: todo_app\ndependencies:\n  todo_core:\n    path: ../core\n"
CORE_LIB = """library todo_core;

export 'src/todo_item.dart';
"""
TODO_ITEM = """import 'package:meta/meta.dart';

part 'todo_item.g.dart';

enum Priority { low, high }

mixin Stamped {
  DateTime? stampedAt;
}

class TodoItem with Stamped {
  TodoItem(this.title);
  TodoItem.empty() : title = '';

  final String title;
  bool _done = false;

  bool get isDone => _done;

  void markDone() {
    _done = true;
    stampedAt = DateTime.now();
  }

  void _reset() {}
}

extension TodoTitle on TodoItem {
  String shortTitle() => title.substring(0, 3);
}

TodoItem parseItem(String raw) => TodoItem(raw.trim());
"""
TODO_ITEM_G = """part of 'todo_item.dart';

Map<String, Object> _$TodoItemToJson(TodoItem item) => {'title': item.title};
"""
HOME_PAGE = """import 'package:flutter/material.dart';
import 'package:todo_core/todo_core.dart';

import '../widgets/todo_tile.dart';

final todosProvider = <TodoItem>[];

class HomePage extends StatelessWidget {
  const HomePage({super.key});

  @override
  Widget build(BuildContext context) {
    final item = parseItem('write tests');
    item.markDone();
    return TodoTile(item: item);
  }
}
"""
TODO_TILE = """import 'package:flutter/material.dart';
import 'package:todo_core/todo_core.dart';

class TodoTile extends StatelessWidget {
  const TodoTile({super.key, required this.item});

  final TodoItem item;

  @override
  Widget build(BuildContext context) => Text(item.shortTitle());
}
"""
# says the task's words and calls the method, defining nothing of it
DONE_BANNER = """import 'package:todo_core/todo_core.dart';

// when the item was marked done, record the time it was done and show a banner
void showDoneBanner(TodoItem item) {
  item.markDone();
}
"""


def make_dart_project(root: Path) -> None:
    write(root, "packages/core/pubspec.yaml", CORE_PUBSPEC)
    write(root, "packages/core/lib/todo_core.dart", CORE_LIB)
    write(root, "packages/core/lib/src/todo_item.dart", TODO_ITEM)
    write(root, "packages/core/lib/src/todo_item.g.dart", TODO_ITEM_G)
    write(root, "packages/app/pubspec.yaml", APP_PUBSPEC)
    write(root, "packages/app/lib/pages/home_page.dart", HOME_PAGE)
    write(root, "packages/app/lib/widgets/todo_tile.dart", TODO_TILE)


def test_dart_types_members_and_privacy() -> None:
    item = extract_dart.extract(TODO_ITEM.encode())
    assert symbol_spans(item) == {
        "Priority": ("enum", 5, True),
        "Stamped": ("class", 7, True),
        "TodoItem": ("class", 11, True),
        "TodoItem.TodoItem": ("method", 12, True),  # the unnamed constructor
        "TodoItem.empty": ("method", 13, True),
        "TodoItem.isDone": ("method", 18, True),
        "TodoItem.markDone": ("method", 20, True),
        "TodoItem._reset": ("method", 25, False),  # ``_``: private to the library
        "TodoTitle": ("class", 28, True),
        "TodoTitle.shortTitle": ("method", 29, True),
        "parseItem": ("function", 32, True),
    }
    spans = {s["qualname"]: s["line_end"] for s in item["symbols"]}
    assert spans["TodoItem.markDone"] == 23  # the body, not only the signature
    # ``package:`` and parts are files to resolve; ``dart:`` would not be
    assert [(i["module"], i["kind"]) for i in item["imports"]] == [
        ("package:meta/meta.dart", "import"),
        ("todo_item.g.dart", "part"),
    ]
    home = extract_dart.extract(HOME_PAGE.encode())
    assert {"parseItem", "markDone", "TodoTile"} <= set(home["calls"])
    assert {"StatelessWidget", "BuildContext"} <= set(home["refs"])
    assert ("todosProvider", "variable") in {(s["name"], s["kind"]) for s in home["symbols"]}
    assert extract_dart.extract(b"import 'dart:async';\n")["imports"] == []


def test_dart_imports_resolve_through_pubspecs_and_calls_link(repo: Path) -> None:
    make_dart_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    home = "src:packages/app/lib/pages/home_page.dart"
    item = "packages/core/lib/src/todo_item.dart"
    assert graph.nodes[home].attrs["language"] == "dart"
    # ``package:todo_core/…`` is the core pubspec's ``lib/``; ``../`` a path
    assert (home, "src:packages/core/lib/todo_core.dart", "imports") in edges
    assert (home, "src:packages/app/lib/widgets/todo_tile.dart", "imports") in edges
    assert ("src:packages/core/lib/todo_core.dart", f"src:{item}", "imports") in edges
    assert (f"src:{item}", "src:packages/core/lib/src/todo_item.g.dart", "imports") in edges
    # through the library file's ``export``: ``markDone`` is TodoItem's, not a guess
    assert (home, f"sym:{item}#TodoItem.markDone", "calls") in edges
    assert (home, "sym:packages/app/lib/widgets/todo_tile.dart#TodoTile", "calls") in edges
    # a package outside the project is no file
    assert not any(t.startswith("src:") and "flutter" in t for _s, t, _r in edges)
