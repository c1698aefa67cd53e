"""Every target the Makefile declares does something: `make typecheck` was declared
.PHONY without a recipe, so it printed "Nothing to be done" and exited 0 having checked
nothing."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _phony() -> list[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^\.PHONY:(.*)$", text, re.M)
    assert match, "the Makefile declares its targets .PHONY"
    return match.group(1).split()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", _phony())
def test_every_declared_target_has_commands(target: str) -> None:
    # -n prints the commands without running them; -B so an up-to-date stamp or
    # node_modules does not hide a target's own recipe
    proc = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "Nothing to be done" not in proc.stdout + proc.stderr
    assert proc.stdout.strip(), f"make {target} runs no command"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_typecheck_runs_mypy() -> None:
    proc = subprocess.run(
        ["make", "-n", "typecheck"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert "mypy src/charter" in proc.stdout


def test_make_bench_gives_every_script_its_required_arguments() -> None:
    """`make bench` runs every script in bench/: one whose parser requires a positional
    argument must be given it in ``FAST`` (or be listed in ``NEEDS`` as skipped), or
    `make bench` fails on it (``index_speed.py`` did: "the following arguments are
    required: roots"; a required option is the same)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("run_all", ROOT / "bench" / "run_all.py")
    assert spec and spec.loader
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    positional = re.compile(
        r"add_argument\(\s*\"[a-z][\w-]*\"(?![^)]*nargs=\"[?*]\")"  # a positional
        r"|add_argument\([^)]*required=True"  # or an option it cannot run without
    )
    missing = [
        script.name
        for script in run_all.scripts()
        if script.name not in run_all.NEEDS
        and script.name not in run_all.FAST
        and positional.search(script.read_text(encoding="utf-8"))
    ]
    assert not missing, f"bench scripts run with no arguments they require: {missing}"
