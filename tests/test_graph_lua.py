"""Lua in the graph: a module's returned table named after the module, other tables and
their functions and methods, ``local function`` as not exported, ``require`` resolved on
``package.path`` (``lua/x/y.lua``, ``x/init.lua``) and calls (ranking is in
``tests/test_graph_grammars.py``)."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.graph import extract_lua
from charter.graph.build import build_graph
from tests.conftest import symbol_spans, write

PICKER_LUA = """local config = require("finder.config")
local util = require "finder.util"

local M = {}

local Picker = {}
Picker.__index = Picker

function Picker:new(opts)
  return setmetatable({ prompt = opts.prompt }, Picker)
end

function Picker:refresh_results()
  self.results = util.sorted(self.results)
end

local function default_prompt()
  return config.values.prompt
end

function M.open(opts)
  return Picker:new(opts or { prompt = default_prompt() })
end

M.close = function(picker)
  picker.results = nil
end

M.actions = {
  select = function() end,
}

return M
"""
UTIL_LUA = """local M = {}

function M.sorted(items)
  table.sort(items)
  return items
end

return M
"""
CONFIG_LUA = """local config = {}

config.values = { prompt = "> " }

function config.setup(opts)
  config.values = vim.tbl_extend("force", config.values, opts)
end

return config
"""
PLUGIN_LUA = """-- refreshes the results when the prompt changes
local picker = require("finder.picker")

vim.api.nvim_create_autocmd("TextChangedI", {
  callback = function()
    picker.open():refresh_results()
  end,
})
"""
EXPORTS_LUA = """local function setup(opts)
  return opts
end

local function hidden() end

return { setup = setup }
"""


def make_lua_project(root: Path) -> None:
    write(root, "lua/finder/picker.lua", PICKER_LUA)
    write(root, "lua/finder/util.lua", UTIL_LUA)
    write(root, "lua/finder/config/init.lua", CONFIG_LUA)
    write(root, "plugin/finder.lua", PLUGIN_LUA)


def test_lua_module_tables_functions_and_methods() -> None:
    picker = extract_lua.extract(PICKER_LUA.encode(), "lua/finder/picker.lua")
    assert symbol_spans(picker) == {
        "picker": ("module", 4, True),  # ``M`` is returned: the module's own name
        "Picker": ("class", 6, False),
        "Picker.new": ("method", 9, False),
        "Picker.refresh_results": ("method", 13, False),
        "default_prompt": ("function", 17, False),  # ``local function``
        "picker.open": ("function", 21, True),
        "picker.close": ("function", 25, True),
        "picker.actions.select": ("function", 30, True),
    }
    # ``require "x"`` and ``require("x")`` both name modules; ``require`` is not a call
    assert [i["module"] for i in picker["imports"]] == ["finder.config", "finder.util"]
    assert {"sorted", "new", "default_prompt"} <= set(picker["calls"])
    assert "require" not in picker["calls"]
    # an ``init.lua`` is named after its folder
    config = extract_lua.extract(CONFIG_LUA.encode(), "lua/finder/config/init.lua")
    assert symbol_spans(config)["config.setup"] == ("function", 5, True)
    # the names a returned table constructor lists are exported, the others are not
    exports = extract_lua.extract(EXPORTS_LUA.encode(), "lua/finder/exports.lua")
    assert symbol_spans(exports) == {
        "setup": ("function", 1, True),
        "hidden": ("function", 5, False),
    }


def test_lua_requires_resolve_on_package_path_and_calls_link(repo: Path) -> None:
    make_lua_project(repo)
    write(repo, "src/geo/vector.lua", "local V = {}\nfunction V.len() end\nreturn V\n")
    write(repo, "src/game.lua", 'local vector = require("geo.vector")\nvector.len()\n')
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    picker = "src:lua/finder/picker.lua"
    assert graph.nodes[picker].attrs["language"] == "lua"
    assert (picker, "src:lua/finder/util.lua", "imports") in edges
    assert (picker, "src:lua/finder/config/init.lua", "imports") in edges  # x/init.lua
    assert ("src:plugin/finder.lua", picker, "imports") in edges
    assert ("src:src/game.lua", "src:src/geo/vector.lua", "imports") in edges  # under src/
    assert (picker, "sym:lua/finder/util.lua#util.sorted", "calls") in edges
    # a method hangs under its table
    assert (
        "sym:lua/finder/picker.lua#Picker",
        "sym:lua/finder/picker.lua#Picker.new",
        "defines",
    ) in edges
    # a library module (``vim``, ``plenary``) is no file
    assert not any(s == picker and r == "imports" and t not in graph.nodes for s, t, r in edges)
