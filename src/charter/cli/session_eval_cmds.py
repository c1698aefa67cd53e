"""CLI of the session replay benchmark: ``charter eval session``.

The replay itself lives in :mod:`charter.eval.session_replay`; this module parses the
options, shows progress, prints one Rich row per session plus hook latency and a summary
line, and exits 0 only when every bar holds, so it works as a CI gate.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from charter.cli.common import console, emit_json, err_console
from charter.errors import CharterError


def default_charter_cmd() -> list[str]:
    """The ``charter`` installed next to this interpreter, else ``python -m charter``."""
    beside = Path(sys.executable).with_name("charter")
    return [str(beside)] if beside.is_file() else [sys.executable, "-P", "-m", "charter"]


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    del app  # only an eval command

    @eval_app.command("session")
    def eval_session(
        data: Path = typer.Option(..., "--data", help="dir of <key>/transcript.jsonl + labels"),
        as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
        runs: int = typer.Option(2, "--runs", min=1, max=5, help="replays per session"),
        only: list[str] = typer.Option(None, "--only", help="session keys (repeat or a,b)"),
        jobs: int = typer.Option(1, "--jobs", min=1, max=32, help="sessions in parallel"),
        charter_bin: str | None = typer.Option(
            None, "--charter-bin", help='command to test, e.g. "python -m charter"'
        ),
        keep: Path | None = typer.Option(None, "--keep", help="keep each replay's dirs here"),
        event_names: str = typer.Option("kebab", "--event-names", help="kebab|pascal"),
        failures: str = typer.Option(
            "failure", "--failures", help="failure|post (post: no post-tool-use-failure hook)"
        ),
        timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="seconds per hook call"),
        min_plan: float = typer.Option(1.0, "--min-plan", help="bar: pooled plan fidelity"),
        min_determinism: float = typer.Option(
            1.0, "--min-determinism", help="bar: replays that agree"
        ),
        min_edited: float = typer.Option(0.95, "--min-edited", help="bar: edited-file recall"),
        min_constraints: float = typer.Option(
            0.80, "--min-constraints", help="bar: user-constraint recall"
        ),
        max_crashes: int = typer.Option(0, "--max-crashes", help="bar: hook crashes"),
        max_context_ratio: float = typer.Option(
            0.10, "--max-context-ratio", help="bar: visible / transcript tokens"
        ),
        min_tests: float | None = typer.Option(
            None, "--min-tests", help="optional bar: test-run recall"
        ),
        max_blocks: int | None = typer.Option(
            None, "--max-blocks", help="optional bar: exit-2 blocks"
        ),
    ) -> None:
        """Replay real Claude Code sessions through the hooks and score what is recovered."""
        from charter.eval.session_replay import Bars, ReplayOptions, evaluate_sessions

        if event_names not in ("kebab", "pascal"):
            raise CharterError(f"--event-names must be kebab or pascal, not {event_names!r}")
        if failures not in ("failure", "post"):
            raise CharterError(f"--failures must be failure or post, not {failures!r}")
        try:
            cmd = shlex.split(charter_bin) if charter_bin else default_charter_cmd()
        except ValueError as exc:
            raise CharterError(f"--charter-bin: {exc}") from None
        if not cmd:
            raise CharterError("--charter-bin is empty")
        keys = [k.strip() for item in only or [] for k in item.split(",") if k.strip()]
        opts = ReplayOptions(
            charter_cmd=cmd,
            runs=runs,
            jobs=jobs,
            event_names=event_names,
            failures=failures,
            timeout=timeout,
            keep=keep.resolve() if keep else None,
            bars=Bars(
                min_plan=min_plan,
                min_determinism=min_determinism,
                min_edited=min_edited,
                min_constraints=min_constraints,
                max_crashes=max_crashes,
                max_context_ratio=max_context_ratio,
                min_tests=min_tests,
                max_blocks=max_blocks,
            ),
        )
        with err_console.status("replaying sessions…") as status:
            result = evaluate_sessions(data, opts, keys, lambda msg: status.update(msg))
        if as_json:
            emit_json(result)
        else:
            print_report(result)
        raise SystemExit(0 if result["overall"]["pass"] else 1)


def print_report(result: dict[str, Any]) -> None:
    table = Table(
        title=f"Session replay: {result['overall']['point_count']} points, "
        f"{result['runs']} run(s) per session",
        caption="edit/test/cons: recall of edited files, test runs, user constraints; "
        "ctx: visible/transcript tokens; det: identical replays",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    width = max([len(k) for k in result["sessions"]] + [6])
    table.add_column("session", no_wrap=True, min_width=min(width, 24), overflow="ellipsis")
    for col in ("plan", "edit", "test", "cons", "ctx", "det", "crash", "blk"):
        table.add_column(col, justify="right", no_wrap=True)

    def cells(row: dict[str, Any]) -> list[str]:
        return [
            _fmt(row["plan_fidelity"]),
            _fmt(row["edited_recall"]),
            _fmt(row["test_recall"]),
            _fmt(row["constraint_recall"]),
            _fmt(row["context_ratio"]),
            _fmt(row["determinism"]),
            str(row["crashes"]),
            str(row["blocks"]),
        ]

    for key, row in result["sessions"].items():
        table.add_row(escape(key), *cells(row))
    overall = result["overall"]
    table.add_row("[bold]pooled[/bold]", *cells(overall))
    console.print(table)
    lat = Table(title="Hook latency (ms, wall, all replays)", box=box.SIMPLE_HEAD)
    for col in ("event", "calls", "p50", "p90"):
        lat.add_column(col, justify="right" if col != "event" else "left")
    for event, row in overall["latency_ms"].items():
        lat.add_row(event, str(row["n"]), _fmt(row["p50"], 1), _fmt(row["p90"], 1))
    console.print(lat)
    for key, row in result["sessions"].items():
        for crash in row["crash_examples"]:
            console.print(
                f"[red]crash[/red] {escape(key)} line {crash['line']} {crash['event']}: "
                f"{crash['reason']}: {escape(crash['stderr'].strip()[-200:])}",
                soft_wrap=True,
            )
    if overall["recover_failures"]:
        console.print(
            f"[yellow]note[/yellow]: `session recover --json` gave no JSON at "
            f"{overall['recover_failures']} of {overall['point_count']} points"
        )
    verdict = "PASS" if overall["pass"] else "FAIL " + "; ".join(overall["failed_bars"])
    console.print(
        f"session plan {_fmt(overall['plan_fidelity'])} edited {_fmt(overall['edited_recall'])} "
        f"tests {_fmt(overall['test_recall'])} constraints {_fmt(overall['constraint_recall'])} "
        f"ctx/transcript {_fmt(overall['context_ratio'])} determinism "
        f"{_fmt(overall['determinism'])} crashes {overall['crashes']} {verdict}",
        soft_wrap=True,
    )
