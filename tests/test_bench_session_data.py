"""The held-out session data in ``bench/data/session``: provenance and labels are complete,
no transcript is committed, and ``bench/materialize_session_data.py`` rebuilds a transcript
from a real bare git repository (sha256-checked, secrets redacted, labels re-derived).

The transcripts are read from their repositories at measurement time, never committed."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from charter.eval.session_data import check_labels

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "session"
UNTOUCHED = ROOT / "bench" / "data" / "session_untouched"
DEV_AUTHORS = {"LilLeapo", "Quiago", "Tmeister", "886caigudong"}


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _check_data_dir(data: Path) -> set[str]:
    """Every session in ``data`` is complete, uncommitted and by a non-dev author; its authors."""
    dirs = sorted(p for p in data.iterdir() if p.is_dir())
    authors = set()
    for directory in dirs:
        assert sorted(p.name for p in directory.iterdir()) == ["labels.json"], directory
        labels = json.loads((directory / "labels.json").read_text(encoding="utf-8"))
        check_labels(directory / "labels.json", labels)
        assert labels["key"] == directory.name and labels["split"] == "heldout"
        source = labels["source"]
        authors.add(source["repo"].split("/")[0])
        assert len(source["commit"]) == 40 and len(source["blob"]) == 40
        assert len(source["sha256"]) == 64 and source["bytes"] > 0 and source["licence"]
        assert source["path"].endswith(labels["session_id"] + ".jsonl")
        assert labels["stats"]["tool_calls"] >= 30 and labels["stats"]["prompts"] >= 2
        points = labels["mechanical"]["points"]
        assert points[-1]["id"] == "end" and len(points) == labels["stats"]["compactions"] + 1
        constraints = labels["hand"]["user_constraints"]
        assert len({c["id"] for c in constraints}) == len(constraints)
        for c in constraints:
            assert 1 <= len(c["key_terms"]) <= 4
            assert all(t.lower() in c["evidence"].lower() for t in c["key_terms"]), c["id"]
            assert c["kind"] in {"constraint", "decision", "preference", "process"}
    assert not authors & DEV_AUTHORS, "held-out sessions must come from other authors"
    return authors


def test_labels_and_provenance_are_complete_and_no_transcript_is_committed() -> None:
    assert len([p for p in DATA.iterdir() if p.is_dir()]) >= 4
    assert len(_check_data_dir(DATA)) >= 3


def test_untouched_set_is_complete_and_by_authors_used_nowhere_else() -> None:
    """``session_untouched`` is measured once: none of its authors is in the dev split or in
    the first held-out set, so nothing about them was seen before it was labelled."""
    assert len([p for p in UNTOUCHED.iterdir() if p.is_dir()]) >= 3
    authors = _check_data_dir(UNTOUCHED)
    assert len(authors) >= 3
    assert not authors & _check_data_dir(DATA)


def test_redaction_takes_secrets_and_leaves_placeholders() -> None:
    module = _module("materialize_session_data")
    text = (
        '{"command":"PGPASSWORD=OGFYlxSChyYLgQxn psql -h db"}\\nAPI_KEY=sk-proj-'
        + "a1B2" * 10
        + " SECRET_KEY=change-me-in-production-use-a-random-32- apiKey: process.env.OPENAI_API_KEY"
        + " token = self._graph_token"
    )
    out, count = module.redact(text)
    assert count == 2
    assert "OGFYlxSChyYLgQxn" not in out and "a1B2a1B2" not in out
    assert "PGPASSWORD=<redacted> psql" in out
    assert "change-me-in-production" in out and "process.env.OPENAI_API_KEY" in out


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def _mirror_and_data(tmp_path: Path) -> tuple[Path, Path, dict[str, Any], bytes, str]:
    """A real bare mirror holding one transcript, and a data dir with its committed labels."""
    materializer = _module("materialize_session_data")
    labeller = _module("label_session")
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    lines = [
        {"type": "user", "uuid": "p1", "sessionId": "s1", "cwd": "/p", "version": "2.0.1",
         "message": {"role": "user", "content": "Deploy with TOKEN=Zx81kQ2mPz77aaQ please"}},
        {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Write",
             "input": {"file_path": "/p/a.txt", "content": "x"}}]}},
        {"type": "user", "uuid": "r1", "toolUseResult": {}, "message": {"role": "user",
         "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}},
    ]  # fmt: skip
    raw = ("\n".join(json.dumps(x) for x in lines) + "\n").encode()
    rel = ".claude/projects/-p/s1.jsonl"
    (work / rel).parent.mkdir(parents=True)
    (work / rel).write_bytes(raw)
    _git(work, "add", ".")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "s")
    commit = _git(work, "rev-parse", "HEAD")
    mirrors = tmp_path / "mirrors"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(work), str(mirrors / "someone+dots" / "repo")],
        check=True,
    )
    # Labels as they would be committed: computed from the redacted transcript.
    staging = tmp_path / "staging" / "someone-s1"
    staging.mkdir(parents=True)
    redacted, count = materializer.redact(raw.decode())
    (staging / "transcript.jsonl").write_text(redacted, encoding="utf-8")
    labels = labeller.label(staging)
    labels.update(key="someone-s1", redactions=count)
    labels["source"] = {
        "repo": "someone/dots",
        "commit": commit,
        "path": rel,
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    data = tmp_path / "data"
    (data / "someone-s1").mkdir(parents=True)
    (data / "someone-s1" / "labels.json").write_text(json.dumps(labels))
    return mirrors, data, labels, raw, rel


def test_materialize_rebuilds_checks_and_redacts_from_a_bare_mirror(tmp_path: Path) -> None:
    materializer = _module("materialize_session_data")
    mirrors, data, labels, _raw, rel = _mirror_and_data(tmp_path)
    count = labels["redactions"]
    out = tmp_path / "out"
    assert materializer.materialize(mirrors, out, data) == []
    text = (out / "someone-s1" / "transcript.jsonl").read_text(encoding="utf-8")
    assert count == 1 and "TOKEN=<redacted> please" in text and "Zx81kQ2mPz77aaQ" not in text
    assert labels["mechanical"]["points"][0]["edited_files"] == ["a.txt"]

    labels["source"]["sha256"] = "0" * 64
    (data / "someone-s1" / "labels.json").write_text(json.dumps(labels))
    problems = materializer.materialize(mirrors, tmp_path / "out2", data)
    assert problems == [f"someone-s1: {rel}: size or sha256 differs from labels.json"]


def _materialize_cli(*args: str) -> subprocess.CompletedProcess[str]:
    script = ROOT / "bench" / "materialize_session_data.py"
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, check=False
    )


def test_materialize_cli_reads_the_data_dir_it_is_given(tmp_path: Path) -> None:
    """``--data`` picks the set to rebuild (the untouched set lives beside the first one)."""
    mirrors, data, _labels, raw, _rel = _mirror_and_data(tmp_path)
    out = tmp_path / "out"
    proc = _materialize_cli("--mirrors", str(mirrors), "--out", str(out), "--data", str(data))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["someone-s1"]
    text = (out / "someone-s1" / "transcript.jsonl").read_text(encoding="utf-8")
    assert text == raw.decode().replace("Zx81kQ2mPz77aaQ", "<redacted>")


def test_materialize_cli_names_a_bad_data_dir_in_one_line(tmp_path: Path) -> None:
    mirrors, data, labels, _raw, _rel = _mirror_and_data(tmp_path)
    missing = tmp_path / "nope"
    proc = _materialize_cli(
        "--mirrors", str(mirrors), "--out", str(tmp_path / "o"), "--data", str(missing)
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"materialize: {missing}: not a directory"]
    # Labels whose mechanical part was never computed: a problem line, not a traceback.
    labels["mechanical"] = {}
    (data / "someone-s1" / "labels.json").write_text(json.dumps(labels))
    proc = _materialize_cli(
        "--mirrors", str(mirrors), "--out", str(tmp_path / "o"), "--data", str(data)
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "someone-s1: mechanical labels differ" in proc.stderr
