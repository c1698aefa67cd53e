"""Swift in the graph: symbols, ``defines``, extensions, ``import`` of a module (a SwiftPM
target) narrowed to the files used, a module's shared names, calls, determinism, bad
input, ranking and the capsule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_swift
from charter.graph.build import build_graph
from charter.graph.extract import is_example_path
from charter.graph.link import swift_module
from tests.conftest import (
    symbol_spans,
    write,
)

TODO_ITEM = """import Foundation

public struct TodoItem: Identifiable, Equatable {
    public let id: UUID
    public var title: String
    private var doneAt: Date?

    public init(title: String) {
        self.id = UUID()
        self.title = title
    }

    public init() { self.init(title: "") }

    public mutating func markDone(at date: Date = Date()) {
        doneAt = date
    }

    public mutating func markDone(_ flag: Bool) {}

    fileprivate func audit() {}

    public enum Priority: Int { case low, high }

    typealias Tag = String
}

extension TodoItem: CustomStringConvertible {
    public var description: String { title }
}

public protocol TodoRepository: AnyObject {
    func find(id: UUID) -> TodoItem?
    var count: Int { get }
}

public final actor TodoCache {}

private extension TodoItem {
    func hiddenHelper() {}
}

public func makeSampleItems() -> [TodoItem] { [] }

let defaultTitle = "Untitled"
"""
STORE = """import Foundation

@MainActor
public final class TodoStore {
    public private(set) var items: [TodoItem] = []
    var state: Status = .open

    public func complete(_ item: TodoItem) {
        var copy = item
        copy.markDone()
        Logger.shared.log(copy.formatted())
        items.append(copy)
    }
}
"""
FORMAT = """import Foundation

extension TodoItem {
    public func formatted() -> String { "- " + title }
}
"""
STATUS = "public enum Status { case open, done }\n"
LOGGER = """final class Logger {
    static let shared = Logger()
    func log(_ line: String) {}
}
"""
APP = """import SwiftUI
import TodoKit

@main
struct TodoApp: App {
    let store = TodoStore()
    var state: Status = .idle

    var body: some Scene {
        WindowGroup { Text(store.items.first?.formatted() ?? "") }
    }
}
"""
TESTS = """import XCTest
@testable import TodoKit

final class TodoItemTests: XCTestCase {
    func testMarkDone() {
        var item = TodoItem(title: "x")
        item.markDone()
        XCTAssertEqual(item.title, "x")
    }
}
"""

SYNC_QUEUE = """final class SyncQueue {
    func replay(_ items: inout [TodoItem]) {
        // record each done item again: markDone when it was done remotely
        for i in items.indices { items[i].markDone() }
        items[0].markDone()
    }
}
"""


def make_swift_project(root: Path) -> None:
    write(root, "Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\n")
    write(root, "Sources/TodoKit/Models/TodoItem.swift", TODO_ITEM)
    write(root, "Sources/TodoKit/Models/TodoItem+Format.swift", FORMAT)
    write(root, "Sources/TodoKit/Models/Status.swift", STATUS)
    write(root, "Sources/TodoKit/TodoStore.swift", STORE)
    write(root, "Sources/TodoKit/Support/Logger.swift", LOGGER)
    write(root, "Sources/TodoApp/TodoApp.swift", APP)
    # Status is defined twice: each module's files mean their own
    write(root, "Sources/TodoApp/Status.swift", "enum Status { case idle, busy }\n")
    write(root, "Tests/TodoKitTests/TodoItemTests.swift", TESTS)


def test_swift_types_members_and_exported() -> None:
    out = extract_swift.extract(TODO_ITEM.encode())
    assert symbol_spans(out) == {
        "TodoItem": ("class", 3, True),
        "TodoItem.id": ("property", 4, True),
        "TodoItem.title": ("property", 5, True),
        "TodoItem.doneAt": ("property", 6, False),
        "TodoItem.init": ("constructor", 8, True),  # two overloads: the first
        "TodoItem.markDone": ("method", 15, True),
        "TodoItem.audit": ("method", 21, False),
        "TodoItem.Priority": ("enum", 23, True),
        "TodoItem.Tag": ("type", 25, True),  # internal: visible in the module
        "TodoItem.description": ("property", 29, True),  # an extension's member
        "TodoRepository": ("interface", 32, True),
        "TodoRepository.find": ("method", 33, True),
        "TodoRepository.count": ("property", 34, True),
        "TodoCache": ("class", 37, True),
        "TodoItem.hiddenHelper": ("method", 40, False),  # in a private extension
        "makeSampleItems": ("function", 43, True),
        "defaultTitle": ("const", 45, True),
    }
    # an initializer's name is not the type's: ``TodoItem(`` has one target
    assert [s["name"] for s in out["symbols"]].count("TodoItem") == 1
    assert "extensions" not in out  # it extends only its own type
    assert {"Identifiable", "UUID", "Date"} <= set(out["refs"])
    assert not out["parse_errors"]


def test_swift_imports_calls_refs_and_extension_methods() -> None:
    out = extract_swift.extract(STORE.encode())
    assert out["imports"] == [{"module": "Foundation", "names": [], "level": 0}]
    assert {"markDone", "log", "formatted", "append"} <= set(out["calls"])
    assert {"TodoItem", "Status", "Logger", "MainActor"} <= set(out["refs"])
    assert symbol_spans(out)["TodoStore.items"] == ("property", 5, True)
    assert extract_swift.extract(FORMAT.encode())["extensions"] == ["formatted"]
    assert symbol_spans(extract_swift.extract(FORMAT.encode())) == {
        "TodoItem.formatted": ("method", 4, True)
    }
    imports = extract_swift.extract(
        b"@testable import TodoKit\nimport struct NIOCore.ByteBuffer\nimport TodoKit\n"
    )["imports"]
    assert imports == [
        {"module": "NIOCore", "names": ["ByteBuffer"], "level": 0},
        {"module": "TodoKit", "names": [], "level": 0},
    ]
    calls = extract_swift.extract(b"let e: Effect = .run { send in await send(.done) }\n")
    assert {"run", "send"} <= set(calls["calls"]) and calls["refs"] == ["Effect"]


def test_swift_modules_follow_the_package_layout() -> None:
    assert swift_module("Sources/TodoKit/Models/TodoItem.swift") == ("Sources/TodoKit", "TodoKit")
    assert swift_module("pkg/Tests/KitTests/A.swift") == ("pkg/Tests/KitTests", "KitTests")
    assert swift_module("RxCore/Observable.swift") == ("RxCore", "RxCore")  # an Xcode target
    assert swift_module("main.swift") == ("", "")
    # a DocC catalog's tutorial code is documentation, as an examples folder is
    assert is_example_path("Sources/TodoKit/TodoKit.docc/Tutorials/Step-01.swift")


def test_swift_graph_links_modules_imports_extensions_and_tests(repo: Path) -> None:
    make_swift_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    item = "src:Sources/TodoKit/Models/TodoItem.swift"
    store = "src:Sources/TodoKit/TodoStore.swift"
    fmt = "src:Sources/TodoKit/Models/TodoItem+Format.swift"
    app = "src:Sources/TodoApp/TodoApp.swift"
    tests = "src:Tests/TodoKitTests/TodoItemTests.swift"
    assert graph.nodes[item].attrs["language"] == "swift"
    item_sym = "sym:Sources/TodoKit/Models/TodoItem.swift#TodoItem"
    assert (item, item_sym, "defines") in edges
    assert (item_sym, f"{item_sym}.markDone", "defines") in edges
    assert (item_sym, f"{item_sym}.init", "defines") in edges
    # ``import TodoKit``: the module's files defining what the app uses, not the others
    assert (app, store, "imports") in edges
    assert (app, fmt, "imports") in edges  # its extension method is called
    assert (app, item, "imports") not in edges
    assert (app, "src:Sources/TodoKit/Support/Logger.swift", "imports") not in edges
    assert (
        app,
        "sym:Sources/TodoKit/Models/TodoItem+Format.swift#TodoItem.formatted",
        "calls",
    ) in (edges)
    # the module's files see each other without imports
    assert not any(s == store and r == "imports" for s, _, r in edges)
    assert (store, item_sym, "references") in edges
    assert (store, "sym:Sources/TodoKit/Support/Logger.swift#Logger", "references") in edges
    # a name defined in two modules resolves in the file's own
    assert (store, "sym:Sources/TodoKit/Models/Status.swift#Status", "references") in edges
    assert (app, "sym:Sources/TodoApp/Status.swift#Status", "references") in edges
    assert (app, "sym:Sources/TodoKit/Models/Status.swift#Status", "references") not in edges
    # XCTest: ``TodoItemTests`` tests ``TodoItem.swift`` by name, and what it imports
    assert graph.nodes[tests].attrs["test"]
    assert (tests, item, "tests") in edges
    assert (tests, item, "imports") in edges


def test_the_capsule_maps_swift_folders_and_their_types(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    """The module map lists a Swift folder's public top-level names (not the members
    of a type or of an extension)."""
    make_swift_project(repo)
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    packages = {p["package"]: p for p in capsule["module_map"]}
    assert packages["Sources/TodoKit/Models"]["public_symbols"] == [
        "Sources/TodoKit/Models/Status.swift#Status",
        "Sources/TodoKit/Models/TodoItem.swift#TodoCache",
        "Sources/TodoKit/Models/TodoItem.swift#TodoItem",
        "Sources/TodoKit/Models/TodoItem.swift#TodoRepository",
        "Sources/TodoKit/Models/TodoItem.swift#makeSampleItems",
    ]


def test_the_capsule_names_a_swift_programs_entry_points(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    """An ``@main`` type's file and a ``main.swift`` are entry points; a type marked
    ``@MainActor`` is not one."""
    make_swift_project(repo)
    write(repo, "Sources/todo-cli/main.swift", "import TodoKit\nprint(TodoStore())\n")
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    entries = {p["package"]: p["entry_points"] for p in capsule["module_map"]}
    assert entries["Sources/TodoApp"] == ["Sources/TodoApp/TodoApp.swift"]
    assert entries["Sources/todo-cli"] == ["Sources/todo-cli/main.swift"]
    assert entries["Sources/TodoKit"] == []
