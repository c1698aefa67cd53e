"""Scala in the graph: symbols, ``defines``, imports resolved by package (with Java's and
Kotlin's machinery), chained package clauses, calls, spec classes, determinism, bad
input, ranking and the capsule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_scala
from charter.graph.build import build_graph
from tests.conftest import (
    symbol_spans,
    write,
)

TASK_SCALA = """package com.acme
package model

final case class Task(title: String) {
  def isDone: Boolean = false
  def normalizedTitle(): String = title.trim
  private[model] def secret: Int = 1
  protected val cache, other = 0
}

object Task {
  val MaxTitle = 250
  def untitled(): Task = Task("")
  object Defaults { def title = "untitled" }
}

trait Listener {
  def changed(task: Task): Unit
}
"""
SETTINGS_SCALA = """package com.acme

object Settings {
  def archiveFolder(): String = "archive"
}
"""
STORE_SCALA = """package com.acme
package store

import com.acme.model.{Task, Listener => L}
import scala.concurrent._

class TaskStore(listener: L) {
  def archiveTask(title: String): Task = {
    val task = new Task(title)
    task.normalizedTitle()
    Settings.archiveFolder()
    task
  }
}
"""
SERVICE_SCALA = """package com.acme.service

import com.acme.model.*

enum Priority:
  case Low, High
  def label: String = toString

def rename(task: Task, title: String): Task =
  Task(title.trim)

private def audit(): Unit = ()

type Tasks = List[Task]

object Registry:
  def all(): Tasks = Nil
  private def purge(): Unit = ()
end Registry
"""
STORE_SPEC = """package com.acme.store

class TaskStoreSpec {
  val store = new TaskStore(null)
}
"""
ARCHIVE_JOB = """package com.acme.jobs

// calls archiveTask with each title to keep: archiveTask, archiveTask, the title
class ArchiveJob(store: com.acme.store.TaskStore) {
  def run(titles: List[String]): Unit =
    titles.foreach(title => store.archiveTask(title))
  def again(title: String) = store.archiveTask(title)
}
"""


def make_scala_project(root: Path) -> None:
    write(root, "core/src/main/scala/com/acme/model/Task.scala", TASK_SCALA)
    write(root, "core/src/main/scala/com/acme/Settings.scala", SETTINGS_SCALA)
    write(root, "store/src/main/scala/com/acme/store/TaskStore.scala", STORE_SCALA)
    write(root, "service/src/main/scala/com/acme/service/TaskService.scala", SERVICE_SCALA)
    write(root, "store/src/test/scala/com/acme/store/TaskStoreSpec.scala", STORE_SPEC)


def test_scala_types_members_and_visibility() -> None:
    out = extract_scala.extract(TASK_SCALA.encode())
    assert symbol_spans(out) == {
        "Task": ("class", 4, True),
        "Task.isDone": ("method", 5, True),
        "Task.normalizedTitle": ("method", 6, True),
        "Task.secret": ("method", 7, False),
        "Task.cache": ("property", 8, False),
        "Task.other": ("property", 8, False),
        "Task.MaxTitle": ("property", 12, True),
        "Task.untitled": ("method", 13, True),
        "Task.Defaults": ("class", 14, True),
        "Task.Defaults.title": ("method", 14, True),
        "Listener": ("interface", 17, True),
        "Listener.changed": ("method", 18, True),
    }
    assert out["package"] == "com.acme.model" and out["enclosing"] == ["com.acme"]
    assert not out["parse_errors"]


def test_scala_3_top_level_definitions_enums_and_wildcard_imports() -> None:
    out = extract_scala.extract(SERVICE_SCALA.encode())
    assert symbol_spans(out) == {
        "Priority": ("class", 5, True),
        "Priority.label": ("method", 7, True),
        "rename": ("function", 9, True),
        "audit": ("function", 12, False),
        "Tasks": ("type", 14, True),
        "Registry": ("class", 16, True),
        "Registry.all": ("method", 17, True),
        "Registry.purge": ("method", 18, False),
    }
    assert out["package"] == "com.acme.service" and "enclosing" not in out
    assert out["imports"] == [{"module": "com.acme.model.*", "names": [], "level": 0}]
    assert "Task" in out["calls"] and "Task" in out["refs"]
    assert not out["parse_errors"]


def test_scala_imports_selectors_renames_and_calls() -> None:
    out = extract_scala.extract(STORE_SCALA.encode())
    assert [i["module"] for i in out["imports"]] == [
        "com.acme.model.Listener",
        "com.acme.model.Task",
        "scala.concurrent.*",
    ]
    assert {"Task", "normalizedTitle", "archiveFolder"} <= set(out["calls"])
    assert {"Settings", "Task"} <= set(out["refs"])
    hidden = extract_scala.extract(b"import a.b.{C => _, D}, e.F as G\n")
    assert [i["module"] for i in hidden["imports"]] == ["a.b.D", "e.F"]


def test_scala_graph_defines_and_resolves_imports(repo: Path) -> None:
    make_scala_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    task = "src:core/src/main/scala/com/acme/model/Task.scala"
    store = "src:store/src/main/scala/com/acme/store/TaskStore.scala"
    service = "src:service/src/main/scala/com/acme/service/TaskService.scala"
    spec = "src:store/src/test/scala/com/acme/store/TaskStoreSpec.scala"
    assert graph.nodes[task].attrs["language"] == "scala"
    task_sym = "sym:core/src/main/scala/com/acme/model/Task.scala#Task"
    assert (task, task_sym, "defines") in edges
    assert (task_sym, f"{task_sym}.normalizedTitle", "defines") in edges
    # an import by the file's name, a renamed one, and a wildcard narrowed to the names used
    assert (store, task, "imports") in edges
    assert (service, task, "imports") in edges
    assert (store, f"{task_sym}.normalizedTitle", "calls") in edges
    # a chained package clause sees the enclosing package's objects
    settings = "sym:core/src/main/scala/com/acme/Settings.scala#Settings"
    assert (store, settings, "references") in edges
    # a spec class tests the class it is named after
    assert (spec, store, "tests") in edges


def test_the_capsule_maps_scala_folders_and_their_types(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    make_scala_project(repo)
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    packages = {p["package"]: p for p in capsule["module_map"]}
    assert packages["core/src/main/scala/com/acme/model"]["public_symbols"] == [
        "core/src/main/scala/com/acme/model/Task.scala#Listener",
        "core/src/main/scala/com/acme/model/Task.scala#Task",
    ]
