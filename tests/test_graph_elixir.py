"""Elixir in the graph: modules by full dotted name, functions and their visibility,
structs, protocols and implementations, ``alias``/``import``/``use``/``require``
resolved to the file defining the module, remote and local calls, determinism, bad
input, ranking and the capsule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_elixir
from charter.graph.build import build_graph
from charter.graph.parsers import language_of
from tests.conftest import (
    symbol_spans,
    write,
)

CART = """defmodule Shop.Cart do
  @moduledoc "A shopping cart."
  alias Shop.{Item, Pricing}
  alias Shop.Repo, as: Store
  require Logger

  defstruct items: []

  def total(%__MODULE__{items: items}), do: Enum.reduce(items, 0, &Pricing.price/2)
  def total(_), do: 0

  def add(cart, item) when is_map(item) do
    item |> Item.validate() |> Store.insert()
    :ets.insert(:carts, {cart, item})
    remember(cart)
  end

  defp remember(cart), do: cart

  defmacro cart_line(x), do: x
  defmacrop hidden(x), do: x

  defmodule Line do
    def new(item), do: %{item: item}
  end
end
"""
ITEM = """defmodule Shop.Item do
  def validate(item), do: item
end
"""
PRICING = """defmodule Shop.Pricing do
  import Shop.Money

  def price(item, acc), do: add_cents(acc, item.cents)
end
"""
MONEY = """defmodule Shop.Money do
  def add_cents(a, b), do: a + b
end
"""
REPO = """defmodule Shop.Repo do
  use Ecto.Repo, otp_app: :shop
end
"""
PROTOCOL = """defprotocol Shop.Priced do
  def cents(value)
end

defimpl Shop.Priced, for: Shop.Item do
  def cents(item), do: item.cents
end
"""
CHECKOUT = """defmodule Shop.Checkout do
  alias Shop.Cart

  def run(cart) do
    cart |> Cart.total() |> finish()
  end

  defp finish(total), do: {:ok, total}
end
"""
CART_TEST = """defmodule Shop.CartTest do
  use ExUnit.Case
  alias Shop.Cart

  test "an empty cart totals zero" do
    assert Cart.total(%Cart{}) == 0
  end
end
"""
ROUNDING = """defmodule Shop.Rounding do
  # round half cents up before add_cents: half cents, rounded cents
  def half_up(cents), do: Shop.Money.add_cents(cents, 1) |> Shop.Money.add_cents(0)
end
"""


def make_elixir_project(root: Path) -> None:
    write(root, "mix.exs", "defmodule Shop.MixProject do\n  use Mix.Project\nend\n")
    write(root, "lib/shop/cart.ex", CART)
    write(root, "lib/shop/item.ex", ITEM)
    write(root, "lib/shop/pricing.ex", PRICING)
    write(root, "lib/shop/money.ex", MONEY)
    write(root, "lib/shop/repo.ex", REPO)
    write(root, "lib/shop/priced.ex", PROTOCOL)
    write(root, "lib/shop/checkout.ex", CHECKOUT)
    write(root, "test/shop/cart_test.exs", CART_TEST)


def test_elixir_modules_functions_and_visibility() -> None:
    out = extract_elixir.extract(CART.encode())
    assert symbol_spans(out) == {
        "Shop.Cart": ("module", 1, True),
        "Shop.Cart.__struct__": ("struct", 7, True),
        "Shop.Cart.total": ("function", 9, True),  # two clauses: the first
        "Shop.Cart.add": ("function", 12, True),
        "Shop.Cart.remember": ("function", 18, False),
        "Shop.Cart.cart_line": ("function", 20, True),
        "Shop.Cart.hidden": ("function", 21, False),
        "Shop.Cart.Line": ("module", 23, True),  # nested: the full dotted name
        "Shop.Cart.Line.new": ("function", 24, True),
    }
    total = next(s for s in out["symbols"] if s["qualname"] == "Shop.Cart.total")
    assert total["line_end"] == 10  # spans its clauses
    assert not out["parse_errors"]


def test_elixir_aliases_imports_calls_and_refs() -> None:
    out = extract_elixir.extract(CART.encode())
    assert [i["module"] for i in out["imports"]] == [
        "Logger",
        "Shop.Item",
        "Shop.Pricing",
        "Shop.Repo",
    ]
    # remote calls through aliases (``Store`` is ``Shop.Repo``) and local calls
    assert {"validate", "insert", "price", "remember"} <= set(out["calls"])
    assert {"Shop.Item", "Shop.Repo", "Shop.Pricing"} <= set(out["refs"])
    # no definition forms, no standard library or Erlang modules
    assert not {"def", "defp", "alias", "reduce"} & set(out["calls"])
    assert "Enum" not in out["refs"] and "Store" not in out["refs"]
    imports = extract_elixir.extract(
        b"defmodule A.B do\n  alias __MODULE__.Sub\n  import C.D, only: [x: 1]\n"
        b"  use E\n  def f, do: Sub.g()\nend\n"
    )
    assert [i["module"] for i in imports["imports"]] == ["A.B.Sub", "C.D", "E"]
    assert "A.B.Sub" in imports["refs"] and "g" in imports["calls"]


def test_elixir_protocols_and_implementations() -> None:
    out = extract_elixir.extract(PROTOCOL.encode())
    assert symbol_spans(out) == {
        "Shop.Priced": ("interface", 1, True),
        "Shop.Priced.cents": ("function", 2, True),
        "Shop.Priced.Shop.Item": ("module", 5, True),  # the module Elixir compiles
        "Shop.Priced.Shop.Item.cents": ("function", 6, True),
    }
    assert {"Shop.Priced", "Shop.Item"} <= set(out["refs"])


def test_elixir_sources_are_parsed_not_read_as_text() -> None:
    assert language_of("lib/shop/cart.ex") == "elixir"
    assert language_of("test/shop/cart_test.exs") == "elixir"


def test_elixir_graph_links_modules_imports_calls_and_tests(repo: Path) -> None:
    make_elixir_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    cart = "src:lib/shop/cart.ex"
    cart_sym = "sym:lib/shop/cart.ex#Shop.Cart"
    assert graph.nodes[cart].attrs["language"] == "elixir"
    assert (cart, cart_sym, "defines") in edges
    assert (cart_sym, f"{cart_sym}.total", "defines") in edges
    assert (cart_sym, f"{cart_sym}.Line", "defines") in edges
    # ``alias``/``import``/``use`` name modules: the files defining them
    assert (cart, "src:lib/shop/item.ex", "imports") in edges
    assert (cart, "src:lib/shop/repo.ex", "imports") in edges  # ``as: Store``
    assert (cart, "src:lib/shop/pricing.ex", "imports") in edges  # ``alias Shop.{…}``
    assert ("src:lib/shop/pricing.ex", "src:lib/shop/money.ex", "imports") in edges
    # a call through an alias, and an imported function called bare
    assert (cart, "sym:lib/shop/item.ex#Shop.Item.validate", "calls") in edges
    assert (
        "src:lib/shop/pricing.ex",
        "sym:lib/shop/money.ex#Shop.Money.add_cents",
        "calls",
    ) in edges
    checkout = "src:lib/shop/checkout.ex"
    assert (checkout, cart, "imports") in edges
    assert (checkout, cart_sym, "references") in edges
    assert (checkout, f"{cart_sym}.total", "calls") in edges
    # ExUnit: ``cart_test.exs`` tests ``cart.ex`` by name, and what it aliases
    tests = "src:test/shop/cart_test.exs"
    assert graph.nodes[tests].attrs["test"]
    assert (tests, cart, "tests") in edges
    assert (tests, cart, "imports") in edges


def test_the_capsule_maps_elixir_folders_and_their_modules(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    """The module map lists a folder's Elixir modules and protocols by their dotted
    names (not their functions)."""
    make_elixir_project(repo)
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    packages = {p["package"]: p for p in capsule["module_map"]}
    assert packages["lib/shop"]["public_symbols"] == [
        "lib/shop/cart.ex#Shop.Cart",
        "lib/shop/cart.ex#Shop.Cart.Line",
        "lib/shop/checkout.ex#Shop.Checkout",
        "lib/shop/item.ex#Shop.Item",
        "lib/shop/money.ex#Shop.Money",
        "lib/shop/priced.ex#Shop.Priced",
        "lib/shop/priced.ex#Shop.Priced.Shop.Item",
        "lib/shop/pricing.ex#Shop.Pricing",
        "lib/shop/repo.ex#Shop.Repo",
    ]


def test_a_module_a_macro_names_at_compile_time_is_walked_not_looped() -> None:
    # sequin's MiniElixir validator: `defmodule unquote(modname) do` inside a quote. The
    # form with no alias was walked again as itself, without end: RecursionError, and the
    # whole file fell back to file level (no module, no function)
    source = """defmodule Fn.Validator do
  def create_expr(modname, body) do
    quote do
      defmodule unquote(modname) do
        def run(record), do: Fn.Runtime.eval(unquote(body), record)
      end
    end
  end

  defp check(ast), do: ast
end
"""
    out = extract_elixir.extract(source.encode())
    spans = symbol_spans(out)
    assert spans["Fn.Validator"] == ("module", 1, True)
    assert spans["Fn.Validator.create_expr"] == ("function", 2, True)
    assert spans["Fn.Validator.check"] == ("function", 10, False)
    # the generated module's body still counts: its remote call is a reference
    assert "Fn.Runtime" in out["refs"]
