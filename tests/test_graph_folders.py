"""A folder the task names by its path ("bindings/rust: expose …", a commit's scope in
a Rust workspace) points at the files under it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from charter.graph.query import parse_task
from tests.conftest import task_context_paths, write

Run = Callable[..., subprocess.CompletedProcess[str]]


def _workspace(root: Path) -> None:
    write(
        root,
        "bindings/rust/src/lib.rs",
        "pub struct Builder { path: String }\n"
        "impl Builder {\n"
        "    pub fn new(path: &str) -> Self { Builder { path: path.to_string() } }\n"
        "    pub fn build(self) -> Database { Database::open(&self.path) }\n"
        "}\n",
    )
    write(
        root,
        "bindings/python/src/lib.rs",
        "pub fn connect(path: &str, read_only: bool) -> Connection { open_database(path) }\n",
    )
    write(
        root,
        "sync/sdk-kit/src/bindings.rs",
        "/// Database opens for the bindings: read-only or read-write.\n"
        "pub fn database_open(path: &str, read_only: bool) -> Database {\n"
        "    Database::open_with(path, read_only)\n}\n"
        "pub fn expose_bindings() {}\n",
    )
    write(
        root,
        "core/database.rs",
        "pub struct Database;\nimpl Database {\n"
        "    pub fn open(path: &str) -> Self { Database }\n"
        "    pub fn open_with(path: &str, read_only: bool) -> Self { Database }\n}\n",
    )


def test_a_folder_named_in_the_task_ranks_its_files(repo: Path, run_charter: Run) -> None:
    """A Rust workspace's commits are scoped by folder ("bindings/rust: expose read-only
    database opens"); the file the commit changed ranked under a file elsewhere that
    holds more of the words (commit localization on that workspace: 11 → 14 of 15 in the
    top 10)."""
    _workspace(repo)
    paths = task_context_paths(run_charter, repo, "bindings/rust: expose read-only database opens")
    assert paths[0] == "bindings/rust/src/lib.rs", paths
    # named by its tail ("rust" under one folder only), too
    paths = task_context_paths(run_charter, repo, "in rust/src, expose read-only database opens")
    assert paths[0] == "bindings/rust/src/lib.rs", paths


def test_folder_paths_are_read_from_the_task() -> None:
    assert parse_task("sqlite/parser: accept a suffix").folders == ["sqlite/parser"]
    assert parse_task("fix core/json/ and then core/vdbe").folders == ["core/json", "core/vdbe"]
    # files, URLs and dotted paths are not folders
    assert parse_task("see docs/testing.md and https://x.io/a/b").folders == []


def test_a_path_of_any_file_type_named_in_the_task_ranks_that_file(
    repo: Path, run_charter: Run
) -> None:
    """ "publishDir of the registration step writes to the wrong folder; fix
    conf/modules.config": a Nextflow pipeline's configuration and processes are
    `.config` and `.nf` files, and a path naming one was read as words only, so a guide
    holding more of them ranked above it. A path with a folder names a file whatever
    its extension when the project has one there; one it has not names nothing."""
    write(
        repo,
        "GUIDE.md",
        "# Pipeline guide\n\nThe registration step writes its output with publishDir; "
        "fix the folder in the modules config when the registration output is wrong.\n"
        "Every publishDir of every step writes to a folder.\n",
    )
    write(repo, "conf/modules.config", "process { withName: REGISTER { publishDir = 'x' } }\n")
    write(repo, "modules/local/register.nf", "process REGISTER {\n  script:\n  'run'\n}\n")
    write(repo, "bin/register.py", "def register(folder):\n    return folder\n")
    task = "publishDir of the registration step writes to the wrong folder; fix conf/modules.config"
    assert parse_task(task).paths == ["conf/modules.config"]
    assert parse_task("edit modules/local/register.nf").paths == ["modules/local/register.nf"]
    paths = task_context_paths(run_charter, repo, task)
    assert paths[0] == "conf/modules.config", paths
    assert "github.com/a/b.git" in parse_task("see github.com/a/b.git").paths  # named, finds none


def test_a_file_written_beside_another_and_named_after_it_does_not_shadow_it(
    repo: Path, run_charter: Run
) -> None:
    # Unity writes a `.meta` beside every script and asset, Godot a `.uid` beside every
    # script: the task's words find both by the shared name, and each file came twice
    write(
        repo,
        "Assets/Scripts/PlayerJump.cs",
        "public class PlayerJump : MonoBehaviour {\n"
        "    public float jumpHeight = 2f;\n"
        '    void Update() { if (Input.GetButtonDown("Jump")) Jump(); }\n'
        "    void Jump() { body.velocity = Vector3.up * jumpHeight; }\n"
        "}\n",
    )
    write(repo, "Assets/Scripts/PlayerJump.cs.meta", "fileFormatVersion: 2\nguid: 0a1b2c3d4e\n")
    write(
        repo,
        "scripts/snake.gd",
        "extends Node2D\nvar speed := 4.0\nfunc level_up():\n\tspeed *= 1.5\n",
    )
    write(repo, "scripts/snake.gd.uid", "uid://b2k3x9q0\n")
    write(repo, "scripts/food.gd", "extends Node2D\nfunc eaten():\n\tqueue_free()\n")
    paths = task_context_paths(run_charter, repo, "The playerjump height is too high")
    assert paths[0] == "Assets/Scripts/PlayerJump.cs"
    assert "Assets/Scripts/PlayerJump.cs.meta" not in paths
    paths = task_context_paths(run_charter, repo, "The snake speeds up too fast on level_up")
    assert "scripts/snake.gd" in paths and "scripts/snake.gd.uid" not in paths
    # alone, with no file it is named after, such a file still ranks
    (repo / "scripts/snake.gd").unlink()
    assert "scripts/snake.gd.uid" in task_context_paths(run_charter, repo, "snake uid")


def test_gdscript_is_read_as_the_projects_code(repo: Path, run_charter: Run) -> None:
    # Godot's scripts were neither indexed by search nor weighed as source files: a task
    # about the game's speed ranked the README first and the script that sets it nowhere
    write(repo, "README.md", "# Snake\n\nThe snake speeds up with each level.\n")
    write(
        repo,
        "scripts/game_manager.gd",
        "extends Node\nconst BASE_TICK_SPEED: float = 0.15\nconst SPEED_SCALE: float = 0.95\n"
        "func get_tick_speed() -> float:\n\treturn BASE_TICK_SPEED * pow(SPEED_SCALE, level)\n",
    )
    write(repo, "scripts/food.gd", "extends Node2D\nfunc eaten():\n\tqueue_free()\n")
    paths = task_context_paths(run_charter, repo, "The tick speed scale is too aggressive")
    assert paths[0] == "scripts/game_manager.gd"
    done = run_charter("index", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "*.gd" not in done.stdout  # not listed as a type search skips


def test_a_task_written_in_chinese_ranks_the_files_that_say_it(
    tmp_path: Path, run_charter: Run
) -> None:
    """Trae's and Qwen Code's users write rules, documents and tasks in Chinese: a task
    without a Latin word ("给订单模块新增分页查询接口", add a paged query endpoint to the
    order module) gave the graph no term, and task context was empty unless a search
    index existed. Pairs of characters are its terms, matched in documents and comments."""
    root = tmp_path / "repo"
    write(
        root,
        "src/module/order/order.service.ts",
        "// 订单服务：分页查询订单列表\n"
        "export class OrderService {\n  findPage(page: number) { return [] }\n}\n",
    )
    write(
        root, "src/module/user/user.service.ts", "// 用户登录与注册\nexport class UserService {}\n"
    )
    write(
        root, "doc/接口说明.md", "# 接口说明\n\n订单模块的分页查询接口返回 code、message、data。\n"
    )
    write(root, "README.md", "# Shop\n\nA small shop server.\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    paths = task_context_paths(run_charter, root, "给订单模块新增分页查询接口")
    assert paths[:2] and set(paths[:2]) <= {"src/module/order/order.service.ts", "doc/接口说明.md"}
    assert "src/module/user/user.service.ts" not in paths[:2]
    assert parse_task("给订单模块新增分页查询接口").keywords[:3] == ["给订", "订单", "单模"]
