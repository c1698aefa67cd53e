"""Ruby in the graph: classes and modules by constant path, methods and visibility,
constants resolved to the file defining them (no imports), tests by name, ranking."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_ruby
from charter.graph.build import build_graph
from tests.conftest import (
    symbol_spans,
    task_context_paths,
    write,
)

ACCOUNT_RB = """class Account < ApplicationRecord
  has_many :entries

  def balance_series(period)
    Balance::Series.new(self, period).values
  end

  def sync_later
    Syncer.new(self).perform_sync
  end

  private

  def cache_key_for(period)
    "#{id}-#{period}"
  end
end
"""
SYNCER_RB = """module Account::Syncable
end

module Account
  # a namespace around one class: defines nothing itself
  class Syncer
    attr_reader :account

    def initialize(account)
      @account = account
    end

    def perform_sync
      ::Balance::Materializer.new(account).materialize_balances
    end

    private def log_sync
      Rails.logger.info("synced")
    end

    def self.for(account) = new(account)
  end
end
"""
MATERIALIZER_RB = """class Balance::Materializer
  def initialize(account)
    @account = account
  end

  def materialize_balances
    Balance::Series.new(@account, :all)
  end
end
"""
SERIES_RB = """module Balance
  class Series
    def initialize(account, period)
      @account, @period = account, period
    end

    def values = []
  end
end
"""
SYNCER_TEST_RB = """require "test_helper"

class Account::SyncerTest < ActiveSupport::TestCase
  test "syncs balances" do
    Account::Syncer.new(accounts(:depository)).perform_sync
  end
end
"""


def make_ruby_project(root: Path) -> None:
    write(root, "app/models/account.rb", ACCOUNT_RB)
    write(root, "app/models/account/syncer.rb", SYNCER_RB)
    write(root, "app/models/balance/materializer.rb", MATERIALIZER_RB)
    write(root, "app/models/balance/series.rb", SERIES_RB)
    write(root, "test/models/account/syncer_test.rb", SYNCER_TEST_RB)


def test_ruby_classes_modules_methods_and_visibility() -> None:
    account = extract_ruby.extract(ACCOUNT_RB.encode())
    assert symbol_spans(account) == {
        "Account": ("class", 1, True),
        "Account.balance_series": ("method", 4, True),
        "Account.sync_later": ("method", 8, True),
        "Account.cache_key_for": ("method", 14, False),
    }
    # a bare constant inside a class may be a sibling: both paths are offered
    assert {"Balance::Series", "Syncer", "Account::Syncer", "ApplicationRecord"} <= set(
        account["refs"]
    )
    syncer = extract_ruby.extract(SYNCER_RB.encode())
    assert symbol_spans(syncer) == {
        "Account::Syncer": ("class", 6, True),
        "Account::Syncer.initialize": ("method", 9, True),
        "Account::Syncer.perform_sync": ("method", 13, True),
        "Account::Syncer.log_sync": ("method", 17, False),
        "Account::Syncer.for": ("method", 21, True),
    }  # neither the empty module nor the wrapper around Syncer defines a constant
    assert "Balance::Materializer" in syncer["refs"]
    assert {"materialize_balances", "new", "info"} <= set(syncer["calls"])
    assert not syncer["parse_errors"]
    broken = extract_ruby.extract(b"class Broken\n  def x(\nend\n")
    assert broken["parse_errors"]


def test_ruby_graph_links_constants_to_the_files_defining_them(repo: Path) -> None:
    make_ruby_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    account = "src:app/models/account.rb"
    syncer = "src:app/models/account/syncer.rb"
    test = "src:test/models/account/syncer_test.rb"
    assert graph.nodes[account].attrs["language"] == "ruby"
    assert (account, "sym:app/models/account.rb#Account", "defines") in edges
    sync_sym = "sym:app/models/account/syncer.rb#Account::Syncer"
    assert (sync_sym, f"{sync_sym}.perform_sync", "defines") in edges
    # a sibling named bare inside the class, a top-level path with a leading ::
    assert (account, sync_sym, "references") in edges
    assert (
        syncer,
        "sym:app/models/balance/materializer.rb#Balance::Materializer",
        "references",
    ) in (edges)
    assert (account, "sym:app/models/balance/series.rb#Balance::Series", "references") in edges
    assert (test, syncer, "tests") in edges
    assert (
        syncer,
        "sym:app/models/balance/materializer.rb#Balance::Materializer.materialize_balances",
        "calls",
    ) in edges


def test_task_context_names_the_file_defining_a_ruby_method(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    make_ruby_project(repo)
    paths = task_context_paths(run_charter, repo, "materialize_balances writes a wrong series")
    assert paths[0] == "app/models/balance/materializer.rb"


def test_task_context_finds_a_ruby_class_by_its_last_name(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    """A task writes ``Materializer``, not ``Balance::Materializer``: the class's last name
    seeds the file defining it, as a Python class's name does."""
    make_ruby_project(repo)
    done = run_charter("task-context", "The Materializer skips the first day", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    top = json.loads(done.stdout)["nodes"][0]
    assert top["path"] == "app/models/balance/materializer.rb"
    assert "defines Balance::Materializer" in top["reasons"], top


def test_the_capsule_maps_ruby_packages_and_their_classes(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    """The contract capsule's module map listed only Python, JS/TS and Go packages: a
    Rails app's models were absent. Its classes are listed by constant path, its
    methods not (they are not top-level names)."""
    make_ruby_project(repo)
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    packages = {p["package"]: p for p in capsule["module_map"]}
    assert "app/models/account.rb#Account" in packages["app/models"]["public_symbols"]
    assert packages["app/models/balance"]["public_symbols"] == [
        "app/models/balance/materializer.rb#Balance::Materializer",
        "app/models/balance/series.rb#Balance::Series",
    ]
    assert "test/models/account" not in packages
