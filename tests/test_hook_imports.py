"""Cold hook processes import only what their event needs.

Each event runs as a real ``charter hook EVENT`` process fed Claude Code's JSON on stdin,
with no warm worker; at exit the process writes the names in ``sys.modules`` to a file.
Lexical paths (tool guardrails, the work log, compaction, the cold Stop drift check,
session start) must never load the embedding runtime (onnxruntime, tokenizers): that
import alone costs more than the Stop hook's whole 300 ms budget. Nor do they load
pydantic: settings and decision records are ``charter.records`` classes. The prompt hook,
which embeds the prompt, is the positive control: the same probe sees the model load there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from charter.config import Project
from charter.decisions import service
from tests.conftest import charter_run, hook_payload, write
from tests.decisions_support import decisions, no_worker

#: Runs the real CLI entry point and records the modules imported when it exits (a hook
#: leaves through ``os._exit``, which skips ``atexit``: the probe wraps it).
_PROBE = (
    "import json, os, sys\n"
    "out, real_exit = os.environ['CHARTER_TEST_MODULES'], os._exit\n"
    "def record(code):\n"
    "    open(out, 'w').write(json.dumps(sorted(sys.modules)))\n"
    "    real_exit(code)\n"
    "os._exit = record\n"
    "sys.argv = ['charter', 'hook', sys.argv[1]]\n"
    "from charter.cli import main\n"
    "main()\n"
)
MODEL_RUNTIME = {"onnxruntime", "tokenizers"}
#: Settings and decision records are plain ``charter.records`` classes: importing
#: pydantic and building its validators was half of a cold Stop hook (~150 ms).
VALIDATION_LIBRARY = {"pydantic", "pydantic_core"}
BAD = "Done. We could also consider a native mobile application for field staff later."
RULES = """# Project rules

## Always

- Never commit secrets to the repository.
- Run the test suite before every push.

## Billing

- Use integer cents for every money amount in the billing service.
- Invoice numbers are assigned by the database sequence, never in Python.
"""


@pytest.fixture
def project(repo: Path) -> Path:
    no_worker(repo)
    write(repo, "CLAUDE.md", RULES)
    service.record(Project.load(repo), decisions(), "merge")
    return repo


def _hook(root: Path, event: str, tmp_path: Path, **extra: Any) -> tuple[str, set[str]]:
    """(stdout, top-level packages imported) of one cold ``charter hook`` process."""
    record = tmp_path / f"modules-{event}.json"
    res = subprocess.run(
        [sys.executable, "-c", _PROBE, event],
        cwd=root,
        input=hook_payload(event, root, **extra),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(root), "CHARTER_TEST_MODULES": str(record)},
    )
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    modules = json.loads(record.read_text())
    return res.stdout, {name.split(".")[0] for name in modules}


def test_lexical_hook_paths_never_load_the_embedding_runtime(project: Path, tmp_path: Path) -> None:
    out, loaded = _hook(project, "pre-tool-use", tmp_path, tool_name="Bash", tool_input={})
    assert not loaded & (MODEL_RUNTIME | {"numpy"}), loaded & (MODEL_RUNTIME | {"numpy"})
    assert not loaded & VALIDATION_LIBRARY, "the guardrail hook imported pydantic"

    edit = {"file_path": str(project / "src" / "billing.py"), "content": "x = 1\n"}
    out, loaded = _hook(
        project, "post-tool-use", tmp_path, tool_name="Write", tool_input=edit, tool_response={}
    )
    assert not loaded & (MODEL_RUNTIME | {"numpy"})
    # a file under a nested AGENTS.md: its rules arrive, read from the compiled state
    write(project, "src/AGENTS.md", "# Source\n\n- Keep every module under 300 lines.\n")
    assert charter_run("compile", cwd=project).returncode == 0
    out, loaded = _hook(
        project, "post-tool-use", tmp_path, tool_name="Write", tool_input=edit, tool_response={}
    )
    assert "under 300 lines" in out
    # nor the tokenizer: building cl100k costs a cold process ~0.5 s
    assert not loaded & (MODEL_RUNTIME | {"numpy", "toktok"}), loaded & (MODEL_RUNTIME | {"numpy"})

    out, loaded = _hook(project, "pre-compact", tmp_path, trigger="auto")
    assert not loaded & MODEL_RUNTIME

    # the cold Stop hook checks drift lexically: a real finding, without numpy or the model
    out, loaded = _hook(
        project, "stop", tmp_path, stop_hook_active=False, last_assistant_message=BAD
    )
    assert "QA-PGC-004" in json.loads(out)["systemMessage"]
    assert not loaded & (MODEL_RUNTIME | {"numpy"}), loaded & (MODEL_RUNTIME | {"numpy"})
    assert not loaded & VALIDATION_LIBRARY, "the Stop hook imported pydantic"

    # session start pins the compiled constitution; compiling embeds the shards, so the
    # rules are compiled first (as `charter install` does) and the hook only loads them
    subprocess.run(
        [sys.executable, "-m", "charter", "compile"], cwd=project, check=True, capture_output=True
    )
    out, loaded = _hook(project, "session-start", tmp_path, source="startup")
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Never commit secrets" in context
    assert not loaded & MODEL_RUNTIME, loaded & MODEL_RUNTIME
    assert not loaded & VALIDATION_LIBRARY, "session start imported pydantic"
    # a fresh compile is pinned from its stored text: no numpy, no rule grammar
    assert "numpy" not in loaded, "session start imported numpy for a fresh compile"
    # a rule file changed since: the hook recompiles and pins the new rule
    text = (project / "CLAUDE.md").read_text()
    write(project, "CLAUDE.md", text.replace("## Always\n", "## Always\n\n- Never force-push.\n"))
    out, loaded = _hook(project, "session-start", tmp_path, source="startup")
    assert "Never force-push" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_the_probe_sees_the_model_load_on_the_prompt_hook(project: Path, tmp_path: Path) -> None:
    """Positive control: without a worker, the prompt hook embeds the prompt itself."""
    out, loaded = _hook(
        project, "user-prompt-submit", tmp_path, prompt="Fix rounding of invoice amounts"
    )
    assert "integer cents" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert MODEL_RUNTIME.issubset(loaded)


def test_a_cold_prompt_hook_counts_no_tokens(project: Path, tmp_path: Path) -> None:
    """The rules' lines as shown and their cl100k costs are stored by the compile, so the
    prompt hook run without a worker never builds the tokenizer (~0.2 s a process)."""
    assert charter_run("compile", cwd=project).returncode == 0
    out, loaded = _hook(
        project, "user-prompt-submit", tmp_path, prompt="Fix rounding of invoice amounts"
    )
    assert "integer cents" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "toktok" not in loaded, "the prompt hook built the tokenizer"
    # the stored costs are the tokenizer's own counts of the lines the hook shows, each
    # with the newline that joins it to the next
    from charter.rules.compiler import load
    from charter.tokens import count_many

    compiled = load(Project.load(project))
    assert compiled is not None and compiled.shown is not None
    lines = compiled.shown["lines"]
    assert lines and count_many([line + "\n" for line in lines.values()]) == [
        compiled.shown["costs"][rid] for rid in lines
    ]


def test_the_worker_imports_charter_from_the_hooks_import_root(tmp_path: Path) -> None:
    """A Charter reachable only through ``PYTHONPATH`` (a checkout under test, a vendored
    copy) started its worker with ``-I``, which drops ``PYTHONPATH``; its import root was
    appended to ``sys.path``, so a Charter installed in the interpreter was imported
    first and the worker served that other code. The root is first while ``charter`` is
    imported, then last, shadowing nothing else."""
    from charter.integrations.claude_code.handlers import _IMPORT_CHARTER

    root = tmp_path / "other-root"
    (root / "charter").mkdir(parents=True)
    (root / "charter" / "__init__.py").write_text("")
    (root / "json.py").write_text("raise SystemExit('shadowed')\n")
    probe = "import json; print(charter.__file__); print(sys.path[-1])"
    shown = subprocess.run(
        [sys.executable, "-I", "-c", _IMPORT_CHARTER + probe, str(root)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert shown[0] == str(root / "charter" / "__init__.py")
    assert shown[1] == str(root)
