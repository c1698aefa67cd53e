"""False positives and cost of the secret scan on real text that holds no secrets.

Scans every line of the given corpora (default: this repository's docs and source, the
demo project, the shared rules benchmark files and the SciFact abstracts when present)
with the default detectors and, separately, with the high-entropy plugins on, and prints
how many lines each flags, and the pre-filter's pass rate and the scan's time.

    .venv/bin/python bench/secrets_fp.py [PATH ...]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from charter.secretscan.apply import text_kind
from charter.secretscan.scanner import Scanner, could_hold_secret
from charter.secretscan.settings import SecretsSettings

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent.parent / "shared" if (REPO.parent.parent / "shared").is_dir() else None
SUFFIXES = {".md": "markdown", ".mdc": "markdown", ".txt": "text", ".py": "python"}
SUFFIXES |= {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".csv": "csv", ".toml": "code"}


def corpora(args: list[str]) -> dict[str, list[tuple[str, str, str]]]:
    """name -> [(path, kind, text)]."""
    roots = [Path(a) for a in args] or [
        REPO / "docs",
        REPO / "src",
        REPO / "examples" / "demo-project",
    ]
    shared = Path("/work/shared/bench")
    if not args and shared.is_dir():
        roots.append(shared / "rules")
    out: dict[str, list[tuple[str, str, str]]] = {}
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            kind = SUFFIXES.get(path.suffix.lower())
            if kind is None:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            out.setdefault(root.name, []).append((str(path), kind, text))
    scifact = shared / "ir" / "scifact" / "corpus.jsonl"
    if not args and scifact.is_file():
        docs = []
        for line in scifact.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            docs.append((f"scifact#{obj['_id']}", "text", f"{obj.get('title', '')}\n{obj['text']}"))
        out["scifact"] = docs
    return out


def main() -> None:
    default, entropy = Scanner(), Scanner(SecretsSettings(high_entropy=True))
    print(
        f"{'corpus':<14}{'files':>7}{'lines':>9}{'prefilter':>11}{'flagged':>9}"
        f"{'+entropy':>10}{'scan ms':>9}"
    )
    for name, docs in corpora(sys.argv[1:]).items():
        lines = passed = flagged = flagged_entropy = 0
        samples: list[str] = []
        started = time.perf_counter()
        for path, kind, text in docs:
            mode = text_kind(kind, path)
            result = default.redact(text, path="", kind=mode)
            flagged += len({f.line for f in result.findings})
            for f in result.findings[:2]:
                samples.append(f"{path}:{f.line} {f.detector}")
        elapsed = (time.perf_counter() - started) * 1000
        for path, kind, text in docs:
            all_lines = text.split("\n")
            lines += len(all_lines)
            passed += sum(1 for line in all_lines if could_hold_secret(line))
            result = entropy.redact(text, path="", kind=text_kind(kind, path))
            flagged_entropy += len({f.line for f in result.findings})
        print(
            f"{name:<14}{len(docs):>7}{lines:>9}{passed / max(lines, 1):>10.1%}"
            f"{flagged:>9}{flagged_entropy:>10}{elapsed:>9.0f}"
        )
        for sample in samples[:6]:
            print(f"    {sample}")


if __name__ == "__main__":
    main()
