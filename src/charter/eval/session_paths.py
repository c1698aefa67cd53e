"""Moving a recorded session from its original project directory to a temp stand-in.

A replayed session must look to Charter as if it ran in the temp project: every mention
of the original project path (in hook payloads and in the transcript copy) becomes the
temp path. Recorded sessions come from Windows too (``c:\\code\\app``, ``C:/code/app``,
case-insensitive), so the original is matched with either separator, and the rest of a
path under it gets forward slashes, so the temp paths are real POSIX paths.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any

_WIN_ABS = re.compile(r"^[A-Za-z]:[\\/]")
#: Characters that end a path segment in free text (and in JSON, the quote and escapes).
_SEG = r"[^\\/\s\"'<>|*?:`,;()\[\]{}]"


def is_windows_path(path: str) -> bool:
    return bool(_WIN_ABS.match(path)) or path.startswith("\\\\")


class PathMap:
    """Maps the original project path (the session's first ``cwd``) to the temp project."""

    def __init__(self, original: str, temp: Path) -> None:
        self.windows = is_windows_path(original)
        self.original = original.rstrip("\\/") or original
        self.temp = str(temp)
        parts = [p for p in re.split(r"[\\/]" if self.windows else "/", self.original)]
        flags = re.IGNORECASE if self.windows else 0
        head = r"(?<![\w.\\/-])"
        # in raw JSON a path may follow an escape such as \n (a backslash and a letter)
        head_json = r"(?:(?<![\w.\\/-])|(?<=\\[nrtbf]))"
        tail = r"(?![\w.-])"
        if self.windows:
            sep_text, sep_json = r"[\\/]", r"(?:\\\\|/)"
            prefix_text = sep_text.join(re.escape(p) for p in parts)
            json_parts = [re.escape(json.dumps(p, ensure_ascii=False)[1:-1]) for p in parts]
            prefix_json = sep_json.join(json_parts)
            self._text = re.compile(f"{head}{prefix_text}{tail}((?:{sep_text}{_SEG}*)*)", flags)
            self._json = re.compile(
                f"{head_json}{prefix_json}{tail}((?:{sep_json}{_SEG}*)*)", flags
            )
        else:
            escaped = re.escape(self.original)
            self._text = re.compile(f"{head}{escaped}{tail}")
            json_escaped = re.escape(json.dumps(self.original, ensure_ascii=False)[1:-1])
            self._json = re.compile(f"{head_json}{json_escaped}{tail}")
        self._temp_json = json.dumps(self.temp, ensure_ascii=False)[1:-1]

    # -- masking -------------------------------------------------------------------------

    def mask_text(self, text: str) -> str:
        """``text`` with the original project path replaced by the temp one."""
        if self.windows:
            return self._text.sub(lambda m: self.temp + m.group(1).replace("\\", "/"), text)
        return self._text.sub(lambda m: self.temp, text)

    def mask_json_line(self, raw: str) -> str:
        """The same replacement on a raw JSON line, where backslashes are escaped."""
        if self.windows:
            return self._json.sub(lambda m: self._temp_json + m.group(1).replace("\\\\", "/"), raw)
        return self._json.sub(lambda m: self._temp_json, raw)

    def mask_value(self, value: Any) -> Any:
        """A JSON value with every string masked (keys are left alone)."""
        if isinstance(value, str):
            return self.mask_text(value)
        if isinstance(value, list):
            return [self.mask_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.mask_value(v) for k, v in value.items()}
        return value

    # -- locating files ------------------------------------------------------------------

    def relative(self, path: str, cwd: str | None = None) -> str | None:
        """``path`` relative to the original project, or None when it lies outside it.

        A relative ``path`` is taken relative to ``cwd`` (the session's cwd at that time).
        """
        if not path:
            return None
        if self.windows:
            norm = path.replace("\\", "/")
            absolute = bool(_WIN_ABS.match(path))
            root = self.original.replace("\\", "/")
            if not absolute:
                base = (cwd or self.original).replace("\\", "/")
                norm = f"{base}/{norm}"
            norm = posixpath.normpath(norm)
            if norm.lower() == root.lower():
                return ""
            if norm.lower().startswith(root.lower() + "/"):
                return norm[len(root) + 1 :]
            return None
        norm = path if path.startswith("/") else f"{cwd or self.original}/{path}"
        norm = posixpath.normpath(norm)
        if norm == self.original:
            return ""
        if norm.startswith(self.original.rstrip("/") + "/"):
            rel = norm[len(self.original.rstrip("/")) + 1 :]
            return rel
        return None

    def temp_path(self, rel: str) -> Path:
        return Path(self.temp, *[p for p in rel.split("/") if p not in ("", ".")])

    def temp_cwd(self, cwd: str | None) -> str:
        """The temp counterpart of a recorded cwd (outside the project: the project)."""
        rel = self.relative(cwd or "", None) if cwd else ""
        if rel is None or ".." in rel.split("/"):
            return self.temp
        return str(self.temp_path(rel))


def safe_rel(rel: str) -> bool:
    """A relative path that stays inside its root (no ``..``, not absolute, not empty)."""
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and ".." not in parts and "" not in parts


def project_name(original: str) -> str:
    """A directory name for the temp project, like the original's last component."""
    name = re.split(r"[\\/]", original.rstrip("\\/"))[-1] if original else ""
    name = re.sub(r"[\x00-\x1f:]", "_", name).strip()
    return name if name.strip(".") else "project"
