"""Scoring a session replay: per point, per session, pooled, and the pass bars.

The replay (:mod:`charter.eval.session_replay`) records what Charter gave back at each
point; this module turns that into the benchmark's figures using the label semantics of
:mod:`charter.eval.session_metrics`. Pooled figures are micro-averages over points, each
metric over the points where it is defined (a point with no labelled plan does not
count for plan fidelity).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from charter.eval import session_metrics as sm

MAX_EXAMPLES = 5


@dataclass
class Bars:
    """The pass bars; None switches a bar off."""

    min_plan: float | None = 1.0
    min_determinism: float | None = 1.0
    min_edited: float | None = 0.95
    min_constraints: float | None = 0.80
    max_crashes: int | None = 0
    max_context_ratio: float | None = 0.10
    min_tests: float | None = None
    max_blocks: int | None = None


@dataclass
class CallStats:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    calls: int = 0
    crashes: int = 0
    blocks: int = 0
    crash_examples: list[dict[str, Any]] = field(default_factory=list)
    block_examples: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class PointOutput:
    id: str
    line: int
    additional_context: str
    recover: dict[str, Any]
    recover_ok: bool
    masked: str  # recover stdout + additionalContext with temp paths masked
    transcript_chars: int


@dataclass
class RunOutput:
    """What one replay of a session produced: its points, hook figures, project path."""

    points: list[PointOutput]
    stats: CallStats
    project: str


def score_session(
    labels: dict[str, Any], uuid_lines: dict[str, int], runs: list[RunOutput], seconds: float
) -> dict[str, Any]:
    """Per-point metrics of the first replay, determinism across replays, hook figures."""
    mech = labels.get("mechanical") or {}
    label_points = [p for p in mech.get("points") or [] if isinstance(p, dict)]
    hand = [
        c for c in (labels.get("hand") or {}).get("user_constraints") or [] if isinstance(c, dict)
    ]
    first = runs[0]
    got = {p.id: p for p in first.points}
    by_line = {p.line: p for p in first.points}
    points = []
    for label in label_points:
        pid = str(label.get("id"))
        out = got.get(pid) or by_line.get(int(label.get("line") or -1))
        points.append(_score_point(label, hand, uuid_lines, out, first, runs))
    stats = merge_stats([r.stats for r in runs])
    row = pool(points)
    row.update(
        {
            "points": points,
            "hook_calls": stats.calls,
            "crashes": stats.crashes,
            "blocks": stats.blocks,
            "crash_examples": stats.crash_examples,
            "block_examples": stats.block_examples,
            "latency_ms": latency(stats.latencies),
            "recover_failures": sum(1 for p in first.points if not p.recover_ok),
            "seconds": round(seconds, 2),
        }
    )
    return row


def _score_point(
    label: dict[str, Any],
    hand: list[dict[str, Any]],
    uuid_lines: dict[str, int],
    out: PointOutput | None,
    first: RunOutput,
    runs: list[RunOutput],
) -> dict[str, Any]:
    recover = out.recover if out else {}
    text = recover.get("text") if isinstance(recover.get("text"), str) else ""
    visible = ((out.additional_context if out else "") + "\n" + str(text)).strip()
    plan, plan_unordered = sm.plan_scores(label.get("plan"), recover.get("plan"))
    files = [str(f) for f in label.get("edited_files") or []]
    edited = sm.edited_found(files, recover.get("edited_files"), visible, str(first.project))
    tests = sm.tests_found(
        [t for t in label.get("test_runs") or [] if isinstance(t, dict)], recover.get("test_runs")
    )
    held = sm.constraints_in_force(label, hand, uuid_lines)
    found = sm.constraints_found(held, visible)
    deterministic: bool | None = None
    if len(runs) > 1:
        outs = [next((p for p in r.points if out and p.id == out.id), None) for r in runs]
        deterministic = out is not None and all(
            o is not None and o.masked == out.masked for o in outs
        )
    transcript_tokens = (out.transcript_chars + 3) // 4 if out else 0
    visible_tokens = sm.tokens_of(visible)
    return {
        "id": str(label.get("id")),
        "line": label.get("line"),
        "replayed": out is not None,
        "recover_ok": bool(out and out.recover_ok),
        "plan": plan,
        "plan_unordered": plan_unordered,
        "edited_found": sum(edited),
        "edited_total": len(edited),
        "edited_missing": [f for f, ok in zip(files, edited, strict=True) if not ok][:20],
        "tests_found": sum(tests),
        "tests_total": len(tests),
        "constraints_found": sum(found.values()),
        "constraints_total": len(found),
        "constraints_missing": [k for k, ok in found.items() if not ok],
        "visible_tokens": visible_tokens,
        "transcript_tokens": transcript_tokens,
        "context_ratio": sm.ratio(visible_tokens, transcript_tokens),
        "deterministic": deterministic,
    }


def pool(points: list[dict[str, Any]]) -> dict[str, Any]:
    """Micro-averages over points (each metric over the points where it is defined)."""
    plans = [p["plan"] for p in points if p["plan"] is not None]
    plans_u = [p["plan_unordered"] for p in points if p["plan_unordered"] is not None]
    ratios = [p["context_ratio"] for p in points if p["context_ratio"] is not None]
    dets = [p["deterministic"] for p in points if p["deterministic"] is not None]

    def frac(key: str) -> float | None:
        return sm.ratio(
            sum(p[f"{key}_found"] for p in points), sum(p[f"{key}_total"] for p in points)
        )

    return {
        "point_count": len(points),
        "plan_fidelity": sm.ratio(sum(plans), len(plans)),
        "plan_fidelity_unordered": sm.ratio(sum(plans_u), len(plans_u)),
        "edited_recall": frac("edited"),
        "test_recall": frac("tests"),
        "constraint_recall": frac("constraints"),
        "visible_tokens": sum(p["visible_tokens"] for p in points),
        "transcript_tokens": sum(p["transcript_tokens"] for p in points),
        "context_ratio": sm.ratio(sum(ratios), len(ratios)),
        "context_ratio_max": max(ratios) if ratios else None,
        "determinism": sm.ratio(sum(1 for d in dets if d), len(dets)),
    }


def latency(samples: dict[str, list[float]]) -> dict[str, dict[str, float | int | None]]:
    return {
        event: {
            "n": len(values),
            "p50": _round(sm.percentile(values, 50)),
            "p90": _round(sm.percentile(values, 90)),
        }
        for event, values in sorted(samples.items())
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def merge_stats(all_stats: list[CallStats]) -> CallStats:
    merged = CallStats()
    for stats in all_stats:
        merged.calls += stats.calls
        merged.crashes += stats.crashes
        merged.blocks += stats.blocks
        merged.crash_examples.extend(stats.crash_examples)
        merged.block_examples.extend(stats.block_examples)
        for event, values in stats.latencies.items():
            merged.latencies.setdefault(event, []).extend(values)
    merged.crash_examples = merged.crash_examples[:MAX_EXAMPLES]
    merged.block_examples = merged.block_examples[:MAX_EXAMPLES]
    return merged


def check_bars(overall: dict[str, Any], bars: Bars, runs: int) -> list[str]:
    """Names of the bars that do not hold (a metric with no scored point holds vacuously)."""
    failed = []

    def low(name: str, metric: str, bar: float | None) -> None:
        value = overall.get(metric)
        if bar is not None and value is not None and value < bar - 1e-12:
            failed.append(f"{name} {value:.3f} < {bar:g}")

    def high(name: str, metric: str, bar: float | None) -> None:
        value = overall.get(metric)
        if bar is not None and value is not None and value > bar + 1e-12:
            failed.append(f"{name} {value:g} > {bar:g}")

    low("plan", "plan_fidelity", bars.min_plan)
    if runs > 1:
        low("determinism", "determinism", bars.min_determinism)
    low("edited", "edited_recall", bars.min_edited)
    low("constraints", "constraint_recall", bars.min_constraints)
    low("tests", "test_recall", bars.min_tests)
    high("crashes", "crashes", bars.max_crashes)
    high("blocks", "blocks", bars.max_blocks)
    high("ctx/transcript", "context_ratio", bars.max_context_ratio)
    return failed
