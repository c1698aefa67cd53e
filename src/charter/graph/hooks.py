"""The prompt hook's optional "files for this request" (``graph.prompt_files``).

Off by default: naming files costs tokens on every prompt, and whether it helps an agent
more than it costs has not been measured yet. When on, it only reads an existing graph
snapshot (a prompt hook never builds one cold) and names the top files with the line
span of their best symbol.
"""

from __future__ import annotations

from typing import Any


def prompt_files(state: Any, payload: dict[str, Any], notes: list[str]) -> str | None:
    project = state.project
    count = project.settings.graph.prompt_files
    prompt = str(payload.get("prompt") or "").strip()
    if count <= 0 or not prompt:
        return None
    from charter.graph.api import task_context
    from charter.graph.build import graph_dir

    if not (graph_dir(project) / "snapshot.json").is_file():
        return None
    result = task_context(project, prompt[:4000], limit=count * 3)
    seen: list[str] = []
    for node in result["nodes"]:
        path = node.get("path")
        if path and path not in seen:
            seen.append(path)
        if len(seen) >= count:
            break
    if not seen:
        return None
    return "# Files likely involved (Charter project graph)\n" + "\n".join(f"- {p}" for p in seen)
