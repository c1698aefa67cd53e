"""Terraform (and other HCL) blocks, module sources and references from tree-sitter.

Every ``.tf`` file of a folder belongs to one Terraform module: its files use each
other's names without importing them. A top-level block is a symbol named by the
address Terraform gives it: ``resource "aws_s3_bucket" "logs"`` is
``aws_s3_bucket.logs`` (under an ``aws_s3_bucket`` symbol for the resource type, the
name a task writes), ``data "aws_iam_policy_document" "x"`` is
``data.aws_iam_policy_document.x``, ``module "vpc"`` is ``module.vpc``, ``variable
"region"`` is ``var.region``, ``output "arn"`` is ``output.arn``, each attribute of a
``locals`` block is ``local.NAME`` and ``provider "aws"`` is ``provider.aws``. Other
labelled blocks (Terragrunt's ``dependency "vpc"``, Packer's ``source "a" "b"``) are
their type and labels joined with dots. Variables and outputs are a module's interface
(exported); the rest are its own.

A ``module`` block's local ``source`` (``./modules/vpc``, ``../x``) imports that folder's
files, with the arguments it passes as the names it uses there (``var.NAME``); so do a
Terragrunt ``terraform { source = … }`` and a ``dependency``'s ``config_path``. Registry
and git sources are not files. References in expressions (``aws_s3_bucket.logs.arn``,
``var.region``, ``local.tags``, ``module.vpc.id``, ``data.aws_iam_policy_document.x.json``)
are the addresses they start with: the linker finds them in the folder's files.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node as TsNode

from charter.graph.parsers import node_text as _text
from charter.graph.parsers import parser, symbol_entry, unique_symbols

#: block type → the prefix of its address (a resource's address is its type and name)
_PREFIX = {"variable": "var", "data": "data", "module": "module", "output": "output"}
#: expression roots that are not addresses of blocks
_NOT_BLOCKS = frozenset(["each", "count", "self", "path", "terraform"])
#: attributes of a module block that are Terraform's, not the module's input variables
_META_ARGUMENTS = frozenset(
    ["source", "version", "count", "for_each", "providers", "depends_on", "lifecycle"]
)


def _label(node: TsNode) -> str:
    """A block label's text: a quoted string's content or a bare identifier."""
    if node.type == "identifier":
        return _text(node)
    if node.type == "string_lit":
        return "".join(_text(c) for c in node.named_children if c.type == "template_literal")
    return ""


def _parts(block: TsNode) -> tuple[str, list[str], TsNode | None]:
    """A block's type, labels and body."""
    kind = ""
    labels: list[str] = []
    body = None
    for child in block.named_children:
        if child.type == "identifier" and not kind:
            kind = _text(child)
        elif child.type in ("string_lit", "identifier"):
            labels.append(_label(child))
        elif child.type == "body":
            body = child
    return kind, labels, body


def _attributes(body: TsNode | None) -> list[tuple[str, TsNode]]:
    """The (name, attribute node) pairs directly in a block's body."""
    out: list[tuple[str, TsNode]] = []
    for child in body.named_children if body is not None else []:
        if child.type == "attribute":
            name = next((c for c in child.named_children if c.type == "identifier"), None)
            if name is not None:
                out.append((_text(name), child))
    return out


def _string_value(attribute: TsNode) -> str:
    """An attribute's value when it is a plain string literal ("" otherwise)."""
    expression = next((c for c in attribute.named_children if c.type == "expression"), None)
    literal = expression.named_children[0] if expression and expression.named_children else None
    if literal is not None and literal.type == "literal_value" and literal.named_children:
        literal = literal.named_children[0]
    if literal is None or literal.type != "string_lit":
        return ""
    return _label(literal)


def _local_path(source: str) -> str:
    """A module source that is a path in this repository (``./x``, ``../x``), else ""."""
    if source.startswith(("./", "../")) or source in (".", ".."):
        return source.split("?", 1)[0]
    return ""


def _references(root: TsNode) -> set[str]:
    """The block addresses expressions start with: ``a.b`` and ``a.b.c`` of each
    ``a.b.c…`` (a data source's address has three parts, the others two)."""
    out: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "variable_expr":
            head = _text(node.named_children[0]) if node.named_children else ""
            names = [head]
            sibling = node.next_named_sibling
            while sibling is not None and sibling.type == "get_attr" and len(names) < 3:
                attr = next((c for c in sibling.named_children if c.type == "identifier"), None)
                names.append(_text(attr))
                sibling = sibling.next_named_sibling
            if head and head not in _NOT_BLOCKS:
                if len(names) >= 2:
                    out.add(".".join(names[:2]))
                if len(names) >= 3:
                    out.add(".".join(names[:3]))
        stack.extend(node.named_children)
    return out


def extract(source: bytes, path: str = "") -> dict[str, Any]:
    """Symbols, local module sources and block references of one HCL file."""
    root = parser("hcl").parse(source).root_node
    symbols: list[dict[str, Any]] = []
    imports: list[dict[str, Any]] = []
    lock_file = path.rsplit("/", 1)[-1] == ".terraform.lock.hcl"
    body = next((c for c in root.named_children if c.type == "body"), None)
    for block in body.named_children if body is not None and not lock_file else []:
        if block.type != "block":
            continue
        kind, labels, inner = _parts(block)
        if kind == "locals":
            for name, attribute in _attributes(inner):
                address = f"local.{name}"
                symbols.append(symbol_entry(attribute, address, address, "variable", False))
        elif kind == "resource" and len(labels) >= 2:
            symbols.append(symbol_entry(block, labels[0], labels[0], "class", False))
            address = f"{labels[0]}.{labels[1]}"
            symbols.append(symbol_entry(block, address, address, "resource", False))
        elif kind == "data" and len(labels) >= 2:
            data_type = f"data.{labels[0]}"
            symbols.append(symbol_entry(block, data_type, data_type, "class", False))
            address = f"{data_type}.{labels[1]}"
            symbols.append(symbol_entry(block, address, address, "resource", False))
        elif labels and all(labels):
            address = ".".join([_PREFIX.get(kind, kind), *labels])
            exported = kind in ("variable", "output")
            symbol_kind = {"variable": "variable", "output": "variable"}.get(kind, "module")
            symbols.append(symbol_entry(block, address, address, symbol_kind, exported))
        attributes = dict(_attributes(inner))
        target = ""
        if kind in ("module", "terraform") and "source" in attributes:
            target = _local_path(_string_value(attributes["source"]))
        elif kind == "dependency" and "config_path" in attributes:
            target = _local_path(_string_value(attributes["config_path"]))
        if target:
            # a module block's arguments set the called module's input variables
            names = sorted(
                f"var.{name}"
                for name in (attributes if kind == "module" else ())
                if name not in _META_ARGUMENTS
            )
            imports.append({"module": target, "names": names, "level": 0})
    return {
        "language": "hcl",
        "symbols": unique_symbols(symbols),
        "imports": imports,
        "calls": [],
        "refs": sorted(_references(root)) if not lock_file else [],
        "parse_errors": bool(root.has_error),
    }
