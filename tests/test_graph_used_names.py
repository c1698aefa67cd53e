"""A task that names a library's class or function the project only uses: the few files
that use it are where the change goes."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.conftest import task_context_paths, write

Run = Callable[..., subprocess.CompletedProcess[str]]


def _app(root: Path) -> None:
    for name in ("document", "chapter_document", "book_element"):
        write(
            root,
            f"src/core/{name}.cpp",
            f'#include "{name}.h"\n\n// Time stamps are kept in UTC for compatibility with\n'
            "// files written by every version; use the UTC time of the last change.\n"
            "// The method works across versions: a constant only available in one\n"
            "// version breaks compatibility, so use the method for the UTC time.\n"
            f"void {name.title().replace('_', '')}::touch() {{\n"
            "    m_modified = QDateTime::currentDateTimeUtc();  // UTC time, any version\n"
            "}\n",
        )
    write(
        root,
        "src/core/project_manager.cpp",
        '#include "project_manager.h"\n\nvoid ProjectManager::save() {\n'
        "    auto stamp = QDateTime::currentDateTime();\n"
        "    stamp.setTimeZone(QTimeZone::UTC);\n    m_database.write(stamp);\n}\n",
    )
    write(
        root, "src/core/project_manager.h", "class ProjectManager {\npublic:\n  void save();\n};\n"
    )


def test_a_library_name_the_task_writes_finds_the_file_using_it(
    repo: Path, run_charter: Run
) -> None:
    """ "Use QTimeZone::utc() for Qt6 compatibility" ranked the file that used
    `QTimeZone::UTC` below three whose words (time, UTC, compatibility, version) the task
    shared: no symbol of the project is named QTimeZone, so only BM25 saw it."""
    _app(repo)
    task = (
        "Use QTimeZone::utc() for Qt6 compatibility\n"
        "QTimeZone::UTC constant is only available in Qt 6.5+; use the utc() method, "
        "which works across every Qt6 version."
    )
    paths = task_context_paths(run_charter, repo, task)
    assert paths[0] == "src/core/project_manager.cpp", paths
