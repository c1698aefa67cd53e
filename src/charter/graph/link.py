"""Records → nodes and edges: sources, symbols, imports, calls, tests, docs, front end.

``calls`` and ``references`` edges go to symbols defined in the files a file imports,
or to a name defined exactly once in the project; a common name defined in many places
(``get``, ``run``) links nowhere rather than everywhere. Tests link to the files they
import and to the file their name points at (``test_models.py`` → ``models.py``); a
folder's own file (``mod.rs``, ``__init__.py``, ``index.ts``) is named by its folder, so
``lexer/tests/mod.rs`` tests ``lexer/mod.rs``, not every ``mod.rs`` of the project.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from charter.graph.extract import CLASS_NAMED_TESTS, CLASS_TEST_STEM, TEST_DIRS
from charter.graph.link_schema import schema_edges, schema_tables
from charter.graph.model import Edge, Node, node_id
from charter.graph.resolve import Resolver

_COMPONENT_LANGS = ("tsx", "javascript")
_JS_LANGS = ("javascript", "typescript", "tsx")
_JVM_LANGS = ("java", "kotlin", "scala")
#: A test class named after the class it specifies: ``AccountSpec``, ``AccountSuite``.
_SPEC_STEM = re.compile(r".*[a-z0-9](Spec|Suite)s?")
#: A folder's own file: its subject is the folder (Rust's ``mod.rs``, a Python package's
#: ``__init__.py``, a JavaScript folder's ``index.js``).
_FOLDER_FILES = frozenset(["mod", "__init__", "index"])


def _subject(rel: str, stem: str) -> str:
    """The name a test names or a file is named by: ``stem``, or for a folder's own file
    the innermost folder that is no test folder ("" at the root)."""
    if stem not in _FOLDER_FILES:
        return stem
    folders = rel.lower().split("/")[:-1]
    return next((f for f in reversed(folders) if f not in TEST_DIRS), "")


def _source_node(rel: str, rec: dict[str, Any]) -> Node:
    attrs: dict[str, Any] = {"language": rec["language"], "sha256": rec["sha256"]}
    if rec.get("test"):
        attrs["test"] = True
    if rec.get("note"):
        attrs["note"] = rec["note"]
    if rec.get("entry"):
        attrs["entry"] = True
    return Node(node_id("source", rel), "source", rel.rsplit("/", 1)[-1], rel, attrs=attrs)


def _folder_names(
    records: dict[str, dict[str, Any]], by_file: dict[str, dict[str, str]], language: str
) -> dict[str, dict[str, str]]:
    """Per folder, one table of the names its ``language`` files define (the first file
    in path order wins a name): for languages whose unit is the folder (a Go package, a
    Terraform module), not the file."""
    tables: dict[str, dict[str, str]] = defaultdict(dict)
    for rel, rec in sorted(records.items()):
        if rec.get("language") == language:
            table = tables[rel.rsplit("/", 1)[0] if "/" in rel else ""]
            for name, sid in by_file[rel].items():
                table.setdefault(name, sid)
    return tables


def link(records: dict[str, dict[str, Any]]) -> tuple[dict[str, Node], list[Edge]]:
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    go_modules = {
        rec["go_module"]: rel.rsplit("/", 1)[0] if "/" in rel else ""
        for rel, rec in sorted(records.items())
        if rec.get("go_module")
    }
    jvm_packages: dict[str, list[str]] = defaultdict(list)
    for rel, rec in sorted(records.items()):
        if rec.get("package") and rec.get("language") in _JVM_LANGS:
            jvm_packages[rec["package"]].append(rel)
    php_roots = [
        (prefix, folder) for rec in records.values() for prefix, folder in rec.get("psr4", [])
    ]
    # a PHP class or function by its fully qualified name → the files defining it
    php_defined: dict[str, list[str]] = defaultdict(list)
    for rel, rec in sorted(records.items()):
        if rec.get("language") == "php":
            for sym in rec.get("symbols", []):
                if "." not in sym["qualname"]:
                    php_defined[sym["qualname"]].append(rel)
    cs_namespaces: dict[str, list[str]] = defaultdict(list)
    for rel, rec in sorted(records.items()):
        if rec.get("language") == "csharp":
            for namespace in rec.get("namespaces", []):
                cs_namespaces[namespace].append(rel)
    swift_modules: dict[str, list[str]] = defaultdict(list)  # module name → its files
    for rel, rec in sorted(records.items()):
        if rec.get("language") == "swift":
            swift_modules[swift_module(rel)[1]].append(rel)
    # an Elixir module by its full name → the files defining it
    elixir_modules: dict[str, list[str]] = defaultdict(list)
    for rel, rec in sorted(records.items()):
        if rec.get("language") == "elixir":
            for sym in rec.get("symbols", []):
                if sym["kind"] in ("module", "interface"):
                    elixir_modules[sym["qualname"]].append(rel)
    # a Dart package by its pubspec's name → its folder (the shallowest of namesakes)
    dart_packages: dict[str, str] = {}
    for rel, rec in sorted(records.items(), key=lambda kv: (kv[0].count("/"), kv[0])):
        if rec.get("dart_package"):
            dart_packages.setdefault(
                rec["dart_package"], rel.rsplit("/", 1)[0] if "/" in rel else ""
            )
    # a Rust library by its Cargo.toml's name → the package's folder
    rust_crates: dict[str, str] = {}
    for rel, rec in sorted(records.items(), key=lambda kv: (kv[0].count("/"), kv[0])):
        if rec.get("rust_crate"):
            rust_crates.setdefault(rec["rust_crate"], rel.rsplit("/", 1)[0] if "/" in rel else "")
    resolver = Resolver(
        records,
        go_modules,
        jvm_packages,
        php_roots,
        cs_namespaces,
        swift_modules,
        elixir_modules,
        dart_packages,
        _solidity_projects(records),
        rust_crates,
    )
    dart_exports: dict[str, list[str]] = {}  # a Dart file → the files it re-exports or parts
    for rel, rec in sorted(records.items()):
        if rec.get("language") == "dart":
            dart_exports[rel] = [
                t
                for imp in rec.get("imports", [])
                if imp.get("kind") in ("export", "part")
                for t in resolver.dart(rel, imp["module"])
            ]
    # a Solidity file sees every name its imports see (``import "./A.sol"`` brings in
    # what A.sol imported too): what it imports, then what those import, and so on
    sol_imports = {
        rel: [t for imp in rec.get("imports", []) for t in resolver.solidity(rel, imp["module"])]
        for rel, rec in sorted(records.items())
        if rec.get("language") == "solidity"
    }
    # a shell script → the files it sources (its functions are theirs too)
    shell_sourced: dict[str, list[str]] = {}
    for rel, rec in sorted(records.items()):
        if rec.get("language") == "shell":
            shell_sourced[rel] = [
                t
                for imp in rec.get("imports", [])
                if imp.get("kind") == "source"
                for t in resolver.shell(rel, imp["module"])
            ]
    defined: dict[str, list[str]] = defaultdict(list)  # name → symbol ids
    by_file: dict[str, dict[str, str]] = {}  # path → name → symbol id
    stems: dict[str, list[str]] = defaultdict(list)
    for rel, rec in records.items():
        src = node_id("source", rel)
        nodes[src] = _source_node(rel, rec)
        if not rec.get("test") and not rel.endswith(".s.sol"):  # a Foundry script is no
            # code a test checks: ``Counter.t.sol`` tests ``Counter.sol``, not ``Counter.s.sol``
            subject = _subject(rel, rel.rsplit("/", 1)[-1].split(".", 1)[0].lower())
            if subject:
                stems[subject].append(rel)
        names: dict[str, str] = {}
        for sym in rec.get("symbols", []):
            sid = node_id("symbol", f"{rel}#{sym['qualname']}")
            attrs = {"kind": sym["kind"], "exported": sym["exported"]}
            nodes[sid] = Node(
                sid, "symbol", sym["qualname"], rel, sym["line_start"], sym["line_end"], attrs
            )
            parent = sym["qualname"].rsplit(".", 1)[0] if "." in sym["qualname"] else None
            owner = node_id("symbol", f"{rel}#{parent}") if parent else src
            edges.append(Edge(owner if owner in nodes else src, sid, "defines"))
            names.setdefault(sym["name"], sid)
            defined[sym["name"]].append(sid)
        by_file[rel] = names
        for item in rec.get("sot_records", []):
            rid = node_id("record", f"{rel}#{item['address']}")
            nodes[rid] = Node(rid, "record", item["title"], rel, attrs={"address": item["address"]})
            edges.append(Edge(src, rid, "defines"))
    # a Go package is a folder: its files use each other's names without importing them,
    # and an import names the whole folder (one merged name table per package)
    go_names = _folder_names(records, by_file, "go")
    # a Terraform module is a folder: its files use each other's blocks by address
    hcl_names = _folder_names(records, by_file, "hcl")
    # a Java/Kotlin package spans folders and source sets: its files see each other's names
    jvm_names: dict[str, dict[str, str]] = defaultdict(dict)
    for package, files in jvm_packages.items():
        for rel in files:
            for name, sid in by_file[rel].items():
                jvm_names[package].setdefault(name, sid)
    cs_names = {ns: _merged(files, by_file) for ns, files in cs_namespaces.items()}
    # a Swift module (a SwiftPM target's folder) is one scope of top-level names and
    # extension methods: its files use them without importing each other
    swift_exposed = {
        rel: _swift_exposed(rec) for rel, rec in records.items() if rec.get("language") == "swift"
    }
    swift_names: dict[str, dict[str, str]] = defaultdict(dict)
    for rel in sorted(swift_exposed):
        table = swift_names[swift_module(rel)[0]]
        for name in sorted(swift_exposed[rel]):
            if name in by_file[rel]:
                table.setdefault(name, by_file[rel][name])
    cs_global = _csharp_global_usings(records)
    cs_exposed = {
        rel: _csharp_exposed(rec) for rel, rec in records.items() if rec.get("language") == "csharp"
    }
    schemas = schema_tables(records)  # proto names, qualified
    tails: dict[str, str] | None = None  # built when the first document is linked
    for rel, rec in records.items():
        src = node_id("source", rel)
        lang = rec.get("language")
        imported: list[str] = []
        imports = rec.get("imports", [])
        if lang == "csharp":  # plus the project's ``global using``s, each file's own
            imports = imports + cs_global.get(_csharp_project(rel, cs_global), [])
        for imp in imports:
            if lang == "python":
                targets = resolver.python(rel, imp["module"], imp["names"], imp["level"])
            elif lang == "go":
                targets = resolver.go(rel, imp["module"])
                # the package's files that define a name this file uses (all, when none do)
                used = [t for t in targets if any(n in by_file[t] for n in imp["names"])]
                targets = used or targets
            elif lang in _JVM_LANGS:
                targets, name = resolver.jvm(imp["module"])
                for package in _scala_packages(rec) if not targets else []:
                    # a relative Scala import: ``import model.Task`` in ``package acme``
                    targets, name = resolver.jvm(f"{package}.{imp['module']}")
                    if targets:
                        break
                if name:  # the package's files that define the imported name
                    targets = [t for t in targets if name in by_file[t]]
                elif imp["module"].endswith(".*"):  # the files defining a name used here
                    used_names = set(rec.get("calls", [])) | set(rec.get("refs", []))
                    targets = [t for t in targets if used_names & by_file[t].keys()]
            elif lang == "php":  # PSR-4's file, else the files defining the name
                targets = resolver.php(imp["module"]) or php_defined.get(imp["module"], [])
            elif lang == "dart":  # a path from the importer or ``package:name/…``
                targets = resolver.dart(rel, imp["module"])
            elif lang == "rust":  # ``mod name;`` or a ``use`` path: a module's file
                targets = resolver.rust(rel, imp["module"], imp.get("kind", "use"))
            elif lang == "zig":  # ``@import("page.zig")``: a path from the importer
                targets = resolver.relative(rel, imp["module"])
            elif lang in ("c", "cpp", "objc"):
                targets = resolver.c(rel, imp["module"], bool(imp.get("system")))
            elif lang == "csharp":
                targets, name = resolver.csharp(imp["module"])
                # a type imported by name, or a namespace's files whose types or extension
                # methods this file uses (its members' names would match every handler)
                wanted = {name} if name else set(rec.get("calls", [])) | set(rec.get("refs", []))
                targets = [
                    t
                    for t in dict.fromkeys(targets)
                    if t not in imported and wanted & cs_exposed[t]
                ]
            elif lang == "swift":  # the module's files defining a name used here
                wanted = set(imp["names"]) or (set(rec.get("calls", [])) | set(rec.get("refs", [])))
                targets = [
                    t
                    for t in resolver.swift(imp["module"])
                    if t not in imported and wanted & swift_exposed[t]
                ]
            elif lang == "elixir":  # the file defining the module
                targets = resolver.elixir(imp["module"])
            elif lang == "lua":  # ``require("a.b")``: a module on ``package.path``
                targets = resolver.lua(rel, imp["module"])
            elif lang == "solidity":  # a path from the importer, or through remappings
                targets = resolver.solidity(rel, imp["module"])
            elif lang == "hcl":  # a module's local ``source``: that folder's files
                targets = resolver.hcl(rel, imp["module"])
                # the arguments a module block passes set the called module's variables
                for target in targets:
                    for name in imp["names"]:
                        if name in by_file[target]:
                            edges.append(Edge(src, by_file[target][name], "references"))
            elif lang == "proto":  # ``import "a/b.proto"``: beside it or under an include root
                targets = resolver.proto(rel, imp["module"])
            elif lang == "shell":  # a sourced file, or a script run: a call of that file
                targets = resolver.shell(rel, imp["module"])
                if imp.get("kind") == "run":
                    for target in targets if targets != [rel] else []:
                        edges.append(Edge(src, node_id("source", target), "calls"))
                        if rec.get("test") and not records[target].get("test"):
                            edges.append(Edge(src, node_id("source", target), "tests"))
                    continue
            else:
                targets = resolver.js(rel, imp["module"])
            for target in targets:
                if target != rel:
                    imported.append(target)
                    edges.append(Edge(src, node_id("source", target), "imports"))
        if lang == "go":
            folders = [t.rsplit("/", 1)[0] if "/" in t else "" for t in imported]
            folders.append(rel.rsplit("/", 1)[0] if "/" in rel else "")
            scopes = [go_names[f] for f in dict.fromkeys(folders)]
        elif lang in _JVM_LANGS:
            scopes = [by_file.get(other, {}) for other in imported]
            scopes.append(jvm_names.get(rec.get("package", ""), {}))
            # a chained Scala package clause sees its enclosing packages' names
            scopes += [jvm_names.get(p, {}) for p in rec.get("enclosing", [])]
        elif lang == "csharp":  # the file's namespaces and those enclosing them
            scopes = [by_file.get(other, {}) for other in imported]
            for namespace in rec.get("namespaces", []):
                parts = namespace.split(".")
                for k in range(len(parts), 0, -1):
                    scopes.append(cs_names.get(".".join(parts[:k]), {}))
        elif lang == "dart":  # what it imports, and what those re-export (a library file)
            scopes = [by_file.get(other, {}) for other in _reachable(imported, dart_exports)]
        elif lang == "solidity":  # what it imports, and what those import
            scopes = [by_file.get(other, {}) for other in _reachable(imported, sol_imports)]
        elif lang == "hcl":  # the folder's files (one Terraform module), then its imports
            scopes = [hcl_names[rel.rsplit("/", 1)[0] if "/" in rel else ""]]
            scopes += [by_file.get(other, {}) for other in imported]
        elif lang == "shell":  # what it sources, and what those source in turn
            scopes = [by_file.get(other, {}) for other in _reachable(imported, shell_sourced)]
        elif lang == "swift":  # the file's own module first, then what it imports
            scopes = [swift_names[swift_module(rel)[0]]]
            scopes += [by_file.get(other, {}) for other in imported]
        else:
            scopes = [by_file.get(other, {}) for other in imported]
        for relation, key in (("calls", "calls"), ("references", "refs")):
            for name in rec.get(key, []):
                target_id = by_file[rel].get(name) if relation == "references" else None
                if target_id is None:
                    for scope in scopes:
                        target_id = scope.get(name)
                        if target_id:
                            break
                # a Terraform address names a block of its own module, never another's
                unique = lang != "hcl" and len(defined.get(name, ())) == 1
                if target_id is None and unique and len(name) > 3:
                    target_id = defined[name][0]
                if target_id and not target_id.startswith(f"sym:{rel}#"):
                    edges.append(Edge(src, target_id, relation))
        edges += schema_edges(rel, rec, imported, schemas)
        if rec.get("test"):
            for target in imported:
                if not records[target].get("test"):
                    edges.append(Edge(src, node_id("source", target), "tests"))
            cased = rel.rsplit("/", 1)[-1].split(".", 1)[0]
            name = cased.lower()
            base = name.removeprefix("test_").removesuffix("_test").removesuffix("_spec")
            if rel[rel.rfind(".") :] in CLASS_NAMED_TESTS and CLASS_TEST_STEM.fullmatch(cased):
                base = base.removesuffix("s").removesuffix("test")  # AccountTest → account
            elif rel[rel.rfind(".") :] in CLASS_NAMED_TESTS and _SPEC_STEM.fullmatch(cased):
                # ScalaTest's, MUnit's, Kotest's and Spock's: AccountSpec → account
                base = base.removesuffix("s").removesuffix("spec").removesuffix("suite")
            base = _subject(rel, base)
            for target in stems.get(base, []) if base and base != "conftest" else []:
                edges.append(Edge(src, node_id("source", target), "tests"))
        if lang == "markdown":
            if tails is None:
                tails = _tails(records)
            _link_doc(rel, rec, records, tails, defined, nodes, edges)
        _link_frontend(rel, rec, records, resolver, nodes, edges)
    return nodes, edges


def _reachable(imported: list[str], exports: dict[str, list[str]]) -> list[str]:
    """The files a file imports, then those they pass on, and so on, each once, nearest
    first: a Dart file's ``export``s and ``part``s (a package's library file re-exports
    its ``src/`` files), every import of a Solidity file (its global names are all it
    imported), the files a shell script sources and those they source."""
    seen = dict.fromkeys(imported)
    queue = list(imported)
    while queue and len(seen) < 500:
        for target in exports.get(queue.pop(0), []):
            if target not in seen:
                seen[target] = None
                queue.append(target)
    return list(seen)


def _scala_packages(rec: dict[str, Any]) -> list[str]:
    """The packages a Scala file's relative imports start from: its own package, then
    those its chained package clauses enclose it in (none for Java and Kotlin)."""
    if rec.get("language") != "scala" or not rec.get("package"):
        return []
    return [rec["package"], *rec.get("enclosing", [])]


def _tails(records: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each proper tail of a path (``b/c.md`` and ``c.md`` of ``a/b/c.md``) → the first
    path in ``records`` order that ends with it: what a document's mention names."""
    tails: dict[str, str] = {}
    for path in records:
        parts = path.split("/")
        for i in range(1, len(parts)):
            tails.setdefault("/".join(parts[i:]), path)
    return tails


def _merged(files: list[str], by_file: dict[str, dict[str, str]]) -> dict[str, str]:
    """One name table for several files (the first definition of a name wins)."""
    table: dict[str, str] = {}
    for rel in files:
        for name, sid in by_file[rel].items():
            table.setdefault(name, sid)
    return table


def _csharp_exposed(rec: dict[str, Any]) -> set[str]:
    """What a ``using`` of a C# file's namespace brings in: its top-level types and its
    extension methods."""
    types = {s["name"] for s in rec.get("symbols", []) if "." not in s["qualname"]}
    return types | set(rec.get("extensions", []))


def swift_module(rel: str) -> tuple[str, str]:
    """The folder and name of the Swift module (target) a file belongs to: the folder
    under ``Sources/`` or ``Tests/`` (SwiftPM's layout), else the file's top folder (an
    Xcode project's target folder; "" for a file at the root)."""
    parts = rel.split("/")
    for i, part in enumerate(parts[:-2]):
        if part in ("Sources", "Tests"):
            return "/".join(parts[: i + 2]), parts[i + 1]
    return (parts[0], parts[0]) if len(parts) > 1 else ("", "")


def _swift_exposed(rec: dict[str, Any]) -> set[str]:
    """What a Swift file gives its module and the files importing it: its top-level
    names and the methods it adds to types defined elsewhere."""
    top = {s["name"] for s in rec.get("symbols", []) if "." not in s["qualname"]}
    return top | set(rec.get("extensions", []))


def _csharp_global_usings(records: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``global using`` imports by .NET project: the folder of the nearest ``.csproj``
    ("" for files under none), whose every file sees them."""
    projects = {
        rel.rsplit("/", 1)[0] if "/" in rel else ""
        for rel in records
        if rel.lower().endswith(".csproj")
    }
    out: dict[str, list[dict[str, Any]]] = {p: [] for p in projects}
    for rel, rec in sorted(records.items()):
        if rec.get("language") == "csharp":
            for imp in rec.get("imports", []):
                if imp.get("global"):
                    out.setdefault(_csharp_project(rel, out), []).append(imp)
    return out


def _csharp_project(rel: str, projects: dict[str, Any]) -> str:
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    while folder and folder not in projects:
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return folder


def _link_doc(
    rel: str,
    rec: dict[str, Any],
    records: dict[str, dict[str, Any]],
    tails: dict[str, str],
    defined: dict[str, list[str]],
    nodes: dict[str, Node],
    edges: list[Edge],
) -> None:
    lower = f"/{rel.lower()}"
    kind = "adr" if ("/decisions/" in lower or "/adr/" in lower or "/adrs/" in lower) else "doc"
    doc = node_id("document", rel)
    nodes[doc] = Node(doc, "document", rec.get("title") or rel, rel, attrs={"kind": kind})
    edges.append(Edge(node_id("source", rel), doc, "defines"))
    for section in rec.get("sections", []):
        sid = node_id("section", f"{rel}#{section['slug']}")
        nodes[sid] = Node(
            sid,
            "section",
            section["title"],
            rel,
            section["line_start"],
            section["line_end"],
            {"level": section["level"]},
        )
        edges.append(Edge(doc, sid, "contains"))
        for mention in section["mentions"]:
            target = mention if mention in records else tails.get(mention)
            if target and target != rel:
                edges.append(Edge(sid, node_id("source", target), "cites"))
        for ident in section["identifiers"]:
            hits = defined.get(ident.rsplit(".", 1)[-1], [])
            if len(hits) == 1:
                edges.append(Edge(sid, hits[0], "cites"))


def _link_frontend(
    rel: str,
    rec: dict[str, Any],
    records: dict[str, dict[str, Any]],
    resolver: Resolver,
    nodes: dict[str, Node],
    edges: list[Edge],
) -> None:
    facts = rec.get("frontend", {})
    src = node_id("source", rel)
    components = []
    if rec.get("language") in _COMPONENT_LANGS and rel.endswith((".tsx", ".jsx")):
        for sym in rec.get("symbols", []):
            if (
                sym["exported"]
                and sym["kind"] in ("function", "class")
                and sym["name"][:1].isupper()
            ):
                cid = node_id("component", sym["name"])
                if cid not in nodes:
                    nodes[cid] = Node(
                        cid, "component", sym["name"], rel, sym["line_start"], sym["line_end"]
                    )
                    components.append(cid)
                edges.append(Edge(src, cid, "defines"))
    if "file_route" in facts:
        route, router = facts["file_route"]
        rid = node_id("route", route)
        nodes[rid] = Node(rid, "route", route, rel, attrs={"router": router})
        edges.append(Edge(rid, src, "renders"))
        for cid in components:
            edges.append(Edge(rid, cid, "renders"))
    for route, line in facts.get("routes", []):
        rid = node_id("route", route)
        if rid not in nodes:
            nodes[rid] = Node(rid, "route", route, rel, line, line, {"router": "react-router"})
        edges.append(Edge(rid, src, "declared_in"))
    for name, value, line in facts.get("tokens", []):
        tid = node_id("token", name)
        if tid not in nodes:
            nodes[tid] = Node(tid, "token", name, rel, line, line, {"value": value})
        edges.append(Edge(src, tid, "defines"))
    uses = set(facts.get("token_uses", []))
    for imp in rec.get("imports", []):
        for target in resolver.js(rel, imp["module"]) if rec.get("language") in _JS_LANGS else []:
            if target.endswith((".css", ".scss")):
                uses.update(records[target].get("frontend", {}).get("token_uses", []))
    for cid in components:
        for token in sorted(uses):
            bid = node_id("bridge", f"{nodes[cid].name}->{token}")
            nodes[bid] = Node(
                bid,
                "bridge",
                f"{nodes[cid].name} -> {token}",
                rel,
                attrs={"component": cid, "token": node_id("token", token)},
            )
            edges.append(Edge(cid, bid, "styled_by"))
            edges.append(Edge(bid, node_id("token", token), "uses"))


def _solidity_projects(
    records: dict[str, dict[str, Any]],
) -> dict[str, tuple[list[list[str]], list[str]]]:
    """Each Solidity project's folder ("" at the root) → its remappings and library
    folders: a Foundry project's ``foundry.toml`` and ``remappings.txt`` (merged), a
    Hardhat project's folder (its ``hardhat.config.*``) with none of its own."""
    projects: dict[str, tuple[list[list[str]], list[str]]] = {}
    for rel, rec in sorted(records.items()):
        folder, _, name = rel.rpartition("/")
        if "sol_remappings" in rec or name.startswith("hardhat.config."):
            remappings, libs = projects.setdefault(folder, ([], []))
            remappings += [r for r in rec.get("sol_remappings", []) if r not in remappings]
            libs += [d for d in rec.get("sol_libs", []) if d not in libs]
    return projects
