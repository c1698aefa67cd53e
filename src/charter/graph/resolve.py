"""Import strings → files: Python dotted modules and JS/TS relative or aliased paths.

Python modules are matched by every dotted suffix of a file's path that starts outside a
package (``src/pkg/a.py`` is ``src.pkg.a`` and ``pkg.a``; ``a`` only when ``src/pkg`` has
no ``__init__.py``, so ``import pandas`` never lands on ``bench/pandas.py`` inside a
package) with the longest, most specific match winning; relative imports
climb from the importing file's package. JS/TS imports resolve against the importing
file's directory (``./x`` → ``x.ts``, ``x/index.tsx``…) and ``@/`` / ``~/`` aliases
against the package root, ``src/`` and ``app/``. A Go import path names a package, which
is a directory: the non-test ``.go`` files of the folder under the ``go.mod`` whose module
path is the longest prefix of the import (a repository may hold several modules), or
under that module's ``vendor/`` folder. A Java or Kotlin import ``a.b.C`` names the files
whose ``package a.b`` declaration precedes them: the one named ``C.java``/``C.kt`` or else
those the linker finds defining ``C`` (a Kotlin file may declare several top-level names).
A PHP ``use App\\Models\\Account`` names the file composer.json's PSR-4 map points at
(``"App\\\\": "app/"`` → ``app/Models/Account.php``), the longest namespace prefix first.
A C/C++ ``#include "x.h"`` names the file beside the includer, else a project file whose
path ends with it (an include directory the build adds: ``include/uv.h`` for
``<uv.h>``), the one sharing most folders with the includer when several do.
A C# ``using A.B`` names the files declaring ``namespace A.B``; ``using static A.B.C``
(or an alias of it) the files of ``A.B`` that the linker finds defining ``C`` (partial
classes may span files, and a file need not be named after its type). A Swift
``import M`` names the files of module ``M``: the target folder ``Sources/M/`` (or
``Tests/M/``), else a top folder ``M/``; the linker keeps those defining a name used.
An Elixir ``alias``/``import``/``use``/``require`` of ``A.B`` names the file whose
``defmodule A.B`` defines it (modules load by name, whatever the file is called).
A Lua ``require("a.b")`` names ``a/b.lua`` or ``a/b/init.lua`` on ``package.path``: under
the project root, ``lua/`` (a Neovim plugin's modules), ``src/`` or ``lib/``, else under a
folder above the requiring file (a sub-project's own root).
A Dart ``import 'package:acme/src/x.dart'`` names ``lib/src/x.dart`` under the
``pubspec.yaml`` whose ``name:`` is ``acme``; ``import 'x.dart'`` a path from the importer.
A Terraform ``module`` block's local ``source = "./modules/vpc"`` names every ``.tf`` and
``.hcl`` file of that folder (a Terraform module is a folder), as does a Terragrunt
``terraform { source }`` or ``dependency { config_path }``.
A Solidity import path starting with ``./`` or ``../`` is a path from the importer; any
other goes through the remappings of the Foundry project holding the importer (its
``remappings.txt`` and ``foundry.toml``, the longest matching context and prefix winning,
as the compiler picks them), else is a path from that project's root, then under its
library folders (``lib/``, ``node_modules/``, or ``foundry.toml``'s ``libs``, where
Foundry remaps ``forge-std/`` to ``lib/forge-std/src/`` by itself), then under ``src/``;
a remapped path or a package absent from the repository (a git submodule not checked
out, an npm package) is a library, no file.

A Rust ``mod name;`` names ``name.rs`` or ``name/mod.rs`` in the declaring module's
folder (a crate root's, a ``mod.rs``'s own folder; ``a.rs``'s is ``a/``). A ``use`` path
starts at the crate's ``src/`` (``crate::``), the module (``self::``), its parent
(``super::``), a package of the repository by its library's name (``use lak::semantic``
from ``tests/`` or another workspace member), or a child module of the importer's; each
further segment that is a module file goes one module deeper, and the path names the
deepest one (``crate::semantic::SemanticAnalyzer`` → ``src/semantic/mod.rs``); a path
into a crate outside the repository (``std::``) names no file.

A Protocol Buffers ``import "a/b.proto"`` names the file beside the importer or the one
whose path ends with it, nearest the importer.

A shell script's ``source``d or run path (``extract_shell``'s markers) names a file from
the script's folder (``<here>/lib.sh``), from the root (``<root>/hack/x.sh``), a literal
relative path from the script's folder or else the root (scripts run from the root), and
a path behind an unknown prefix (``$HOME/x``, ``${SRC}/lib/a.sh``) the project file whose
path ends with what follows it, the one sharing most folders with the script when several
do.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

_JS_EXT = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".css", ".scss")
_JS_INDEX = ("/index.ts", "/index.tsx", "/index.js", "/index.jsx")
#: files an aliased import (``@/components/Foo.vue``) may name
_JS_TAIL_EXT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".vue", ".svelte", ".astro")
#: what a C/C++ ``#include`` may name (sources too: unity builds include ``.c`` files)
_C_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".ipp", ".tcc", ".c", ".cc")


class Resolver:
    """Built once per build from the file list."""

    def __init__(
        self,
        files: Iterable[str],
        go_modules: dict[str, str] | None = None,
        jvm_packages: dict[str, list[str]] | None = None,
        php_roots: Iterable[tuple[str, str]] = (),
        cs_namespaces: dict[str, list[str]] | None = None,
        swift_modules: dict[str, list[str]] | None = None,
        elixir_modules: dict[str, list[str]] | None = None,
        dart_packages: dict[str, str] | None = None,
        sol_projects: dict[str, tuple[list[list[str]], list[str]]] | None = None,
        rust_crates: dict[str, str] | None = None,
    ) -> None:
        self.files = set(files)
        #: a Rust library's name (its Cargo.toml's) → the package's folder ("" at the root)
        self.rust_crates = rust_crates or {}
        #: the folders holding a Cargo.toml, deepest first
        self._cargo_dirs = sorted(
            (posixpath.dirname(f) for f in self.files if posixpath.basename(f) == "Cargo.toml"),
            key=lambda d: (-d.count("/") - bool(d), d),
        )
        #: a Solidity project's folder ("" at the root) → its remappings as ``[context,
        #: prefix, target]`` and its library folders, both relative to the repository
        self.sol_projects = sol_projects or {}
        #: Dart package name (its pubspec's ``name:``) → the pubspec's folder ("" at root)
        self.dart_packages = dart_packages or {}
        #: Elixir module name → the files defining it
        self.elixir_modules = elixir_modules or {}
        #: Swift module (target) name → its files
        self.swift_modules = swift_modules or {}
        #: PSR-4 namespace prefix → folder ("" at the root), longest prefix first
        self.php_roots = sorted(set(php_roots), key=lambda kv: (-len(kv[0]), kv))
        #: Java/Kotlin package name → the files declaring it
        self.jvm_packages = jvm_packages or {}
        #: C# namespace → the files declaring it
        self.cs_namespaces = cs_namespaces or {}
        #: Go module path → the folder of its go.mod ("" at the root), longest first
        self.go_modules = sorted((go_modules or {}).items(), key=lambda kv: (-len(kv[0]), kv[0]))
        self._go_dirs: dict[str, list[str]] | None = None
        self._hcl_dirs: dict[str, list[str]] | None = None
        self._tail_indexes: dict[tuple[str, ...], dict[str, list[str]]] = {}
        self._js_tails: dict[str, list[str]] | None = None
        self.modules: dict[str, list[str]] = {}
        for path in sorted(self.files):
            if not path.endswith((".py", ".pyi")):
                continue
            parts = path.rsplit(".", 1)[0].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            for i in range(len(parts)):
                # a module is importable from a directory on sys.path (the root, ``src/``,
                # a scripts folder): never by a name starting inside a package
                if i and "/".join(parts[:i]) + "/__init__.py" in self.files:
                    continue
                self.modules.setdefault(".".join(parts[i:]), []).append(path)

    def python(self, importer: str, module: str, names: list[str], level: int) -> list[str]:
        """Files an ``import``/``from … import`` statement in ``importer`` refers to."""
        if level:
            base = importer.split("/")[:-1]
            base = base[: len(base) - (level - 1)] if level > 1 else base
            prefix = "/".join(base)
            stem = f"{prefix}/{module.replace('.', '/')}" if module else prefix
            out = []
            for name in names or [""]:
                for candidate in (f"{stem}/{name}.py", f"{stem}/{name}/__init__.py"):
                    if name and candidate in self.files:
                        out.append(candidate)
                        break
                else:
                    for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                        if candidate in self.files:
                            out.append(candidate)
                            break
            return sorted(set(out))
        out = []
        for name in names or [""]:
            full = f"{module}.{name}" if name else module
            hit = self._module(full) if name else None
            out.extend(hit or self._module(module) or [])
        return sorted(set(out))

    def _module(self, dotted: str) -> list[str] | None:
        hits = self.modules.get(dotted)
        if not hits:
            return None
        if len(hits) == 1:
            return hits
        # prefer the shortest path (the package itself over vendored copies)
        best = min(len(h) for h in hits)
        return [h for h in hits if len(h) == best]

    def js(self, importer: str, module: str) -> list[str]:
        """The file a JS/TS import specifier refers to (empty for packages)."""
        if module.startswith("."):
            bases = [posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))]
        elif module.startswith(("@/", "~/")):
            rest = module[2:]
            top = importer.split("/")[0] if "/" in importer else ""
            bases = [rest, f"src/{rest}", f"app/{rest}"]
            if top:
                bases += [f"{top}/{rest}", f"{top}/src/{rest}"]
        else:
            return []
        for base in bases:
            for ext in _JS_EXT:
                if base + ext in self.files:
                    return [base + ext]
            for index in _JS_INDEX:
                if base + index in self.files:
                    return [base + index]
        if module.startswith(("@/", "~/")):  # an alias to a root of the build's own choosing
            return self._js_tail(importer, module[2:])
        return []

    def _tail_index(self, suffixes: tuple[str, ...]) -> dict[str, list[str]]:
        """Every path tail (``b/c.h``, ``c.h`` of ``a/b/c.h``) → the project files with
        one of ``suffixes`` (every file for ``()``) that end with it, in path order; built
        once per kind, on first use: includes, proto imports and shell paths behind an
        unknown prefix name a file by how its path ends."""
        index = self._tail_indexes.get(suffixes)
        if index is None:
            index = {}
            for path in sorted(self.files):
                if suffixes and not path.endswith(suffixes):
                    continue
                parts = path.split("/")
                for i in range(len(parts)):
                    index.setdefault("/".join(parts[i:]), []).append(path)
            self._tail_indexes[suffixes] = index
        return index

    def _js_tail(self, importer: str, rest: str) -> list[str]:
        """The script file whose path ends with ``rest`` (with or without its suffix, or
        as a folder's index), the one nearest the importer when several do: an alias such
        as Vite's ``@`` → ``resources/js`` is configured in code Charter does not run."""
        if self._js_tails is None:
            self._js_tails = {}
            for path in sorted(self.files):
                if not path.endswith(_JS_TAIL_EXT):
                    continue
                stem = path.rsplit(".", 1)[0]
                keys = [path, stem]
                if stem.endswith("/index"):
                    keys.append(stem[: -len("/index")])
                for key in keys:
                    parts = key.split("/")
                    for i in range(len(parts)):
                        self._js_tails.setdefault("/".join(parts[i:]), []).append(path)
        hits = sorted(set(self._js_tails.get(rest.strip("/"), [])))
        return [self._nearest(importer, hits)] if hits else []

    @staticmethod
    def _nearest(importer: str, hits: list[str]) -> str:
        """Of ``hits``, the path sharing the most leading folders with ``importer``
        (the first in path order among equals)."""
        folders = importer.split("/")[:-1]

        def shared(path: str) -> int:
            count = 0
            for mine, theirs in zip(folders, path.split("/")[:-1], strict=False):
                if mine != theirs:
                    break
                count += 1
            return count

        best = max(shared(h) for h in hits)
        return min(h for h in hits if shared(h) == best)

    def go(self, importer: str, module: str) -> list[str]:
        """The non-test ``.go`` files of the package an import path names (empty for the
        standard library and modules outside the project)."""
        if self._go_dirs is None:
            self._go_dirs = {}
            for path in sorted(self.files):
                if path.endswith(".go") and not path.endswith("_test.go"):
                    folder = path.rsplit("/", 1)[0] if "/" in path else ""
                    self._go_dirs.setdefault(folder, []).append(path)
        for mod_path, folder in self.go_modules:
            if module == mod_path or module.startswith(mod_path + "/"):
                rest = module[len(mod_path) :].strip("/")
                target = "/".join(p for p in (folder, rest) if p)
                if target in self._go_dirs:
                    return self._go_dirs[target]
        for _path, folder in self.go_modules:  # vendored third-party packages
            target = "/".join(p for p in (folder, "vendor", module) if p)
            if target in self._go_dirs:
                return self._go_dirs[target]
        return []

    def jvm(self, module: str) -> tuple[list[str], str]:
        """The files a Java/Kotlin import may name and the name they must define ("" when
        the import names a whole package, ``a.b.*``, or one file by its name). The
        longest prefix of the import that is a project package wins, so nested classes
        (``a.b.Outer.Inner``) and static members (``a.b.Util.trim``) land on their file."""
        parts = module.split(".")
        if parts[-1] == "*":
            return list(self.jvm_packages.get(".".join(parts[:-1]), [])), ""
        for k in range(len(parts) - 1, 0, -1):
            files = self.jvm_packages.get(".".join(parts[:k]))
            if not files:
                continue
            name = parts[k]
            named = [f for f in files if f.rsplit("/", 1)[-1].rsplit(".", 1)[0] == name]
            return (named, "") if named else (list(files), name)
        return [], ""

    def php(self, name: str) -> list[str]:
        """The file a PHP class's fully qualified name maps to under composer.json's
        PSR-4 autoload (empty for classes outside the project)."""
        for prefix, folder in self.php_roots:
            if prefix and not name.startswith(f"{prefix}\\"):
                continue
            rest = name[len(prefix) + 1 :] if prefix else name
            path = "/".join(p for p in (folder, rest.replace("\\", "/")) if p) + ".php"
            if path in self.files:
                return [path]
        return []

    def c(self, importer: str, module: str, system: bool) -> list[str]:
        """The project file a C/C++ include names (empty for the system's and a library's
        headers: ``<stdio.h>`` matches no project file)."""
        module = posixpath.normpath(module.replace("\\", "/"))
        if module.startswith("../") or module == "..":
            beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            return [beside] if beside in self.files else []
        if not system:
            beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
            if beside in self.files:
                return [beside]
        hits = self._tail_index(_C_HEADERS).get(module, [])
        if len(hits) <= 1:
            return list(hits)
        return [self._nearest(importer, hits)]

    def csharp(self, module: str) -> tuple[list[str], str]:
        """The files a C# ``using`` may name and the type they must define ("" when it
        names a whole namespace). The longest prefix that is a project namespace wins
        (``using static A.B.Outer.Inner`` lands on the files of ``A.B`` defining
        ``Outer``)."""
        if module in self.cs_namespaces:
            return list(self.cs_namespaces[module]), ""
        parts = module.split(".")
        for k in range(len(parts) - 1, 0, -1):
            files = self.cs_namespaces.get(".".join(parts[:k]))
            if files:
                return list(files), parts[k]
        return [], ""

    def swift(self, module: str) -> list[str]:
        """The files of the Swift module an ``import`` names (empty for the SDK's and
        packages' modules: ``import Foundation`` matches no project folder)."""
        return list(self.swift_modules.get(module, []))

    def elixir(self, module: str) -> list[str]:
        """The files defining the Elixir module an ``alias``/``import``/``use``/``require``
        names (empty for the standard library's and dependencies' modules)."""
        return list(dict.fromkeys(self.elixir_modules.get(module, [])))

    def lua(self, importer: str, module: str) -> list[str]:
        """The project file a Lua ``require`` names (empty for libraries)."""
        stem = module.replace(".", "/").strip("/")
        if not stem or stem.startswith("."):
            return []
        folders = importer.split("/")[:-1]
        roots = ["", "lua", "src", "lib"]
        roots += ["/".join(folders[:i]) for i in range(1, len(folders) + 1)]
        for root in dict.fromkeys(roots):
            base = f"{root}/{stem}" if root else stem
            for candidate in (f"{base}.lua", f"{base}/init.lua"):
                if candidate in self.files:
                    return [candidate]
        return []

    def solidity(self, importer: str, module: str) -> list[str]:
        """The project file a Solidity ``import`` path names (empty for a library's)."""
        module = module.replace("\\", "/")
        if module.startswith(("./", "../")):
            return self.relative(importer, module)
        folders = importer.split("/")[:-1]
        ancestors = ["/".join(folders[:i]) for i in range(len(folders), 0, -1)]
        for root in [*(f for f in ancestors if f in self.sol_projects), ""]:
            remappings, libs = self.sol_projects.get(root, ([], []))
            remapped = _remap(importer, module, remappings)
            if remapped is not None:  # the compiler reads that path, and only that one
                return [remapped] if remapped in self.files else []
            base = f"{root}/" if root else ""
            first, _, rest = module.partition("/")
            candidates = [f"{base}{module}"]
            for lib in libs or [f"{base}lib", f"{base}node_modules"]:
                candidates += [f"{lib}/{module}", f"{lib}/{first}/src/{rest}"]
                candidates.append(f"{lib}/{first}/contracts/{rest}")
            candidates.append(f"{base}src/{module}")
            for candidate in candidates:
                if posixpath.normpath(candidate) in self.files:
                    return [posixpath.normpath(candidate)]
        return []

    def proto(self, importer: str, module: str) -> list[str]:
        """The ``.proto`` file an ``import "a/b.proto"`` names: beside the importer, else
        the project file whose path ends with it (under whatever include root the build
        passes protoc: ``proto/``, ``api/``, ``src/main/proto/``, a repository's own root),
        the one sharing most folders with the importer when several do (a vendored copy
        elsewhere loses); a library's ``google/protobuf/…`` matches nothing here."""
        module = posixpath.normpath(module)
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        if beside in self.files:
            return [beside]
        hits = self._tail_index((".proto",)).get(module, [])
        return [self._nearest(importer, hits)] if hits else []

    def relative(self, importer: str, module: str) -> list[str]:
        """The project file a path written from the importer's folder names (Zig's
        ``@import("page.zig")``)."""
        target = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        return [target] if target in self.files else []

    def hcl(self, importer: str, module: str) -> list[str]:
        """The files of the folder a Terraform module's local ``source`` (or a Terragrunt
        ``config_path``) names from the importer's folder: its ``.tf`` and ``.hcl`` files,
        never its lock file (empty for a folder outside the project)."""
        folder = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        if folder.startswith("../") or folder == "..":
            return []
        if self._hcl_dirs is None:
            self._hcl_dirs = {}
            for path in sorted(self.files):
                name = path.rsplit("/", 1)[-1]
                if path.endswith((".tf", ".hcl")) and name != ".terraform.lock.hcl":
                    parent = path.rsplit("/", 1)[0] if "/" in path else ""
                    self._hcl_dirs.setdefault(parent, []).append(path)
        return list(self._hcl_dirs.get("" if folder == "." else folder, []))

    def shell(self, importer: str, module: str) -> list[str]:
        """The project file a shell script sources or runs (empty when it is outside the
        project or unknown: ``/etc/os-release``, ``$HOME/.profile`` with no such file)."""
        folder = posixpath.dirname(importer)
        tail = ""
        if "<?>" in module:
            tail = module.rsplit("<?>", 1)[1].strip("/")
            candidates = [posixpath.join(folder, tail)]
        elif module.startswith("<here>"):
            candidates = [folder + module.removeprefix("<here>")]
        elif module.startswith("<root>"):
            candidates = [module.removeprefix("<root>")]
        elif module.startswith(("/", "~", "<")):
            return []
        else:
            candidates = [posixpath.join(folder, module), module]
        for candidate in candidates:
            path = posixpath.normpath(candidate.lstrip("/") or ".")
            if not path.startswith("../") and path in self.files:
                return [path]
        if not tail or tail.startswith("../"):
            return []
        hits = self._tail_index(()).get(posixpath.normpath(tail), [])
        return [self._nearest(importer, hits)] if hits else []

    def _cargo_dir(self, path: str) -> str | None:
        """The folder of the Cargo package holding ``path`` ("" at the root)."""
        for folder in self._cargo_dirs:
            if not folder or path.startswith(folder + "/"):
                return folder
        return None

    def _rust_module_file(self, folder: str) -> str | None:
        """The file of the module whose items live in ``folder``."""
        for name in (f"{folder}/mod.rs", f"{folder}.rs", f"{folder}/lib.rs", f"{folder}/main.rs"):
            if name.lstrip("/") in self.files:
                return name.lstrip("/")
        return None

    def rust(self, importer: str, module: str, kind: str) -> list[str]:
        """The file a Rust ``mod name;`` or ``use`` path names (see the module docs)."""
        package = self._cargo_dir(importer)
        src = posixpath.join(package, "src") if package is not None else ""
        folder, name = posixpath.split(importer)
        stem = name[: -len(".rs")] if name.endswith(".rs") else name
        # a crate root (``src/lib.rs``, a test, bench or example file, ``src/bin/x.rs``)
        # and a ``mod.rs`` keep their submodules beside them; ``a.rs`` keeps them in ``a/``
        top = folder == src or (package is not None and posixpath.dirname(folder) == package)
        root = stem in ("mod", "lib", "main") or top or "/bin" in f"/{folder}"
        own = folder if root else posixpath.join(folder, stem)
        if kind == "mod":
            for candidate in (f"{own}/{module}.rs", f"{own}/{module}/mod.rs"):
                if candidate.lstrip("/") in self.files:
                    return [candidate.lstrip("/")]
            return []
        segments = [s for s in module.split("::") if s]
        if not segments:
            return []
        head, rest = segments[0], segments[1:]
        if head == "crate":
            base = src if importer.startswith(src + "/") or not src else folder
        elif head == "self":
            base = own
        elif head == "super":
            base = posixpath.dirname(own)
            while rest and rest[0] == "super":
                base, rest = posixpath.dirname(base), rest[1:]
        elif head in self.rust_crates:
            base = posixpath.join(self.rust_crates[head], "src")
        elif f"{own}/{head}.rs".lstrip("/") in self.files or (
            f"{own}/{head}/mod.rs".lstrip("/") in self.files
        ):
            base, rest = own, segments  # a child module, named without ``self::``
        else:
            return []  # a crate outside the repository (``std``, a dependency)
        target = self._rust_module_file(base)
        for segment in rest:
            step = posixpath.join(base, segment)
            found = self._rust_module_file(step)
            if found is None or found.endswith(("/lib.rs", "/main.rs")):
                break
            base, target = step, found
        return [target] if target and target != importer else []

    def dart(self, importer: str, module: str) -> list[str]:
        """The project file a Dart ``import``/``export``/``part`` URI names: a path from
        the importer, or ``package:name/x.dart`` → ``lib/x.dart`` of package ``name``
        (empty for ``dart:`` libraries and packages outside the project)."""
        if module.startswith("package:"):
            name, _, rest = module[len("package:") :].partition("/")
            folder = self.dart_packages.get(name)
            if folder is None:
                return []
            target = "/".join(p for p in (folder, "lib", rest) if p)
            return [target] if target in self.files else []
        return self.relative(importer, module) if ":" not in module else []


def _remap(importer: str, module: str, remappings: list[list[str]]) -> str | None:
    """The path a Solidity import is remapped to, or None when no remapping applies: of
    those whose context holds the importer and whose prefix starts the path, the longest
    context wins, then the longest prefix."""
    best: tuple[int, int, str] | None = None
    for context, prefix, target in remappings:
        if context and not importer.startswith(context):
            continue
        if module.startswith(prefix) and (best is None or (len(context), len(prefix)) > best[:2]):
            rest = module[len(prefix) :]
            joined = f"{target.rstrip('/')}/{rest}" if prefix.endswith("/") else target + rest
            best = (len(context), len(prefix), posixpath.normpath(joined))
    return best[2] if best is not None else None
