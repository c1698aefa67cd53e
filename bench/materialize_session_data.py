"""Rebuild the held-out session benchmark's transcripts from the repositories they came from.

    .venv/bin/python bench/materialize_session_data.py --mirrors MIRRORS --out DIR [--data D]
    .venv/bin/charter eval session --data DIR

``bench/data/session/<key>/labels.json`` holds only what Charter's engineers wrote: the
provenance of each transcript (repository, commit, path, git blob, size, sha256), the
mechanical labels (``bench/label_session.py``) and the hand labels. The transcripts
themselves belong to their authors (no licence is stated) and are not committed here. This
script reads each one from a bare mirror of its repository (``MIRRORS/<owner>+<name>/repo``,
as the ``fetch`` tool lays them out) at the recorded commit, checks size and sha256, removes
obvious secrets (each replaced by ``<redacted>``; the count must equal ``redactions``), writes
``DIR/<key>/transcript.jsonl`` beside a copy of its labels, and re-derives the mechanical
labels from the written file to check they still match. ``--data`` names the labels
directory (default ``bench/data/session``; ``bench/data/session_untouched`` is the untouched
second set).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data" / "session"
REDACTED = "<redacted>"

# Token shapes that are secrets wherever they appear.
SECRET_PATTERNS = [
    re.compile(r"\bsk-(?:proj-|ant-api\d\d-)?[A-Za-z0-9_]{20,}[A-Za-z0-9_-]*"),
    re.compile(r"\bsk_(?:live|test)_[A-Za-z0-9]{16,}"),
    re.compile(r"\b(?:ghp|gho|ghs|ghu)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{30,}"),
    re.compile(r"\bAKIA[A-Z0-9]{16}\b"),
    re.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
]
# ``NAME=value`` where NAME says it is a secret: only the value goes (group 1).
KEYED_SECRET_PATTERNS = [
    re.compile(
        r"[A-Z_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY)[A-Z_]*\s*=\s*"
        r"([A-Za-z0-9_./+-]{12,})"
    ),
    re.compile(r"[?&]key=([A-Za-z0-9-]{20,})"),
]


def _looks_random(value: str) -> bool:
    """A literal value that mixes cases or letters and digits, not a reference to a variable."""
    mixed = bool(re.search(r"[a-z]", value)) and bool(re.search(r"[A-Z]", value))
    digits = bool(re.search(r"[A-Za-z]", value)) and bool(re.search(r"\d", value))
    return (
        (mixed or digits)
        and "." not in value
        and not re.fullmatch(r"[a-z0-9]+(?:[-_][a-z0-9]+)+", value)  # change-me-in-production
        and not re.search(r"(?i)example|change|placeholder|xxxx", value)
        and not value.startswith(("process.env", "os.environ", "$", "self.", "your_", "<"))
    )


def redact(text: str) -> tuple[str, int]:
    """``text`` with obvious secrets replaced by ``<redacted>``, and how many there were."""
    count = 0
    for pattern in SECRET_PATTERNS:
        text, n = pattern.subn(REDACTED, text)
        count += n
    for pattern in KEYED_SECRET_PATTERNS:
        pieces: list[str] = []
        last = 0
        for match in pattern.finditer(text):
            if _looks_random(match.group(1)):
                pieces += [text[last : match.start(1)], REDACTED]
                last = match.end(1)
                count += 1
        text = "".join(pieces) + text[last:]
    return text, count


def _sibling(name: str) -> ModuleType:
    """Another script of bench/ (not a package) as a module."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _labeller() -> ModuleType:
    return _sibling("label_session")


def git_show(mirrors: Path, repo: str, commit: str, path: str) -> tuple[bytes | None, str]:
    """The rules data's reader of one file from a bare mirror."""
    shown: tuple[bytes | None, str] = _sibling("materialize_rules_data").git_show(
        mirrors, repo, commit, path
    )
    return shown


def materialize(mirrors: Path, out: Path, data: Path = DATA) -> list[str]:
    problems: list[str] = []
    labeller = _labeller()
    out.mkdir(parents=True, exist_ok=True)
    for labels_path in sorted(data.glob("*/labels.json")):
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
        key, source = labels["key"], labels["source"]
        raw, error = git_show(mirrors, source["repo"], source["commit"], source["path"])
        if raw is None:
            problems.append(f"{key}: {error}")
            continue
        if len(raw) != source["bytes"] or hashlib.sha256(raw).hexdigest() != source["sha256"]:
            problems.append(f"{key}: {source['path']}: size or sha256 differs from labels.json")
            continue
        text, count = redact(raw.decode("utf-8"))
        if count != labels.get("redactions", 0):
            problems.append(f"{key}: {count} redactions, labels.json says {labels['redactions']}")
            continue
        target = out / key
        target.mkdir(parents=True, exist_ok=True)
        (target / "transcript.jsonl").write_bytes(text.encode("utf-8"))
        shutil.copy(labels_path, target / "labels.json")
        try:
            fresh = labeller.label(target)
        except ValueError as exc:  # a hand label that does not quote its message
            problems.append(str(exc))
            continue
        if fresh["mechanical"]["points"] != (labels.get("mechanical") or {}).get("points"):
            problems.append(f"{key}: mechanical labels differ from the transcript's")
    return problems


def main() -> None:
    shared = _sibling("materialize_rules_data")
    parser = shared.arguments()
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="directory of <key>/labels.json to rebuild (default: bench/data/session)",
    )
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"materialize: {args.data}: not a directory", file=sys.stderr)
        sys.exit(2)
    if not any(args.data.glob("*/labels.json")):
        print(f"materialize: {args.data}: no <key>/labels.json in it", file=sys.stderr)
        sys.exit(2)
    shared.finish(
        args.out, materialize(args.mirrors, args.out, args.data), "all transcripts verified"
    )


if __name__ == "__main__":
    main()
