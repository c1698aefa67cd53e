"""Zig in the graph: container types and their functions, ``pub`` as exported, file
imports by path resolved exactly, calls, ranking."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.graph import extract_zig
from charter.graph.build import build_graph
from tests.conftest import symbol_spans, write

PAGE_ZIG = """const std = @import("std");

pub const Page = struct {
    rows: usize,

    pub fn init(rows: usize) Page {
        return .{ .rows = rows };
    }

    fn clearRow(self: *Page, y: usize) void {
        _ = self;
        _ = y;
    }
};

pub const Kind = enum { text, image };
"""
TERMINAL_ZIG = """const std = @import("std");
const Page = @import("page.zig").Page;
const util = @import("../util/math.zig");

pub const Terminal = struct {
    page: Page,

    pub fn resize(self: *Terminal, rows: usize) void {
        self.page = Page.init(util.clamp(rows));
    }
};
"""
MATH_ZIG = """pub fn clamp(x: usize) usize {
    return @min(x, 1000);
}
"""
SCROLL_ZIG = """const Terminal = @import("terminal.zig").Terminal;

// scrolls the terminal when rows are cleared
pub fn scrollRows(t: *Terminal) void {
    t.resize(1);
}
"""


def make_zig_project(root: Path) -> None:
    write(root, "src/terminal/page.zig", PAGE_ZIG)
    write(root, "src/terminal/terminal.zig", TERMINAL_ZIG)
    write(root, "src/util/math.zig", MATH_ZIG)
    write(root, "src/terminal/scroll.zig", SCROLL_ZIG)


def test_zig_containers_functions_and_pub() -> None:
    page = extract_zig.extract(PAGE_ZIG.encode())
    assert symbol_spans(page) == {
        "Page": ("class", 3, True),
        "Page.init": ("method", 6, True),
        "Page.clearRow": ("method", 10, False),  # no ``pub``
        "Kind": ("enum", 16, True),
    }
    terminal = extract_zig.extract(TERMINAL_ZIG.encode())
    # package names (``std``) are not files; paths are
    assert [i["module"] for i in terminal["imports"]] == ["../util/math.zig", "page.zig"]
    assert {"init", "clamp"} <= set(terminal["calls"])


def test_zig_imports_resolve_by_path_and_calls_link(repo: Path) -> None:
    make_zig_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    terminal = "src:src/terminal/terminal.zig"
    assert graph.nodes[terminal].attrs["language"] == "zig"
    assert (terminal, "src:src/terminal/page.zig", "imports") in edges
    assert (terminal, "src:src/util/math.zig", "imports") in edges
    assert (terminal, "sym:src/terminal/page.zig#Page.init", "calls") in edges
