"""Shell scripts in the graph: functions and top-level configuration variables as symbols,
``source``/``.`` of a path built from the script's location, the root or a variable as an
import, scripts run by path or by a shell as calls of those files, function calls
resolved in the files sourced; a script without a suffix stays at file level (ranking
is in ``tests/test_graph_grammars.py``)."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.graph import extract_shell
from charter.graph.build import build_graph
from tests.conftest import symbol_spans, write

COMMON_SH = """#!/usr/bin/env bash
# shared helpers for the hack/ scripts
export REGISTRY="${REGISTRY:-ghcr.io/acme}"
GO_VERSION=1.22.4

log_info() {
  echo "[info] $*"
}

function ensure_go {
  log_info "need go ${GO_VERSION}"
}

_trim() { echo "${1%% }"; }
"""
BUILD_SH = """#!/usr/bin/env bash
set -o errexit
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="${SCRIPT_DIR}/.."
source "${SCRIPT_DIR}/lib/common.sh"

build_binaries() {
  ensure_go
  local out="${REPO_ROOT}/bin"
  log_info "building into ${out}"
}

build_binaries
"${REPO_ROOT}/scripts/release.sh" --dry-run
bash hack/verify.sh
exec ./scripts/notes
"""
RELEASE_SH = """#!/bin/sh
\\. "$(dirname "$0")/../hack/lib/common.sh"

push_images() {
  log_info "pushing to ${REGISTRY}"
  docker push "${REGISTRY}/app"
}

push_images "$@"
"""
VERIFY_SH = """. "${BASH_SOURCE%/*}/lib/common.sh"
ensure_go
"""
#: sources a library behind a variable set elsewhere
TOOL = """#!/usr/bin/env -S bash -e
source "${ACME_HOME}/hack/lib/common.sh"
log_info "tool"
"""
NOTES = "#!/usr/bin/env python3\nprint('notes')\n"
RELEASE_TEST_SH = """#!/usr/bin/env bash
. "$(git rev-parse --show-toplevel)/scripts/release.sh"
push_images --dry-run
"""
#: says the words of a task about ``push_images`` and calls it (read as text, it wins)
PUBLISH_SH = """#!/usr/bin/env bash
# publish: docker push the images, or only print them on a dry run
# a dry run shows what docker push would push; then push for real
source "$(dirname "$0")/release.sh"
echo "dry run: docker push skipped" && push_images --dry-run
echo "docker push" && push_images
"""


def make_shell_project(root: Path) -> None:
    write(root, "hack/lib/common.sh", COMMON_SH)
    write(root, "hack/build.sh", BUILD_SH)
    write(root, "hack/verify.sh", VERIFY_SH)
    write(root, "scripts/release.sh", RELEASE_SH)
    write(root, "scripts/notes", NOTES)
    write(root, "bin/tool.sh", TOOL)
    write(root, "test/release_test.sh", RELEASE_TEST_SH)


def test_functions_and_configuration_variables_are_symbols() -> None:
    common = extract_shell.extract(COMMON_SH.encode())
    assert symbol_spans(common) == {
        "REGISTRY": ("variable", 3, True),  # exported: the environment of what it runs
        "GO_VERSION": ("variable", 4, False),
        "log_info": ("function", 6, True),
        "ensure_go": ("function", 10, True),
        "_trim": ("function", 14, False),  # a leading underscore: a private helper
    }
    build = extract_shell.extract(BUILD_SH.encode())
    # variables of paths are symbols too; a function's locals are not
    assert set(symbol_spans(build)) == {"SCRIPT_DIR", "REPO_ROOT", "build_binaries"}
    assert {"ensure_go", "log_info", "build_binaries"} <= set(build["calls"])
    assert "GO_VERSION" in common["refs"] and "REPO_ROOT" in build["refs"]


def test_sourced_and_run_paths_are_read_as_the_shell_builds_them() -> None:
    build = extract_shell.extract(BUILD_SH.encode())
    assert [(i["module"], i["kind"]) for i in build["imports"]] == [
        ("<here>/lib/common.sh", "source"),  # $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
        ("<here>/../scripts/release.sh", "run"),  # through REPO_ROOT="${SCRIPT_DIR}/.."
        ("hack/verify.sh", "run"),  # run by a shell: a literal path
        ("./scripts/notes", "run"),  # after ``exec``
    ]
    release = extract_shell.extract(RELEASE_SH.encode())
    # ``\\.`` is the ``.`` command (nvm's way to dodge an alias)
    assert release["imports"][0]["module"] == "<here>/../hack/lib/common.sh"
    verify = extract_shell.extract(VERIFY_SH.encode())
    assert verify["imports"][0]["module"] == "<here>/lib/common.sh"
    tool = extract_shell.extract(TOOL.encode())
    assert tool["imports"][0]["module"] == "<?>/hack/lib/common.sh"
    test = extract_shell.extract(RELEASE_TEST_SH.encode())
    assert test["imports"][0]["module"] == "<root>/scripts/release.sh"
    # a loop variable, a folder, ``bash -c`` and an absolute path outside are no file
    dynamic = 'for f in "$DIR"/*.sh; do . "$f"; done\nbash -c "x.sh"\n. /etc/os-release\n'
    assert [i["module"] for i in extract_shell.extract(dynamic.encode())["imports"]] == [
        "/etc/os-release"
    ]


def test_sources_runs_and_calls_link_scripts(repo: Path) -> None:
    make_shell_project(repo)
    write(repo, "scripts/publish.sh", PUBLISH_SH)
    write(repo, "hack/broken.sh", "deploy() {\n  echo hi\n}\n\nif then\n")
    # a script without a suffix keeps its file node only: measured, its words (vendored
    # copies, test scripts) outranked the scripts tasks change
    write(repo, "bin/legacy", "#!/bin/bash\nlegacy_main() { :; }\n")
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert graph.nodes["src:bin/legacy"].attrs["language"] == "other"
    assert "sym:bin/legacy#legacy_main" not in graph.nodes
    common = "src:hack/lib/common.sh"
    for script in ("hack/build.sh", "hack/verify.sh", "scripts/release.sh", "bin/tool.sh"):
        assert (f"src:{script}", common, "imports") in edges
    # a script run is a call of that file, never an import of its functions
    assert ("src:hack/build.sh", "src:scripts/release.sh", "calls") in edges
    assert ("src:hack/build.sh", "src:hack/verify.sh", "calls") in edges
    assert ("src:hack/build.sh", "src:scripts/notes", "calls") in edges
    assert not any(
        s == "src:hack/build.sh" and t.startswith("sym:scripts/release.sh#") for s, t, _ in edges
    )
    # calls resolve in the files sourced, and in what those source
    assert ("src:hack/build.sh", "sym:hack/lib/common.sh#ensure_go", "calls") in edges
    assert ("src:scripts/publish.sh", "sym:scripts/release.sh#push_images", "calls") in edges
    assert ("src:scripts/release.sh", "sym:hack/lib/common.sh#REGISTRY", "references") in edges
    # a test sourcing the script tests it
    assert ("src:test/release_test.sh", "src:scripts/release.sh", "tests") in edges
    # a script the grammar cannot fully read keeps its functions, with no note
    assert "sym:hack/broken.sh#deploy" in graph.nodes
    assert "note" not in graph.nodes["src:hack/broken.sh"].attrs
