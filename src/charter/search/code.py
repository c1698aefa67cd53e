"""Code files as symbol-sized chunks (Python via ``ast``) or line windows (other languages).

A Python file becomes its module header plus one chunk per top-level function or class
(decorators included); a class larger than the chunk budget is split into its methods.
Other languages are kept whole when small, else cut into windows at blank lines.
"""

from __future__ import annotations

import ast

from charter.search.chunks import Chunk, ParsedDoc, approx_tokens, chunk_plain, find_refs


def _node_span(node: ast.stmt) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return start, node.end_lineno or node.lineno


def chunk_python(text: str, max_tokens: int = 400) -> ParsedDoc:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return chunk_code(text, max_tokens)
    lines = text.split("\n")
    chunks: list[Chunk] = []

    def add(start: int, end: int, section: str, parent: int | None) -> int:
        body = "\n".join(lines[start - 1 : end])
        chunks.append(Chunk("code", start, end, section, section, body, len(chunks), parent=parent))
        return chunks[-1].ordinal

    symbols = [
        n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    header_end = (_node_span(symbols[0])[0] - 1) if symbols else len(lines)
    while header_end > 0 and not lines[header_end - 1].strip():
        header_end -= 1
    if header_end >= 1:
        add(1, header_end, "module", None)
    for node in symbols:
        start, end = _node_span(node)
        span_text = "\n".join(lines[start - 1 : end])
        if isinstance(node, ast.ClassDef) and approx_tokens(span_text) > max_tokens:
            methods = [
                n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
            head_end = (_node_span(methods[0])[0] - 1) if methods else end
            parent = add(start, head_end, f"class {node.name}", None)
            for method in methods:
                m_start, m_end = _node_span(method)
                add(m_start, m_end, f"class {node.name} > def {method.name}", parent)
        else:
            keyword = "class" if isinstance(node, ast.ClassDef) else "def"
            add(start, end, f"{keyword} {node.name}", None)
    return ParsedDoc(chunks=chunks, refs=find_refs(text))


def chunk_code(text: str, max_tokens: int = 400) -> ParsedDoc:
    """Any other source file: whole if it fits, else windows split at blank lines."""
    parsed = chunk_plain(text, max_tokens, kind="code")
    return parsed
