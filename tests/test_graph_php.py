"""PHP in the graph: classes, interfaces, traits and enums by fully qualified name,
methods and visibility, ``use`` imports resolved through composer.json's PSR-4 map,
class references resolved by PHP's own rules, PHPUnit tests by name, ranking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_php
from charter.graph.build import build_graph
from tests.conftest import (
    symbol_spans,
    task_context_paths,
    write,
)

COMPOSER_JSON = """{
    "name": "acme/ledger",
    "autoload": {"psr-4": {"App\\\\": "app/", "Database\\\\Factories\\\\": "database/factories/"}},
    "autoload-dev": {"psr-4": {"Tests\\\\": "tests/"}}
}
"""
ACCOUNT_PHP = """<?php

namespace App\\Models;

use App\\Ledger\\{Balance, Series as BalanceSeries};
use App\\Contracts\\HasBalance;
use Illuminate\\Database\\Eloquent\\Model;

#[ObservedBy(AccountObserver::class)]
class Account extends Model implements HasBalance
{
    use Concerns\\Syncable;

    public function balance(?BalanceSeries $series = null): Balance
    {
        $series ??= BalanceSeries::forAccount($this);
        return new Balance($series->sumEntries());
    }

    protected function cacheKey(): string
    {
        return static::class . $this->id;
    }

    private function log(\\Throwable $error): void
    {
        if ($error instanceof \\App\\Ledger\\SyncFailed) {
            report($error);
        }
    }
}
"""
SYNCABLE_PHP = """<?php

namespace App\\Models\\Concerns;

trait Syncable
{
    public function syncLater(): void
    {
    }
}
"""
HAS_BALANCE_PHP = """<?php

namespace App\\Contracts;

interface HasBalance
{
    public function balance(): \\App\\Ledger\\Balance;
}
"""
LEDGER_PHP = """<?php

namespace App\\Ledger {
    enum Period: string
    {
        case Month = 'month';
    }

    final class Balance
    {
        public function __construct(private readonly int $cents)
        {
        }
    }
}
"""
SERIES_PHP = """<?php

namespace App\\Ledger;

class Series
{
    public static function forAccount(object $account): self
    {
        return new self();
    }

    public function sumEntries(): int
    {
        return 0;
    }
}
"""
SYNC_FAILED_PHP = """<?php

namespace App\\Ledger;

class SyncFailed extends \\RuntimeException
{
}
"""
HELPERS_PHP = """<?php

if (! function_exists('format_cents')) {
    function format_cents(int $cents): string
    {
        return number_format($cents / 100, 2);
    }
}
"""
ACCOUNT_TEST_PHP = """<?php

namespace Tests\\Unit;

use App\\Models\\Account;
use PHPUnit\\Framework\\TestCase;

class AccountTest extends TestCase
{
    public function test_balance(): void
    {
        $this->assertSame(0, (new Account())->balance()->cents);
    }
}
"""
VIEW_PHP = """<html>
<body>
<?php use App\\Models\\Account; ?>
<h1><?= Account::class ?></h1>
</body>
</html>
"""


def make_php_project(root: Path) -> None:
    write(root, "composer.json", COMPOSER_JSON)
    write(root, "app/Models/Account.php", ACCOUNT_PHP)
    write(root, "app/Models/Concerns/Syncable.php", SYNCABLE_PHP)
    write(root, "app/Contracts/HasBalance.php", HAS_BALANCE_PHP)
    # a class and an enum in one file, off the PSR-4 path: found by its definition
    write(root, "app/Ledger/Types.php", LEDGER_PHP)
    write(root, "app/Ledger/Series.php", SERIES_PHP)
    write(root, "app/Ledger/SyncFailed.php", SYNC_FAILED_PHP)
    write(root, "app/helpers.php", HELPERS_PHP)
    write(root, "tests/Unit/AccountTest.php", ACCOUNT_TEST_PHP)
    write(root, "resources/views/account.php", VIEW_PHP)


def test_php_types_methods_visibility_and_names_resolved_by_php_rules() -> None:
    account = extract_php.extract(ACCOUNT_PHP.encode())
    assert symbol_spans(account) == {
        "App\\Models\\Account": ("class", 9, True),
        "App\\Models\\Account.balance": ("method", 14, True),
        "App\\Models\\Account.cacheKey": ("method", 20, False),
        "App\\Models\\Account.log": ("method", 25, False),
    }
    assert [s["name"] for s in account["symbols"]][:2] == ["App\\Models\\Account", "balance"]
    # grouped use with an alias, a plain use, a vendor class
    assert [i["module"] for i in account["imports"]] == [
        "App\\Contracts\\HasBalance",
        "App\\Ledger\\Balance",
        "App\\Ledger\\Series",
        "Illuminate\\Database\\Eloquent\\Model",
    ]
    assert set(account["refs"]) == {
        "App\\Models\\AccountObserver",  # an attribute's argument: the current namespace
        "App\\Models\\ObservedBy",  # an attribute
        "Illuminate\\Database\\Eloquent\\Model",  # extends, through its import
        "App\\Contracts\\HasBalance",  # implements
        "App\\Models\\Concerns\\Syncable",  # a trait by a qualified, relative name
        "App\\Ledger\\Series",  # a type hint and a static call through an alias
        "App\\Ledger\\Balance",  # a return type and new, through a grouped import
        "Throwable",  # a leading backslash: the global class
        "App\\Ledger\\SyncFailed",  # instanceof, fully qualified
    }  # never static/self/string
    assert {"forAccount", "sumEntries", "report"} <= set(account["calls"])
    assert not account["parse_errors"]
    ledger = extract_php.extract(LEDGER_PHP.encode())
    assert symbol_spans(ledger) == {
        "App\\Ledger\\Period": ("enum", 4, True),
        "App\\Ledger\\Balance": ("class", 9, True),
        "App\\Ledger\\Balance.__construct": ("method", 11, True),
    }
    assert (
        symbol_spans(extract_php.extract(SYNCABLE_PHP.encode()))["App\\Models\\Concerns\\Syncable"][
            0
        ]
        == "class"
    )
    assert symbol_spans(extract_php.extract(HAS_BALANCE_PHP.encode()))[
        "App\\Contracts\\HasBalance"
    ] == (
        "interface",
        5,
        True,
    )
    helpers = extract_php.extract(HELPERS_PHP.encode())
    assert [(s["name"], s["qualname"], s["kind"]) for s in helpers["symbols"]] == [
        ("format_cents", "format_cents", "function")
    ]
    # HTML around <?php parses: the template's use and class reference are read
    view = extract_php.extract(VIEW_PHP.encode())
    assert not view["parse_errors"]
    assert view["refs"] == ["App\\Models\\Account"]


def test_php_use_function_and_aliases_and_a_second_namespace() -> None:
    source = b"""<?php
namespace App\\One;
use function App\\Support\\format_cents as cents;
use const App\\Support\\LIMIT;
use App\\Models as M;
cents(1);
new M\\Account();
new namespace\\Local();
namespace App\\Two;
new Account();
"""
    out = extract_php.extract(source)
    assert [i["module"] for i in out["imports"]] == ["App\\Models", "App\\Support\\format_cents"]
    assert "format_cents" in out["calls"]  # an imported function's own name, not its alias
    # a second namespace starts with no imports: Account is App\\Two's own
    assert set(out["refs"]) == {"App\\Models\\Account", "App\\One\\Local", "App\\Two\\Account"}


def test_malformed_php_does_not_stop_the_build(repo: Path) -> None:
    write(repo, "app/Broken.php", "<?php\nnamespace App;\nclass Broken {\n  public function x( {\n")
    write(repo, "composer.json", "{ not json")
    broken = extract_php.extract((repo / "app/Broken.php").read_bytes())
    assert broken["parse_errors"]
    graph = build_graph(Project.load(repo))
    node = graph.nodes["src:app/Broken.php"]
    assert node.attrs["language"] == "php"
    assert "syntax errors" in node.attrs["note"]


def test_php_graph_resolves_use_through_psr4_and_links_references(repo: Path) -> None:
    make_php_project(repo)
    write(repo, "legacy/Series.php", SERIES_PHP)  # a copy: the name is defined twice
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    account = "src:app/Models/Account.php"
    assert graph.nodes[account].attrs["language"] == "php"
    account_sym = "sym:app/Models/Account.php#App\\Models\\Account"
    assert (account, account_sym, "defines") in edges
    assert (account_sym, f"{account_sym}.balance", "defines") in edges
    # PSR-4 picks app/Ledger/Series.php although legacy/ defines the class too
    assert (account, "src:app/Ledger/Series.php", "imports") in edges
    assert (account, "src:legacy/Series.php", "imports") not in edges
    assert (account, "src:app/Contracts/HasBalance.php", "imports") in edges
    # not at its PSR-4 path: the file defining the class; a vendor class: no file
    imported = {t for s, t, r in edges if s == account and r == "imports"}
    assert imported == {
        "src:app/Ledger/Series.php",
        "src:app/Contracts/HasBalance.php",
        "src:app/Ledger/Types.php",
    }
    series_sym = "sym:app/Ledger/Series.php#App\\Ledger\\Series"
    assert (account, series_sym, "references") in edges
    assert (account, f"{series_sym}.sumEntries", "calls") in edges
    # references by fully qualified name, without an import
    assert (
        account,
        "sym:app/Models/Concerns/Syncable.php#App\\Models\\Concerns\\Syncable",
        "references",
    ) in edges
    assert (account, "sym:app/Ledger/SyncFailed.php#App\\Ledger\\SyncFailed", "references") in (
        edges
    )
    assert ("src:resources/views/account.php", account, "imports") in edges
    # PHPUnit's AccountTest.php tests Account.php
    assert ("src:tests/Unit/AccountTest.php", account, "tests") in edges
    assert graph.nodes["src:tests/Unit/AccountTest.php"].attrs.get("test")


def test_a_php_test_class_links_by_name_without_an_import(repo: Path) -> None:
    write(repo, "src/Invoice.php", "<?php\nnamespace Acme;\nclass Invoice {}\n")
    write(repo, "tests/InvoiceTests.php", "<?php\nnamespace Acme\\Tests;\nclass InvoiceTests {}\n")
    write(repo, "tests/Unit/invoice.test.php", "<?php\nit('adds up', fn () => true);\n")
    write(repo, "src/Latest.php", "<?php\nnamespace Acme;\nclass Latest {}\n")
    write(repo, "tests/LatestTest.php", "<?php\nnamespace Acme\\Tests;\nclass LatestTest {}\n")
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges if e.relation == "tests"}
    assert edges == {  # PHPUnit classes and a Pest file; ``LatestTest`` is not ``la``
        ("src:tests/InvoiceTests.php", "src:src/Invoice.php", "tests"),
        ("src:tests/LatestTest.php", "src:src/Latest.php", "tests"),
        ("src:tests/Unit/invoice.test.php", "src:src/Invoice.php", "tests"),
    }


def test_task_context_names_the_file_defining_a_php_method(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    make_php_project(repo)
    paths = task_context_paths(run_charter, repo, "sumEntries adds up the wrong series")
    assert paths[0] == "app/Ledger/Series.php"
