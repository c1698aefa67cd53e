"""The wheel users install: it must hold every file of the package, and Charter run from
it must find its data there, never in the source tree.

``[tool.setuptools.package-data]`` lists data by glob, so a new data file in a
subfolder, or of a kind the globs miss, would be left out of the wheel while every
test run from the editable install still passed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "charter"


def _package_files() -> set[str]:
    """Every file of the package as the wheel names it: the ones git tracks (an editor's
    backup or a stray cache is not part of it), or every file outside a git checkout."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "--", "."],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        check=False,
    )
    if tracked.returncode == 0 and tracked.stdout:
        return {"charter/" + rel for rel in tracked.stdout.split("\0") if rel}
    return {
        "charter/" + p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built by pip from a copy of the sources (so no ``build/`` lands in the repo)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for name in _package_files():  # what a fresh clone holds, nothing left lying around
        target = source / "src" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PACKAGE / name.removeprefix("charter/"), target)
    dist = base / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), "."],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if built.returncode != 0 and "No matching distribution found for setuptools" in built.stderr:
        pytest.skip("note: pip cannot get the build backend (setuptools) here")
    assert built.returncode == 0, built.stderr
    (found,) = dist.glob("charter-*.whl")
    return found


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = {n for n in archive.namelist() if n.startswith("charter/")}
    expected = _package_files()
    assert {"charter/data/drift_model.json", "charter/data/stance_model.json"} <= expected
    assert sorted(expected - names) == []
    assert sorted(names - expected) == []


def test_charter_from_the_wheel_loads_its_data_from_the_wheel(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    probe = (
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import charter\n"
        "from charter.decisions.drift.calibrate import default_model, read_model_file\n"
        "from charter.decisions.drift.stance import default_stance_model\n"
        "default_model(); default_stance_model()\n"
        "where = [read_model_file(n, n)[1] for n in ('drift_model.json', 'stance_model.json')]\n"
        "print(json.dumps({'package': charter.__file__, 'data': where}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(site)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    inside = str(site.resolve())
    assert Path(seen["package"]).resolve().is_relative_to(inside)
    assert all(Path(p).resolve().is_relative_to(inside) for p in seen["data"])
