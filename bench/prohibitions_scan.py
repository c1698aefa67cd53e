"""What the guardrails would hold for each rule file: the commands and edits its rules
forbid, with the decision (deny, or ask for what waits for the user's consent).

Used to check a change to how prohibitions are read against many real rule files at
once: run it before and after, and read every line that appears or goes (a rule file is
compiled as ``charter compile`` compiles it, with the hash embedder, since no vector is
needed).

    python bench/prohibitions_scan.py FILE... [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from charter.config import Project, Settings
from charter.embed.hashing import HashEmbedder
from charter.errors import CharterError
from charter.rules.commands import forbidden_commands
from charter.rules.compiler import compile_rules
from charter.rules.edits import forbidden_edits


def scan(path: Path) -> list[dict[str, str]]:
    """One row per command or edit the rules of ``path`` forbid."""
    with tempfile.TemporaryDirectory() as tmp:
        project = Project(root=path.parent, settings=Settings(), state_override=Path(tmp))
        rules = compile_rules(project, [path], embedder=HashEmbedder(), write=False).rules
    commands = forbidden_commands(rules)
    held = [("command", c.command, c.consent, c.cite, c.rule_text) for c in commands]
    held += [("edit", e.path, e.consent, e.cite, e.rule_text) for e in forbidden_edits(rules)]
    keys = ("kind", "what", "decision", "rule", "text")
    rows = [
        dict(zip(keys, (kind, what, "ask" if consent else "deny", cite, text[:200]), strict=True))
        for kind, what, consent, cite, text in held
    ]
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out: dict[str, list[dict[str, str]]] = {}
    for path in args.files:
        try:
            out[str(path)] = scan(path)
        except (CharterError, OSError) as exc:
            print(f"prohibitions_scan: {path}: {exc}", file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
        return 0
    for name, rows in out.items():
        for row in rows:
            print(f"{row['decision']:4} {row['kind']:7} {row['what']!r:40} {name}:{row['rule']}")
    held = sum(len(rows) for rows in out.values())
    print(f"{len(out)} files, {held} commands and edits held")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
