"""Hostile input through the real CLI: YAML bombs, deep JSON, pathological Markdown, size caps.

Each probe runs ``charter`` in a subprocess under a wrapper that reports the command's peak
memory (``ru_maxrss`` of its own child) and caps its address space, so a regression fails
the test instead of exhausting the machine. The bar: one clear line naming the file, the
file skipped, everything else processed, under 1 GiB, within a bounded time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from charter import safeyaml
from tests.conftest import CHARTER, write

GIB = 1024**3

#: Runs argv, then prints the child's peak RSS (bytes) as the last line of stderr.
_WRAPPER = """
import resource, subprocess, sys
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (6 * 1024**3, 6 * 1024**3))
proc = subprocess.run(sys.argv[1:], preexec_fn=cap)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
sys.stderr.write(f"\\n@@peak={peak}\\n")
sys.exit(proc.returncode)
"""


def run_measured(*args: str, cwd: Path, timeout: float = 120) -> tuple[int, str, str, int, float]:
    """(exit code, stdout, stderr without the marker, peak RSS bytes, seconds)."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *CHARTER, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ},
    )
    seconds = time.monotonic() - started
    stderr, _, marker = proc.stderr.rpartition("\n@@peak=")
    return proc.returncode, proc.stdout, stderr, int(marker.strip()), seconds


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("charter: error:")]


def assert_no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr
    assert "MemoryError" not in stderr
    assert "RecursionError" not in stderr


def billion_laughs(levels: int = 9) -> str:
    """Nested aliases: each level lists the previous one nine times (9**levels leaves)."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        refs = ",".join([f"*l{i - 1}"] * 9)
        lines.append(f"l{i}: &l{i} [{refs}]")
    return "\n".join(lines) + "\n"


def _merge_level(i: int) -> str:
    """A mapping that merges the previous level twice (doubling at construction time)."""
    return f"a{i}: &a{i} {{<<: [*a{i - 1}, *a{i - 1}], k{i}: v}}\n"


CLAUDE = "# Rules\n\n- Always run the test suite before pushing a branch.\n"


# -- the loader itself ------------------------------------------------------------------


def test_safeyaml_accepts_ordinary_aliases_and_merge_keys() -> None:
    text = "base: &b {retries: 3, timeout: 10}\nprod: {<<: *b, timeout: 30}\nlist: [*b, *b]\n"
    data = safeyaml.load(text, name="ok.yaml")
    assert data["prod"] == {"retries": 3, "timeout": 30}
    assert data["list"] == [{"retries": 3, "timeout": 10}] * 2


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (billion_laughs(), "YAML bomb"),
        ("a: &a [*a]\n", "its own ancestor"),
        ("x: " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper than"),
        ("a0: &a0 {k: v}\n" + "".join(_merge_level(i) for i in range(1, 40)), "YAML bomb"),
        ("k: v\n" * (safeyaml.MAX_YAML_BYTES // 5 + 1), "too large"),
    ],
    ids=["billion-laughs", "recursive", "deep", "merge-bomb", "oversized"],
)
def test_safeyaml_refuses_hostile_documents_fast(text: str, reason: str) -> None:
    started = time.monotonic()
    with pytest.raises(safeyaml.YamlLimitError) as caught:
        safeyaml.load(text, name="sot/evil.yaml")
    assert time.monotonic() - started < 20
    message = str(caught.value)
    assert message.startswith("sot/evil.yaml")
    assert reason in message
    assert "\n" not in message


def test_expanded_size_counts_shared_nodes_once_per_use() -> None:
    root = safeyaml.compose("a: &a [1, 2]\nb: [*a, *a]\n", name="x")
    assert root is not None
    # mapping + 2 keys + a(3 nodes) + b(1 + 2*3)
    assert safeyaml.expanded_size(root, 1000) == 1 + 2 + 3 + 7


# -- YAML bombs through the CLI ----------------------------------------------------------


def test_yaml_bomb_in_mdc_front_matter_is_one_line_and_skipped(repo: Path) -> None:
    write(repo, "CLAUDE.md", CLAUDE)
    bomb = billion_laughs().replace("l8:", "globs:")
    write(repo, ".cursor/rules/bomb.mdc", f"---\n{bomb}alwaysApply: true\n---\n- Lint it.\n")
    code, out, err, peak, seconds = run_measured("compile", "--json", cwd=repo)
    assert_no_traceback(err)
    assert code == 1
    (line,) = error_lines(err)
    assert ".cursor/rules/bomb.mdc" in line and "YAML bomb" in line
    summary = json.loads(out)
    assert summary["sources"] == ["CLAUDE.md"]  # the rest still compiles
    assert peak < GIB, f"peak RSS {peak / 2**20:.0f} MiB"
    assert seconds < 90


def test_yaml_bomb_in_sot_is_skipped_by_index_and_facts(repo: Path) -> None:
    write(repo, "sot/bomb.yaml", billion_laughs())
    write(repo, "sot/clients.csv", "id,client,fee\nCL-1,Acme,1200\n")
    write(repo, "docs/note.md", "# Note\n\nAcme pays a fee of 1200.\n")
    code, out, err, peak, _ = run_measured("index", "--json", cwd=repo)
    assert_no_traceback(err)
    assert code == 0
    report = json.loads(out)
    assert [e["path"] for e in report["errors"]] == ["sot/bomb.yaml"]
    assert "YAML bomb" in report["errors"][0]["error"]
    assert "sot/clients.csv" in report["indexed"] and "docs/note.md" in report["indexed"]
    assert peak < GIB

    code, out, err, peak, _ = run_measured("facts", "check", "docs/note.md", "--json", cwd=repo)
    assert_no_traceback(err)
    facts = json.loads(out)
    assert facts["counts"]["verified"] == 1
    assert [e["path"] for e in facts["errors"]] == ["sot/bomb.yaml"]
    assert peak < GIB


def test_yaml_bomb_in_decisions_import_is_one_line(repo: Path) -> None:
    write(repo, "intake.yaml", billion_laughs())
    code, _, err, peak, _ = run_measured("decisions", "import", "intake.yaml", cwd=repo)
    assert_no_traceback(err)
    assert code != 0
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and "intake.yaml" in lines[0] and "YAML bomb" in lines[0]
    assert peak < GIB


# -- deep JSON and pathological Markdown --------------------------------------------------


def test_deeply_nested_json_sot_is_one_note_and_the_run_goes_on(repo: Path) -> None:
    write(repo, "sot/deep.json", "[" * 200_000 + "]" * 200_000)
    write(repo, "sot/clients.csv", "id,client,fee\nCL-1,Acme,1200\n")
    code, out, err, peak, _ = run_measured("index", "--json", cwd=repo)
    assert_no_traceback(err)
    assert code == 0
    report = json.loads(out)
    errors = {e["path"]: e["error"] for e in report["errors"]}
    assert "nested too deeply" in errors["sot/deep.json"]
    assert "sot/clients.csv" in report["indexed"]
    assert peak < GIB


def test_pathological_markdown_is_bounded(repo: Path) -> None:
    write(repo, "CLAUDE.md", CLAUDE)
    # emphasis nested past Python's recursion limit in a rule file
    write(repo, ".claude/rules/emph.md", "*" * 30_000 + "a" + "*" * 30_000 + "\n")
    # inputs that made the document chunker quadratic (link and path-reference scans)
    write(repo, "docs/links.md", "# Links\n\n" + "[a](" * 50_000 + "\n")
    write(repo, "docs/dots.md", "# Dots\n\n" + "a." * 100_000 + "x\n")
    code, out, err, peak, seconds = run_measured("compile", "--json", cwd=repo)
    assert_no_traceback(err)
    (line,) = error_lines(err)
    assert ".claude/rules/emph.md" in line and "nested too deeply" in line
    assert json.loads(out)["sources"] == ["CLAUDE.md"]
    assert peak < GIB

    code, out, err, peak, seconds = run_measured("index", "--json", cwd=repo)
    assert_no_traceback(err)
    assert code == 0
    assert {"docs/links.md", "docs/dots.md"} <= set(json.loads(out)["indexed"])
    assert seconds < 90, f"index took {seconds:.0f}s"
    assert peak < GIB


# -- size caps: named, never silent ---------------------------------------------------------


def test_rule_file_over_the_cap_is_named_with_its_setting(repo: Path) -> None:
    write(repo, "CLAUDE.md", CLAUDE)
    write(repo, "AGENTS.md", "# Big\n\n" + "- Keep lines short and clear.\n" * 12_000)
    code, out, err, _, _ = run_measured("compile", "--json", cwd=repo)
    assert_no_traceback(err)
    assert code == 1
    (line,) = error_lines(err)
    assert "AGENTS.md" in line and "rules.max_file_bytes" in line
    assert json.loads(out)["sources"] == ["CLAUDE.md"]


def write_ledger(path: Path, min_bytes: int) -> None:
    """A SoT CSV of at least ``min_bytes`` (shared with ``bench/hostile_input.py``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("invoice_id,client,fee\n")
        row = 0
        while handle.tell() < min_bytes:
            row += 1
            handle.write(f"INV-{row:07d},Client {row},{1000 + row % 977}\n")


def test_large_sot_csv_is_streamed_not_silently_ignored(repo: Path) -> None:
    write_ledger(repo / "sot" / "ledger.csv", 2_500_000)  # over search.index.max_file_bytes
    write(repo, "claim.md", "Invoice INV-0000042 has a fee of 1042.\n")
    code, out, err, peak, _ = run_measured("facts", "check", "claim.md", "--json", cwd=repo)
    assert_no_traceback(err)
    assert code == 0, err
    report = json.loads(out)
    assert report["sources"] == ["sot/ledger.csv"]
    assert report["counts"] == {"verified": 2, "mismatch": 0, "not_found": 0}
    assert report["skipped"] == []
    assert peak < GIB


def test_sot_over_the_streaming_cap_is_named_in_a_note_and_in_json(repo: Path) -> None:
    write_ledger(repo / "sot" / "ledger.csv", 300_000)
    write(repo, "charter.toml", "[search.index]\nmax_sot_bytes = 100000\n")
    write(repo, "claim.md", "Invoice INV-0000042 has a fee of 1042.\n")
    code, out, err, _, _ = run_measured("facts", "check", "claim.md", "--json", cwd=repo)
    assert_no_traceback(err)
    report = json.loads(out)
    (skip,) = report["skipped"]
    assert skip["path"] == "sot/ledger.csv"
    assert "search.index.max_sot_bytes = 100000" in skip["reason"]
    assert "note:" in err and "sot/ledger.csv" in err
    code, _, err, _, _ = run_measured("facts", "check", "claim.md", cwd=repo)
    assert code == 0
    assert "sot/ledger.csv not checked" in err


# -- special files and unreadable inputs ---------------------------------------------------


def run_bounded(
    *args: str, cwd: Path, timeout: float = 60, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``charter args`` in its own process group, killed whole if it overruns, so a hang
    fails the test instead of leaving a process blocked behind it."""
    proc = subprocess.Popen(
        [*prefix, *CHARTER, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"charter {' '.join(args)} hung for {timeout} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("command", [("index", "--json"), ("graph", "build", "--json")])
def test_a_named_pipe_in_the_project_is_not_opened(repo: Path, command: tuple[str, ...]) -> None:
    """Opening a FIFO blocks until a writer comes; a project walk must never wait on one."""
    write(repo, "docs/note.md", "# Note\n\nThe pipe must not block indexing.\n")
    os.mkfifo(repo / "docs" / "pipe.md")
    res = run_bounded(*command, cwd=repo)
    assert_no_traceback(res.stderr)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    if command[0] == "index":
        assert report["indexed"] == ["docs/note.md"]
        assert {"path": "docs/pipe.md", "reason": "not a regular file"} in report["skipped"]
    else:
        assert report["counts"]["source"] == 1


@pytest.mark.parametrize("name", ["GEMINI.md", ".cursor/rules/pipe.mdc"])
def test_a_named_pipe_named_like_a_rule_file_is_one_line_not_a_hang(repo: Path, name: str) -> None:
    """A FIFO where a rule file would be: compile opened it and waited for a writer
    forever; now it is refused unopened, named in one line, and the other rules compile."""
    write(repo, "CLAUDE.md", CLAUDE)
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(repo / name)
    res = run_bounded("compile", "--json", cwd=repo)
    assert_no_traceback(res.stderr)
    assert res.returncode == 1, res.stderr
    (line,) = error_lines(res.stderr)
    assert name in line and "not a regular file" in line, line
    assert json.loads(res.stdout)["sources"] == ["CLAUDE.md"]


def without_file_permissions() -> tuple[str, ...]:
    """A prefix that runs a command unable to read a mode-000 file: nothing for a normal
    user; for root, ``setpriv`` dropping the capabilities that bypass file modes."""
    if os.geteuid() != 0:
        return ()
    import shutil

    if shutil.which("setpriv") is None:
        pytest.skip("root without setpriv cannot play a user who lacks read permission")
    return ("setpriv", "--bounding-set=-dac_override,-dac_read_search")


@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("charter.toml", ("search", "anything")),
        (".gitignore", ("index",)),
        (".gitignore", ("graph", "build")),
        ("docs/.gitignore", ("index",)),
        ("docs/.gitignore", ("graph", "build")),
    ],
)
def test_an_unreadable_config_or_ignore_file_is_one_line_naming_it(
    repo: Path, name: str, command: tuple[str, ...]
) -> None:
    """An ignore file that cannot be read must stop the walk (what it hides might be a
    secret), with the file named and exit code 2: a user error, not a crash."""
    write(repo, "docs/note.md", "# Note\n\nhello\n")
    target = write(repo, name, "[search]\n" if name.endswith(".toml") else "*.log\n")
    target.chmod(0)
    res = run_bounded(*command, cwd=repo, prefix=without_file_permissions())
    assert_no_traceback(res.stderr)
    (line,) = error_lines(res.stderr)
    assert "PermissionError" not in line
    assert f"cannot read {target}" in line and "Permission denied" in line, line
    assert res.returncode == 2


@pytest.mark.parametrize("command", [("index",), ("graph", "build")])
def test_a_huge_gitignore_is_one_line_not_minutes_and_gigabytes(
    repo: Path, command: tuple[str, ...]
) -> None:
    """A 40 MB .gitignore (3 million patterns) took 112 s and 2 GB to compile into
    matchers. Real ones are kilobytes; past the cap the file is named and the run stops
    (going on without it could read what it hides)."""
    write(repo, "docs/note.md", "# Note\n\nhello\n")
    write(repo, ".gitignore", "".join(f"build{i}/\n" for i in range(200_000)))  # ~2.3 MB
    code, _, err, peak, seconds = run_measured(*command, cwd=repo, timeout=120)
    assert_no_traceback(err)
    (line,) = error_lines(err)
    assert ".gitignore" in line and "too large" in line, line
    assert code == 2
    assert seconds < 30 and peak < GIB


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("args", [("--batch", "/dev/zero"), ("/dev/zero",)])
def test_an_endless_device_named_as_a_file_is_one_line_in_bounded_memory(
    repo: Path, args: tuple[str, ...]
) -> None:
    """A device reports size 0 and never ends: the size check passed and the read grew
    without bound; now it reads one byte past the cap and stops."""
    code, _, stderr, peak, _ = run_measured("drift", "check", *args, cwd=repo)
    assert_no_traceback(stderr)
    assert code == 2, stderr
    assert len(error_lines(stderr)) == 1, stderr
    assert "too large" in stderr and "/dev/zero" in stderr, stderr
    assert peak < GIB, peak
