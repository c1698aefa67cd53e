"""Java and Kotlin in the graph: symbols, ``defines``, imports resolved by package, ranking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_jvm
from charter.graph.build import build_graph
from tests.conftest import symbol_spans, task_context_paths, write

TASK_JAVA = """package com.acme.model;

import java.util.List;

public class Task {
    private final String title;

    public Task(String title) {
        this.title = title;
    }

    public boolean isDone() {
        return false;
    }

    String normalizedTitle() {
        return title.trim();
    }

    public interface Listener {
        void changed(Task task);
    }
}
"""
STORE_JAVA = """package com.acme.store;

import com.acme.model.Task;

public class TaskStore {
    public Task archiveTask(String title) {
        Task task = new Task(title);
        task.isDone();
        return task;
    }
}
"""
TITLES_KT = """package com.acme.model

const val MAX_TITLE = 250

fun trimTitle(title: String): String = title.trim()

internal fun debugTitle(title: String) = title

private class Cache
"""
SERVICE_KT = """package com.acme.service

import com.acme.model.Task
import com.acme.model.trimTitle

interface Notifier {
    fun notify(task: Task)
}

object Registry {
    fun all(): List<Task> = emptyList()
}

class TaskService(private val notifier: Notifier) {
    fun rename(task: Task, title: String): Task {
        val clean = trimTitle(title)
        return Task(clean)
    }

    private fun audit() {}

    companion object {
        fun create(): TaskService = TaskService(LogNotifier())
    }
}
"""


def make_jvm_project(root: Path) -> None:
    write(root, "core/src/main/java/com/acme/model/Task.java", TASK_JAVA)
    write(root, "core/src/main/kotlin/com/acme/model/Titles.kt", TITLES_KT)
    write(root, "store/src/main/java/com/acme/store/TaskStore.java", STORE_JAVA)
    write(root, "service/src/main/kotlin/com/acme/service/TaskService.kt", SERVICE_KT)


def test_java_types_methods_and_imports() -> None:
    out = extract_jvm.extract(TASK_JAVA.encode(), "java")
    assert symbol_spans(out) == {
        "Task": ("class", 5, True),
        "Task.isDone": ("method", 12, True),
        "Task.normalizedTitle": ("method", 16, False),
        "Task.Listener": ("interface", 20, True),
        "Task.Listener.changed": ("method", 21, True),
    }
    assert out["package"] == "com.acme.model"
    assert out["imports"] == [{"module": "java.util.List", "names": ["List"], "level": 0}]
    store = extract_jvm.extract(STORE_JAVA.encode(), "java")
    assert {"Task", "isDone"} <= set(store["calls"]) and "Task" in store["refs"]
    assert not store["parse_errors"]


def test_kotlin_types_top_level_functions_and_visibility() -> None:
    out = extract_jvm.extract(SERVICE_KT.encode(), "kotlin")
    assert symbol_spans(out) == {
        "Notifier": ("interface", 6, True),
        "Notifier.notify": ("method", 7, True),
        "Registry": ("class", 10, True),
        "Registry.all": ("method", 11, True),
        "TaskService": ("class", 14, True),
        "TaskService.rename": ("method", 15, True),
        "TaskService.audit": ("method", 20, False),
        "TaskService.create": ("method", 23, True),
    }
    assert [i["module"] for i in out["imports"]] == [
        "com.acme.model.Task",
        "com.acme.model.trimTitle",
    ]
    assert {"trimTitle", "Task"} <= set(out["calls"])
    titles = symbol_spans(extract_jvm.extract(TITLES_KT.encode(), "kotlin"))
    assert titles == {
        "MAX_TITLE": ("const", 3, True),
        "trimTitle": ("function", 5, True),
        "debugTitle": ("function", 7, False),
        "Cache": ("class", 9, False),
    }


def test_jvm_graph_defines_and_resolves_imports(repo: Path) -> None:
    make_jvm_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    task = "src:core/src/main/java/com/acme/model/Task.java"
    titles = "src:core/src/main/kotlin/com/acme/model/Titles.kt"
    store = "src:store/src/main/java/com/acme/store/TaskStore.java"
    service = "src:service/src/main/kotlin/com/acme/service/TaskService.kt"
    assert graph.nodes[task].attrs["language"] == "java"
    assert graph.nodes[service].attrs["language"] == "kotlin"
    task_sym = "sym:core/src/main/java/com/acme/model/Task.java#Task"
    assert (task, task_sym, "defines") in edges
    assert (task_sym, f"{task_sym}.isDone", "defines") in edges
    assert (titles, "sym:core/src/main/kotlin/com/acme/model/Titles.kt#trimTitle", "defines") in (
        edges
    )
    # import by the file's name, and a Kotlin top-level function in a file named otherwise
    assert (store, task, "imports") in edges
    assert (service, task, "imports") in edges
    assert (service, titles, "imports") in edges
    assert (store, titles, "imports") not in edges
    assert (store, f"{task_sym}.isDone", "calls") in edges
    assert (service, "sym:core/src/main/kotlin/com/acme/model/Titles.kt#trimTitle", "calls") in (
        edges
    )
    assert not any(t.startswith("src:java") for _, t, _ in edges)


def test_task_context_names_the_file_defining_a_jvm_method(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    make_jvm_project(repo)
    paths = task_context_paths(run_charter, repo, "archiveTask should keep the title")
    assert paths[0] == "store/src/main/java/com/acme/store/TaskStore.java"
