"""Solidity in the graph: contracts, interfaces and libraries with their members as
``Contract.member``, Solidity's visibility as exported (a library's ``internal`` functions
are its API), imports resolved from the importer and through a Foundry project's
remappings and library folders, calls and references (inheritance, ``using``, ``emit``,
``revert``, modifiers, ``new``) linked through what a file imports, transitively, and
Foundry's ``.t.sol`` tests and ``.s.sol`` scripts (ranking is in
``tests/test_graph_grammars.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_solidity
from charter.graph.build import build_graph
from charter.graph.extract import extract_file, is_test_path
from charter.graph.resolve import Resolver
from tests.conftest import symbol_spans, write

VAULT_SOL = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@solmate/tokens/ERC20.sol";
import {IVault} from "./interfaces/IVault.sol";
import "./Base.sol";
import {FeeMath} from "./libraries/FeeMath.sol";
import {Ownable} from "@oz/access/Ownable.sol";
import {Hooks} from "@uniswap/v4-core/src/libraries/Hooks.sol";

contract Vault is IVault, Base, ERC20 {
    using FeeMath for uint256;

    uint256 public totalDeposits;
    mapping(address => uint256) internal shares;
    address private immutable guardian;
    uint256 constant MAX_FEE = 1000;

    modifier onlyGuardian() {
        if (msg.sender != guardian) revert Unauthorized(msg.sender);
        _;
    }

    constructor(address g) ERC20("Vault", "V", 18) {
        guardian = g;
    }

    function deposit(uint256 amount) external override onlyGuardian {
        if (amount == 0) revert ZeroAmount();
        uint256 net = amount.applyFee();
        _mint(msg.sender, FeeMath.applyFee(net));
        emit Deposited(msg.sender, amount);
        Strategy s = new Strategy(address(this));
        s.rebalance{value: 0}();
        super.sync();
    }

    function _accrue() internal {}

    function _settle() private {}

    receive() external payable {}
}

contract Strategy {
    constructor(address vault) {}

    function rebalance() external payable {}
}
"""
BASE_SOL = """pragma solidity ^0.8.24;

import "./Errors.sol";

abstract contract Base {
    function sync() public virtual {}
}
"""
ERRORS_SOL = """pragma solidity ^0.8.24;

error Unauthorized(address caller);

uint256 constant MAX_FEE_BPS = 1000;

struct Fee {
    uint16 bps;
}

event FeeSet(uint16 bps);

type Shares is uint256;

function toShares(uint256 assets) pure returns (Shares) {
    return Shares.wrap(assets);
}
"""
IVAULT_SOL = """pragma solidity ^0.8.24;

interface IVault {
    event Deposited(address indexed who, uint256 amount);
    error ZeroAmount();
    struct Position {
        uint256 shares;
    }
    enum Mode { Open, Closed }

    function deposit(uint256 amount) external;
    function previewDeposit(uint256 amount) external view returns (uint256);
}
"""
#: a library's ``internal`` functions are its API; a ``private`` one is its own
FEE_MATH_SOL = """pragma solidity ^0.8.24;

library FeeMath {
    uint256 internal constant BPS = 10_000;

    /// the fee is rounded up: a vault never gives away a fraction of a fee
    function applyFee(uint256 amount) internal pure returns (uint256) {
        return amount - _fee(amount);
    }

    function _fee(uint256 amount) private pure returns (uint256) {
        return (amount * 30 + BPS - 1) / BPS;
    }
}
"""
SOLMATE_ERC20_SOL = """pragma solidity >=0.8.0;

abstract contract ERC20 {
    constructor(string memory name, string memory symbol, uint8 decimals) {}

    function _mint(address to, uint256 amount) internal virtual {}
}
"""
#: a namesake of the project's error: only the importing chain tells which one is meant
OWNED_SOL = """pragma solidity >=0.8.0;

error Unauthorized(address caller);

abstract contract Owned {}
"""
VAULT_TEST_SOL = """pragma solidity ^0.8.24;

import "forge-std/Test.sol";
import {Vault} from "../src/Vault.sol";

contract VaultTest is Test {
    function test_deposit() public {
        Vault v = new Vault(address(this));
        v.deposit(1);
    }
}
"""
DEPLOY_SOL = """pragma solidity ^0.8.24;

import {Script} from "forge-std/Script.sol";
import {Vault} from "../src/Vault.sol";

contract DeployVault is Script {
    function run() external {
        new Vault(msg.sender);
    }
}
"""
#: a contract that says a task's words and calls the function the task names
FEE_REPORT_SOL = """pragma solidity ^0.8.24;

import {FeeMath} from "./libraries/FeeMath.sol";

/// the fee report: should the fee round up, applyFee rounds the fee up for each deposit
contract FeeReport {
    /// the fee of a deposit, rounded up by applyFee
    function feeOf(uint256 deposit) external pure returns (uint256) {
        return deposit - FeeMath.applyFee(deposit);
    }
}
"""
FOUNDRY_TOML = """[profile.default]
src = "src"
libs = ["lib"]
remappings = ["@solmate/=lib/solmate/src/"]

[profile.ci.fuzz]
runs = 10000
"""
REMAPPINGS_TXT = "@oz/=lib/openzeppelin-contracts/contracts/\n"


def make_solidity_project(root: Path) -> None:
    write(root, "foundry.toml", FOUNDRY_TOML)
    write(root, "remappings.txt", REMAPPINGS_TXT)
    write(root, "src/Vault.sol", VAULT_SOL)
    write(root, "src/Base.sol", BASE_SOL)
    write(root, "src/Errors.sol", ERRORS_SOL)
    write(root, "src/interfaces/IVault.sol", IVAULT_SOL)
    write(root, "src/libraries/FeeMath.sol", FEE_MATH_SOL)
    write(root, "lib/solmate/src/tokens/ERC20.sol", SOLMATE_ERC20_SOL)
    write(root, "lib/solmate/src/auth/Owned.sol", OWNED_SOL)
    write(root, "lib/openzeppelin-contracts/contracts/access/Ownable.sol", "contract Ownable {}\n")
    write(root, "lib/forge-std/src/Test.sol", "abstract contract Test {}\n")
    write(root, "test/Vault.t.sol", VAULT_TEST_SOL)
    write(root, "script/Vault.s.sol", DEPLOY_SOL)


def test_contracts_and_their_members_are_symbols_with_solidity_s_visibility() -> None:
    vault = symbol_spans(extract_solidity.extract(VAULT_SOL.encode()))
    assert vault == {
        "Vault": ("class", 11, True),
        "Vault.totalDeposits": ("variable", 14, True),
        "Vault.shares": ("variable", 15, False),  # internal
        "Vault.guardian": ("variable", 16, False),  # private
        "Vault.MAX_FEE": ("const", 17, False),  # internal by default
        "Vault.onlyGuardian": ("modifier", 19, False),
        "Vault.constructor": ("method", 24, True),
        "Vault.deposit": ("method", 28, True),
        "Vault._accrue": ("method", 38, False),
        "Vault._settle": ("method", 40, False),
        "Vault.receive": ("method", 42, True),
        "Strategy": ("class", 45, True),
        "Strategy.constructor": ("method", 46, True),
        "Strategy.rebalance": ("method", 48, True),
    }
    interface = symbol_spans(extract_solidity.extract(IVAULT_SOL.encode()))
    assert interface == {
        "IVault": ("interface", 3, True),
        "IVault.Deposited": ("event", 4, True),
        "IVault.ZeroAmount": ("error", 5, True),
        "IVault.Position": ("class", 6, True),
        "IVault.Mode": ("enum", 9, True),
        "IVault.deposit": ("method", 11, True),  # no visibility in an interface: external
        "IVault.previewDeposit": ("method", 12, True),
    }
    library = symbol_spans(extract_solidity.extract(FEE_MATH_SOL.encode()))
    assert library == {
        "FeeMath": ("class", 3, True),
        "FeeMath.BPS": ("const", 4, True),
        "FeeMath.applyFee": ("method", 7, True),  # internal: the library's API
        "FeeMath._fee": ("method", 11, False),  # private
    }
    # a file's own free function, error, constant, struct, event and value type
    top = symbol_spans(extract_solidity.extract(ERRORS_SOL.encode()))
    assert top == {
        "Unauthorized": ("error", 3, True),
        "MAX_FEE_BPS": ("const", 5, True),
        "Fee": ("class", 7, True),
        "FeeSet": ("event", 11, True),
        "Shares": ("type", 13, True),
        "toShares": ("function", 15, True),
    }
    assert symbol_spans(extract_solidity.extract(BASE_SOL.encode()))["Base"] == ("class", 5, True)


def test_imports_calls_and_references() -> None:
    out = extract_solidity.extract(VAULT_SOL.encode())
    assert out["imports"][:3] == [
        {"module": "@solmate/tokens/ERC20.sol", "names": ["ERC20"], "level": 0},
        {"module": "./interfaces/IVault.sol", "names": ["IVault"], "level": 0},
        {"module": "./Base.sol", "names": [], "level": 0},
    ]
    assert len(out["imports"]) == 6
    # a call by name: ``foo()``, ``x.foo()``, ``L.foo()``, ``super.foo()``, call options,
    # a modifier and a base constructor's arguments; never the language's own
    assert {"applyFee", "_mint", "rebalance", "sync", "onlyGuardian", "ERC20"} <= set(out["calls"])
    assert not {"require", "revert", "wrap"} & set(out["calls"])
    # inheritance, ``using L for T``, ``new C``, ``emit E``, ``revert Err`` and a CapWords
    # object whose member is used
    for name in ("IVault", "Base", "FeeMath", "Strategy", "Deposited", "ZeroAmount"):
        assert name in out["refs"], name
    assert "Unauthorized" in out["refs"]
    assert not {"msg", "sender", "this"} & set(out["refs"])
    assembly = extract_solidity.extract(
        b"contract A { function f() public { assembly { let x := mload(0x40) } } }"
    )
    assert assembly["calls"] == [] and not assembly["parse_errors"]


def test_remappings_are_read_from_foundry_toml_and_remappings_txt(tmp_path: Path) -> None:
    write(tmp_path, "contracts/foundry.toml", FOUNDRY_TOML)
    write(tmp_path, "contracts/remappings.txt", "src/legacy/:@oz/=lib/oz-v4/\n# note\n")
    toml = extract_file(tmp_path, "contracts/foundry.toml", 1_000_000)
    # targets and contexts from the project root, as the compiler reads them in its folder
    assert toml["sol_remappings"] == [["", "@solmate/", "contracts/lib/solmate/src/"]]
    assert toml["sol_libs"] == ["contracts/lib"]
    txt = extract_file(tmp_path, "contracts/remappings.txt", 1_000_000)
    assert txt["sol_remappings"] == [["contracts/src/legacy/", "@oz/", "contracts/lib/oz-v4/"]]
    assert "sol_remappings" not in extract_file(tmp_path, "contracts/foundry.toml", 1)
    broken = write(tmp_path, "x/foundry.toml", "[profile.default\n")
    assert extract_file(tmp_path, "x/foundry.toml", 1_000_000)["sol_remappings"] == []
    assert broken.exists()


def test_an_import_resolves_relatively_through_remappings_then_library_folders() -> None:
    files = [
        "src/A.sol",
        "src/sub/B.sol",
        "lib/oz/contracts/access/Ownable.sol",
        "lib/oz-v4/access/Ownable.sol",
        "lib/forge-std/src/Test.sol",
        "node_modules/@openzeppelin/contracts/token/ERC20/ERC20.sol",
        "src/utils/Math.sol",
        "pkg/contracts/X.sol",
        "pkg/lib/solady/src/Y.sol",
    ]
    remappings = [["", "@oz/", "lib/oz/contracts/"], ["src/sub/", "@oz/", "lib/oz-v4/"]]
    resolver = Resolver(files, sol_projects={"": (remappings, [])})
    assert resolver.solidity("src/sub/B.sol", "../A.sol") == ["src/A.sol"]
    assert resolver.solidity("src/A.sol", "@oz/access/Ownable.sol") == [
        "lib/oz/contracts/access/Ownable.sol"
    ]
    # a remapping with a context applies inside it, over a shorter one
    assert resolver.solidity("src/sub/B.sol", "@oz/access/Ownable.sol") == [
        "lib/oz-v4/access/Ownable.sol"
    ]
    # Foundry's own remapping of a library folder's package, npm packages, ``src/``
    assert resolver.solidity("src/A.sol", "forge-std/Test.sol") == ["lib/forge-std/src/Test.sol"]
    assert resolver.solidity("src/A.sol", "@openzeppelin/contracts/token/ERC20/ERC20.sol") == [
        "node_modules/@openzeppelin/contracts/token/ERC20/ERC20.sol"
    ]
    assert resolver.solidity("src/A.sol", "src/utils/Math.sol") == ["src/utils/Math.sol"]
    assert resolver.solidity("src/A.sol", "utils/Math.sol") == ["src/utils/Math.sol"]
    # a remapped path that is not in the repository is a library: nothing else is tried
    assert resolver.solidity("src/A.sol", "@oz/token/ERC20.sol") == []
    assert resolver.solidity("src/A.sol", "solmate/tokens/ERC20.sol") == []
    # a nested project resolves from its own root and library folders first
    nested = Resolver(files, sol_projects={"pkg": ([], ["pkg/lib"]), "": ([], [])})
    assert nested.solidity("pkg/contracts/X.sol", "solady/Y.sol") == ["pkg/lib/solady/src/Y.sol"]
    assert nested.solidity("pkg/contracts/X.sol", "contracts/X.sol") == ["pkg/contracts/X.sol"]


def test_a_foundry_project_links_imports_calls_references_tests_and_scripts(repo: Path) -> None:
    make_solidity_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    vault = "src:src/Vault.sol"
    assert graph.nodes[vault].attrs["language"] == "solidity"
    imports = {t for s, t, r in edges if s == vault and r == "imports"}
    assert imports == {
        "src:lib/solmate/src/tokens/ERC20.sol",  # foundry.toml's remapping
        "src:lib/openzeppelin-contracts/contracts/access/Ownable.sol",  # remappings.txt's
        "src:src/interfaces/IVault.sol",
        "src:src/Base.sol",
        "src:src/libraries/FeeMath.sol",
    }  # ``@uniswap/v4-core/…`` is a library outside the repository
    assert (vault, "sym:src/libraries/FeeMath.sol#FeeMath.applyFee", "calls") in edges
    assert (vault, "sym:lib/solmate/src/tokens/ERC20.sol#ERC20._mint", "calls") in edges
    assert (vault, "sym:src/Base.sol#Base.sync", "calls") in edges  # ``super.sync()``
    assert (vault, "sym:src/interfaces/IVault.sol#IVault", "references") in edges
    assert (vault, "sym:src/interfaces/IVault.sol#IVault.Deposited", "references") in edges
    assert (vault, "sym:src/interfaces/IVault.sol#IVault.ZeroAmount", "references") in edges
    assert (vault, "sym:src/libraries/FeeMath.sol#FeeMath", "references") in edges
    # ``import "./Base.sol"`` brings what Base.sol imports: the project's ``Unauthorized``,
    # not the library's namesake
    assert (vault, "sym:src/Errors.sol#Unauthorized", "references") in edges
    assert (vault, "sym:lib/solmate/src/auth/Owned.sol#Unauthorized", "references") not in edges
    # members hang under their contract
    assert ("sym:src/Vault.sol#Vault", "sym:src/Vault.sol#Vault.deposit", "defines") in edges
    # Foundry's test tests the contract it imports and is named after; the script is no
    # test and is not what the test checks
    assert graph.nodes["src:test/Vault.t.sol"].attrs.get("test") is True
    assert not graph.nodes["src:script/Vault.s.sol"].attrs.get("test")
    assert ("src:test/Vault.t.sol", vault, "tests") in edges
    assert ("src:test/Vault.t.sol", "src:lib/forge-std/src/Test.sol", "imports") in edges
    assert not any(t == "src:script/Vault.s.sol" for _, t, r in edges if r == "tests")
    assert ("src:script/Vault.s.sol", vault, "imports") in edges


def test_a_script_is_an_entry_point_and_not_the_project_s_api(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    make_solidity_project(repo)
    capsule = json.loads(run_charter("capsule", "--json", cwd=repo).stdout)
    packages = {p["package"]: p for p in capsule["module_map"]}
    assert packages["script"]["entry_points"] == ["script/Vault.s.sol"]
    assert packages["script"]["public_symbols"] == []
    assert "src/Vault.sol#Vault" in packages["src"]["public_symbols"]
    assert "src/Errors.sol#toShares" in packages["src"]["public_symbols"]
    # members are not top-level API; tests are not the project's
    assert not any("." in s.split("#")[1] for s in packages["src"]["public_symbols"])
    assert "test" not in packages


def test_foundry_tests_and_scripts_by_their_names() -> None:
    assert is_test_path("test/Vault.t.sol")
    assert is_test_path("src/test/ERC20.t.sol")
    assert is_test_path("contracts/Vault.invariant.t.sol")  # a test wherever it is
    assert is_test_path("test/utils/Mocks.sol")  # a helper under test/
    assert not is_test_path("script/Deploy.s.sol")
    assert not is_test_path("src/Vault.sol")
