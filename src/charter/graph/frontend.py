"""Front-end facts: routes (Next.js app and pages routers, React Router), design tokens.

Routes come from file paths (``app/**/page.tsx`` → ``/…``, route groups ``(x)`` dropped;
``pages/**`` minus ``_app``/``_document``/``api``) and from React Router ``<Route
path=…>`` elements or ``{ path: … }`` route objects. Tokens are CSS custom properties
(``--brand: #…``) and Tailwind ``theme`` keys; ``var(--x)`` uses feed the style bridge.
"""

from __future__ import annotations

import re
from typing import Any

_PAGE_EXT = (".tsx", ".jsx", ".ts", ".js", ".mdx")
_CSS_VAR_DEF = re.compile(r"(?<![\w-])(--[A-Za-z0-9_-]+)\s*:\s*([^;}{]+)")
_CSS_VAR_USE = re.compile(r"var\(\s*(--[A-Za-z0-9_-]+)")
_ROUTE_JSX = re.compile(r"<Route\b[^>]*?\bpath\s*=\s*[{]?\s*[\"'`]([^\"'`]+)[\"'`]")
_ROUTE_OBJ = re.compile(
    r"\{\s*path\s*:\s*[\"'`]([^\"'`]+)[\"'`]\s*,\s*(?:element|component|Component|lazy)\b"
)
_TW_SECTION = re.compile(
    r"\b(colors|spacing|fontFamily|fontSize|borderRadius|boxShadow|screens)\s*:\s*\{"
)
_TW_KEY = re.compile(r"^\s*[\"']?([A-Za-z0-9_-]+)[\"']?\s*:", re.MULTILINE)


def _app_route(parts: list[str]) -> str:
    kept = [
        p for p in parts if not (p.startswith("(") and p.endswith(")")) and not p.startswith("@")
    ]
    return "/" + "/".join(kept)


def file_route(path: str) -> tuple[str, str] | None:
    """(route, router) for a Next.js page file, else None."""
    parts = path.split("/")
    name = parts[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or f".{ext}" not in _PAGE_EXT:
        return None
    if "app" in parts[:-1] and stem == "page":
        i = len(parts) - 1 - parts[::-1].index("app")
        return _app_route(parts[i + 1 : -1]), "next-app"
    if "pages" in parts[:-1]:
        i = len(parts) - 1 - parts[::-1].index("pages")
        rest = [*parts[i + 1 : -1], stem]
        if rest[0] == "api" or stem.startswith("_"):
            return None
        if rest[-1] == "index":
            rest = rest[:-1]
        return "/" + "/".join(rest), "next-pages"
    return None


def code_routes(text: str) -> list[tuple[str, int]]:
    """React Router paths declared in a source file, with their line numbers."""
    found: list[tuple[str, int]] = []
    for pattern in (_ROUTE_JSX, _ROUTE_OBJ):
        for match in pattern.finditer(text):
            found.append((match.group(1), text.count("\n", 0, match.start()) + 1))
    return sorted(set(found))


def css_tokens(text: str) -> list[tuple[str, str, int]]:
    """(name, value, line) of each CSS custom property defined in a stylesheet."""
    out = []
    for match in _CSS_VAR_DEF.finditer(text):
        out.append(
            (match.group(1), match.group(2).strip()[:80], text.count("\n", 0, match.start()) + 1)
        )
    return out


def css_uses(text: str) -> list[str]:
    return sorted(set(_CSS_VAR_USE.findall(text)))


def tailwind_tokens(text: str) -> list[tuple[str, str, int]]:
    """``theme`` keys of a Tailwind config: (group.key, "", line), one level deep."""
    out: list[tuple[str, str, int]] = []
    for section in _TW_SECTION.finditer(text):
        depth, i = 1, section.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        body = text[section.end() : i - 1]
        flat = re.sub(r"\{[^{}]*\}", "{}", body)
        base = section.end()
        for key in _TW_KEY.finditer(flat):
            line = text.count("\n", 0, base + min(key.start(), len(body))) + 1
            out.append((f"{section.group(1)}.{key.group(1)}", "", line))
    return out


def frontend_facts(path: str, text: str, language: str | None) -> dict[str, Any]:
    """Everything front-end a single file declares (empty dict when nothing)."""
    facts: dict[str, Any] = {}
    route = file_route(path)
    if route:
        facts["file_route"] = list(route)
    lower = path.lower()
    if language is not None:
        routes = code_routes(text)
        if routes:
            facts["routes"] = [list(r) for r in routes]
    if lower.endswith((".css", ".scss", ".sass", ".less")) or language is not None:
        uses = css_uses(text)
        if uses:
            facts["token_uses"] = uses
    if lower.endswith((".css", ".scss", ".sass", ".less")):
        tokens = css_tokens(text)
        if tokens:
            facts["tokens"] = [list(t) for t in tokens]
    name = lower.rsplit("/", 1)[-1]
    if name.startswith("tailwind.config."):
        tokens = tailwind_tokens(text)
        if tokens:
            facts["tokens"] = [list(t) for t in tokens]
    return facts
