"""The cached graph-optimised MiniLM model gives the same bytes as optimising it live.

The first session in a user cache writes the optimised graph there; later sessions load
it without optimising. Every path must embed identically: a fresh cache, a warm one, a
torn or unreadable one (rebuilt), and a cache directory that cannot be written.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from charter.embed import minilm
from tests.conftest import write

TEXTS = [
    "Use integer cents for every money amount in the billing service.",
    "Never commit secrets, API keys or .env files to the repository.",
    "x",
    "Invoice numbers come from the database sequence, never from application code, "
    "because two workers can race on a counter held in Python.",
] * 5


def _embed() -> np.ndarray:
    return minilm.MiniLMEmbedder().embed(TEXTS)


def _cached() -> Path:
    return minilm._optimized_path(minilm.model_files()[2])


def test_cold_warm_torn_and_unwritable_caches_embed_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[str] = []
    real = minilm.ort.InferenceSession

    def recording(path: str, *args: object, **kwargs: object) -> object:
        loaded.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(minilm.ort, "InferenceSession", recording)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cached = _cached()
    assert cached.parent == tmp_path / "cache" / "charter"

    cold = _embed()  # optimises the verified model and writes the cache
    assert cached.is_file() and cached.with_suffix(".ok").is_file()
    assert loaded[-1] != str(cached)
    warm = _embed()
    assert loaded[-1] == str(cached)  # served from the cache, not optimised again
    assert warm.tobytes() == cold.tobytes()

    # unreadable in place, size and mtime kept: the marker matches, the load fails, the
    # verified model is optimised again and the cache rewritten
    stat = cached.stat()
    with open(cached, "r+b") as handle:
        handle.write(b"\xff" * 4096)
    os.utime(cached, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    del loaded[:]
    assert _embed().tobytes() == cold.tobytes()
    assert loaded == [str(cached), str(minilm.model_files()[0])]
    assert _embed().tobytes() == cold.tobytes() and loaded[-1] == str(cached)

    with open(cached, "r+b") as handle:  # torn: the marker no longer matches
        handle.truncate(stat.st_size // 3)
    assert _embed().tobytes() == cold.tobytes()
    assert cached.stat().st_size == stat.st_size  # rewritten whole

    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert _embed().tobytes() == cold.tobytes()
    assert not list(tmp_path.glob("cache/charter/.*.tmp"))  # no temp copies left


def test_compile_in_fresh_processes_with_and_without_the_cache(repo: Path, tmp_path: Path) -> None:
    """``charter compile`` as real processes: the first writes the cache, the second
    loads it; ``rules.npy`` has the same bytes."""
    write(repo, "CLAUDE.md", "# Rules\n\n" + "".join(f"- {t}\n" for t in TEXTS[:4]))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    digests = []
    for _ in range(2):
        subprocess.run(["rm", "-rf", str(repo / ".charter")], check=True)
        res = subprocess.run(
            [sys.executable, "-m", "charter", "compile", "--json"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert res.returncode == 0, res.stderr
        digests.append(hashlib.sha256((repo / ".charter/rules.npy").read_bytes()).hexdigest())
        assert list((tmp_path / "cache" / "charter").glob("minilm-optimized-*.onnx"))
    assert digests[0] == digests[1]
