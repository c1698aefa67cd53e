"""Shell scripts (sh, bash, zsh): functions, sourced files, scripts run and calls.

A shell script has no module system: it ``source``s (or ``.``s) other files by a path
computed at run time, and runs other scripts as commands. That path is read the way the
shell would build it, without running anything: literal words and strings, the script's
own location (``"$(dirname "$0")"``, ``"${BASH_SOURCE%/*}"``, ``$(cd "$(dirname
"${BASH_SOURCE[0]}")" && pwd)``, zsh's ``${0:A:h}``), the repository root
(``$(git rev-parse --show-toplevel)``) and the variables the file assigned from those
(``SCRIPT_DIR=…; ROOT="$SCRIPT_DIR/.."``). What cannot be known statically (``$HOME``, a
variable another file sets, a command's output) becomes an unknown prefix, and the rest
of the path is matched by its tail by the resolver. A path is a string with three
markers: ``<here>`` (the script's folder), ``<root>`` (the project root) and ``<?>`` (an
unknown prefix); a literal relative path is left as written (relative to the script's
folder or, as scripts are mostly run from the root, to the root).

Functions (``f() {…}``, ``function f {…}``) are symbols, exported unless their name
starts with ``_`` (the shell's convention for a private helper); so are UPPER_CASE
variables assigned at the top level (a script's configuration: ``GO_VERSION=1.22``),
exported when ``export``ed. A command whose name is a plain word is a call of that name
(the linker finds it in the files sourced, or defined once); one whose name is a path
(``./hack/build.sh``, ``"$DIR/y.sh"``), or a path run by a shell (``bash hack/x.sh``),
is a script run: an import of kind ``run``, which links files but brings in no names.
"""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import node_text as _text
from charter.graph.parsers import parser, symbol_entry, unique_symbols

HERE = "<here>"
ROOT = "<root>"
UNKNOWN = "<?>"
#: The script's own path: ``$0``, ``${BASH_SOURCE[0]}`` (its folder is ``HERE``).
_SELF = "<self>"

#: Commands that read and run a file in the current shell.
_SOURCE = frozenset(["source", "."])
#: Shells that run a script file given as their first operand.
_SHELLS = frozenset(["bash", "sh", "zsh", "dash", "ksh", "ash"])
#: Commands that run the command after them (their options and assignments skipped).
_WRAPPERS = frozenset(["exec", "command", "builtin", "sudo", "time", "nohup", "env", "nice"])
#: A configuration variable by the shell's convention: upper case, digits, underscores.
_CONFIG_NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")
#: A name a function may have and a call may use (``nvm_ls``, ``fn-deploy``, ``a::b``).
_CALL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_:.-]*")
_ESCAPE = re.compile(r"\\(.)")


def _dirname(value: str) -> str:
    """``dirname`` of a path built from markers: the script's folder for the script,
    the folder above for a marker alone."""
    if value == _SELF:
        return HERE
    value = value.rstrip("/") or "/"
    if value in (HERE, ROOT) or value.endswith("/.."):
        return f"{value}/.."
    if value == UNKNOWN or value.endswith(f"{UNKNOWN}"):
        return UNKNOWN
    return value.rsplit("/", 1)[0] if "/" in value else "."


class _Reader:
    """Walks one script in document order, keeping the paths variables hold so far."""

    def __init__(self) -> None:
        self.env: dict[str, str] = {}
        self.symbols: list[dict[str, Any]] = []
        self.imports: dict[tuple[str, str], None] = {}
        self.calls: dict[str, None] = {}
        self.refs: dict[str, None] = {}

    # -- values -------------------------------------------------------------------
    def value(self, node: TsNode | None) -> str:
        """The path a word, string, expansion or substitution statically builds."""
        if node is None:
            return UNKNOWN
        kind = node.type
        if kind in ("word", "number"):  # quote removal: ``\\.`` is the ``.`` command
            return _ESCAPE.sub(r"\1", _text(node).lstrip())
        if kind == "raw_string":
            return _text(node)[1:-1]
        if kind in ("string", "concatenation"):
            parts = [self.value(c) for c in node.named_children]
            return "".join(parts) if kind == "concatenation" or parts else ""
        if kind == "string_content":
            return _text(node)
        if kind in ("simple_expansion", "expansion"):
            return self._expansion(node)
        if kind == "command_substitution":
            return self._substitution(node)
        return UNKNOWN

    def _expansion(self, node: TsNode) -> str:
        name_node = next(
            (
                c
                for c in node.named_children
                if c.type in ("variable_name", "special_variable_name")
            ),
            None,
        )
        if name_node is None:  # ``${BASH_SOURCE[0]}``: the name inside a subscript
            sub = next((c for c in node.named_children if c.type == "subscript"), None)
            name_node = sub.named_children[0] if sub is not None and sub.named_children else None
        name = _text(name_node)
        text = _text(node)
        if name in ("0", "BASH_SOURCE"):
            if "%/*" in text or ":h" in text:  # ``${0%/*}``, zsh's ``${0:A:h}``
                return HERE
            return _SELF if text in ("$0", "${0}", "$BASH_SOURCE") or "[0]" in text else UNKNOWN
        if name in self.env:
            return self.env[name]
        # ``${ROOT:-default}``: the default, when the variable is not known here
        operators = [c for c in node.children if not c.is_named]
        if any(_text(op) in (":-", "-", ":=", "=") for op in operators):
            default = node.named_children[-1] if len(node.named_children) > 1 else None
            if default is not None and default is not name_node:
                return self.value(default)
        return UNKNOWN

    def _substitution(self, node: TsNode) -> str:
        """``$(dirname X)``, ``$(cd X && pwd)``, ``$(realpath X)``, ``$(git rev-parse
        --show-toplevel)``; any other command's output is unknown."""
        commands = _commands_in(node)
        if not commands:
            return UNKNOWN
        first, last = commands[0], commands[-1]
        name, args = _name(first), _arguments(first)
        if len(commands) == 1:
            if name == "dirname" and args:
                return _dirname(self.value(args[-1]))
            if name in ("realpath", "readlink") and args:
                return self.value(args[-1])
            if name == "git" and "--show-toplevel" in {_text(a) for a in args}:
                return ROOT
            return UNKNOWN
        if name == "cd" and _name(last) == "pwd" and args:
            target = self.value(args[-1])
            return target if target.startswith((HERE, ROOT, UNKNOWN)) else UNKNOWN
        return UNKNOWN

    # -- the walk -----------------------------------------------------------------
    def walk(self, root: TsNode) -> None:
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            kind = node.type
            if kind == "function_definition":
                self._function(node)
            elif kind == "variable_assignment":
                self._assignment(node, depth == 1 or _top_declaration(node, depth))
            elif kind == "command":
                self._command(node)
            elif kind in ("simple_expansion", "expansion"):
                name = next((c for c in node.named_children if c.type == "variable_name"), None)
                if name is not None and _CONFIG_NAME.fullmatch(_text(name)):
                    self.refs[_text(name)] = None
            stack.extend((c, depth + 1) for c in reversed(node.named_children))

    def _function(self, node: TsNode) -> None:
        name = _text(node.child_by_field_name("name"))
        if _CALL_NAME.fullmatch(name):
            exported = not name.startswith("_")
            self.symbols.append(symbol_entry(node, name, name, "function", exported))

    def _assignment(self, node: TsNode, top: bool) -> None:
        name = _text(node.child_by_field_name("name"))
        value = node.child_by_field_name("value")
        self.env[name] = self.value(value) if value is not None else ""
        if top and _CONFIG_NAME.fullmatch(name):
            parent = node.parent
            exported = (
                parent is not None
                and parent.type == "declaration_command"
                and any(_text(c) == "export" for c in parent.children if not c.is_named)
            )
            self.symbols.append(symbol_entry(node, name, name, "variable", exported))

    def _command(self, node: TsNode) -> None:
        head = node.child_by_field_name("name")
        words = [head.named_children[0] if head is not None and head.named_children else head]
        # tree-sitter-bash reads a line starting with an escaped word (nvm's ``\\. x.sh``)
        # as more arguments of the line above: a word starting a line starts a command
        start = 0
        for i, word in enumerate(_arguments(node), 1):
            words.append(word)
            if word.type == "word" and _text(word).startswith("\n"):
                self._simple(words[start:i])
                start = i
        self._simple(words[start:])

    def _simple(self, words: list[TsNode | None]) -> None:
        """One simple command: a call, a sourced file or a script run."""
        while words:
            name = self.value(words.pop(0))
            if name in _WRAPPERS:  # ``exec ./x.sh``, ``env A=1 bash y.sh``: the command after
                while words and (_text(words[0]).startswith("-") or "=" in _text(words[0])):
                    words.pop(0)
                continue
            if name in _SOURCE or name in _SHELLS:
                # ``bash -c '…'`` runs a string, ``bash -x x.sh`` the file x.sh
                flags = {_text(w) for w in words if _text(w).startswith("-")}
                operands = [w for w in words if not _text(w).startswith("-")]
                if operands and "-c" not in flags:
                    self._import(self.value(operands[0]), "source" if name in _SOURCE else "run")
            elif "/" in name:
                self._import(name, "run")
            elif _CALL_NAME.fullmatch(name):
                self.calls[name] = None
            return

    def _import(self, path: str, kind: str) -> None:
        if path.startswith(_SELF) or not path or path == UNKNOWN:
            return
        if path.endswith("/") or "*" in path or "?" in path.replace(UNKNOWN, ""):
            return  # a folder or a glob: not one file
        if UNKNOWN in path and not path.rsplit(UNKNOWN, 1)[1].strip("/"):
            return
        self.imports[(path, kind)] = None


def _top_declaration(node: TsNode, depth: int) -> bool:
    """An assignment inside a top-level ``export``/``readonly``/``declare``."""
    return depth == 2 and node.parent is not None and node.parent.type == "declaration_command"


def _name(command: TsNode) -> str:
    name = command.child_by_field_name("name")
    return _text(name).strip("\"'") if name is not None else ""


def _arguments(command: TsNode) -> list[TsNode]:
    return list(command.children_by_field_name("argument"))


def _commands_in(node: TsNode) -> list[TsNode]:
    """The simple commands of a substitution in order (through lists and pipelines)."""
    out: list[TsNode] = []
    stack = list(reversed(node.named_children))
    while stack:
        child = stack.pop()
        if child.type == "command":
            out.append(child)
        elif child.type in ("list", "pipeline", "redirected_statement"):
            stack.extend(reversed(child.named_children))
    return out


def extract(source: bytes) -> dict[str, Any]:
    """Symbols, sourced and run scripts, calls and configuration references of one
    shell script. Scripts that run fine often trip the grammar (zsh's own syntax, some
    heredocs and ``case`` patterns), so, as for C's macros, a parse error is no note."""
    root = parser("shell").parse(source).root_node
    reader = _Reader()
    reader.walk(root)
    return {
        "language": "shell",
        "symbols": unique_symbols(reader.symbols),
        "imports": [
            {"module": path, "kind": kind, "names": [], "level": 0} for path, kind in reader.imports
        ],
        "calls": sorted(reader.calls),
        "refs": sorted(reader.refs),
    }
