"""Synthetic Claude Code sessions and a stand-in ``charter`` for the session replay tests.

The transcripts follow Claude Code's JSONL format as found in real files (one line per
content block, tool results in later user entries with ``toolUseResult``, a
``compact_boundary`` followed by the summary). The stand-in is a small Python program
that records every hook payload it receives (with what it could observe at that moment)
and answers ``session recover --json`` from them, so the harness can be checked end to
end without the session capability.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

SESSION_A = "a-todos"
SESSION_B = "b-tasks"
PYTEST = "python -m pytest -q tests"


class Transcript:
    """Builds a transcript line by line; remembers the line number of each named line."""

    def __init__(self, session_id: str, cwd: str, version: str) -> None:
        self.session_id, self.cwd, self.version = session_id, cwd, version
        self.lines: list[dict[str, Any]] = []
        self.marks: dict[str, int] = {}
        self._n = 0
        self._parent: str | None = None

    def _base(self, kind: str) -> dict[str, Any]:
        self._n += 1
        uuid = f"{self.session_id}-{self._n:04d}"
        entry = {
            "parentUuid": self._parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": f"2026-01-01T10:{self._n // 60:02d}:{self._n % 60:02d}.000Z",
        }
        self._parent = uuid
        return entry

    def add(self, entry: dict[str, Any], mark: str | None = None) -> dict[str, Any]:
        self.lines.append(entry)
        if mark:
            self.marks[mark] = len(self.lines)
        return entry

    def prompt(self, text: str, mark: str | None = None, **extra: Any) -> dict[str, Any]:
        entry = self._base("user")
        entry["message"] = {"role": "user", "content": text}
        entry["permissionMode"] = "acceptEdits"
        entry.update(extra)
        return self.add(entry, mark)

    def assistant(self, msg_id: str, block: dict[str, Any], mark: str | None = None) -> None:
        entry = self._base("assistant")
        entry["message"] = {
            "model": "claude-test-1",
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
        }
        self.add(entry, mark)

    def text(self, msg_id: str, text: str) -> None:
        self.assistant(msg_id, {"type": "text", "text": text})

    def tool(self, msg_id: str, tool_id: str, name: str, tool_input: dict[str, Any]) -> None:
        self.assistant(
            msg_id, {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
        )

    def result(
        self,
        tool_id: str,
        content: str,
        structured: Any = None,
        is_error: bool = False,
        mark: str | None = None,
    ) -> None:
        entry = self._base("user")
        entry["message"] = {
            "role": "user",
            "content": [
                {
                    "tool_use_id": tool_id,
                    "type": "tool_result",
                    "content": content,
                    "is_error": is_error,
                }
            ],
        }
        if structured is not None:
            entry["toolUseResult"] = structured
        self.add(entry, mark)

    def compact(self, trigger: str, summary: str) -> None:
        entry = self._base("system")
        entry.update(
            {
                "parentUuid": None,
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": {"trigger": trigger, "preTokens": 12345},
            }
        )
        self.add(entry, "boundary")
        user = self._base("user")
        user["message"] = {"role": "user", "content": summary}
        user["isCompactSummary"] = True
        user["isVisibleInTranscriptOnly"] = True
        self.add(user, "summary")

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as handle:
            for entry in self.lines:
                handle.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")


def _todos(*items: tuple[str, str]) -> list[dict[str, str]]:
    return [{"content": c, "status": s, "activeForm": c} for c, s in items]


def session_a(data: Path) -> dict[str, Any]:
    """A 2.0-style session: TodoWrite plan, an Edit, pytest failing then passing, a resume
    copy of the first exchange, a manual compaction, a second prompt."""
    cwd = "/home/alice/proj"
    t = Transcript("aaaa-1111", cwd, "2.0.30")
    t.add({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}})
    t.prompt("Add a greeting module. Always use type hints and never print to stdout.", mark="p1")
    t.text("m1", "I'll plan the work first.")
    plan1 = _todos(("Write greet.py", "in_progress"), ("Run the tests", "pending"))
    t.tool("m1", "t1", "TodoWrite", {"todos": plan1})
    t.result("t1", "Todos have been modified successfully.", {"oldTodos": [], "newTodos": plan1})
    old, new = "def greet():\n    pass\n", "def greet() -> str:\n    return 'hi'\n"
    edit = {"file_path": f"{cwd}/src/greet.py", "old_string": old, "new_string": new}
    t.tool("m2", "t2", "Edit", edit)
    t.result(
        "t2",
        f"The file {cwd}/src/greet.py has been updated.",
        {
            "filePath": f"{cwd}/src/greet.py",
            "oldString": old,
            "newString": new,
            "originalFile": "# greetings\n" + old,
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": False,
        },
        mark="edit_result",
    )
    t.tool("m3", "t3", "Bash", {"command": PYTEST, "description": "Run tests"})
    t.result("t3", "Exit code 1\n1 failed", "Error: Exit code 1\n1 failed", is_error=True)
    t.tool("m4", "t4", "Bash", {"command": PYTEST})
    t.result("t4", "1 passed", {"stdout": "1 passed", "stderr": "", "interrupted": False})
    t.text("m5", "Done: greet() is typed and the tests pass.")
    # A resume copy (2.0.x): the first exchange again, new uuids, same message/tool ids.
    t.prompt("Add a greeting module. Always use type hints and never print to stdout.", mark="copy")
    t.text("m1", "I'll plan the work first.")
    t.tool("m1", "t1", "TodoWrite", {"todos": plan1})
    t.result("t1", "Todos have been modified successfully.", {"oldTodos": [], "newTodos": plan1})
    t.compact("manual", "This session is being continued from a previous conversation.")
    t.prompt("Now add a farewell function, keep it in greet.py please.", mark="p2")
    plan2 = _todos(
        ("Write greet.py", "completed"),
        ("Run the tests", "completed"),
        ("Add farewell()", "in_progress"),
    )
    t.tool("m6", "t5", "TodoWrite", {"todos": plan2})
    t.result("t5", "Todos have been modified successfully.", {"oldTodos": plan1, "newTodos": plan2})
    t.text("m7", "Added farewell().")
    directory = data / SESSION_A
    t.write(directory / "transcript.jsonl")
    plain = [{"content": x["content"], "status": x["status"]} for x in plan1]
    plain2 = [{"content": x["content"], "status": x["status"]} for x in plan2]
    labels = {
        "schema": "charter-session-labels/1",
        "key": SESSION_A,
        "session_id": t.session_id,
        "cwd": cwd,
        "mechanical": {
            "points": [
                {
                    "id": "c1",
                    "kind": "compaction",
                    "line": t.marks["boundary"],
                    "trigger": "manual",
                    "plan": plain,
                    "edited_files": ["src/greet.py"],
                    "test_runs": [{"command": PYTEST, "outcome": "pass", "runs": 2}],
                    "user_constraints": ["u1"],
                },
                {
                    "id": "end",
                    "kind": "end",
                    "line": len(t.lines) + 1,
                    "trigger": "auto",
                    "plan": plain2,
                    "edited_files": ["src/greet.py"],
                    "test_runs": [{"command": PYTEST, "outcome": "pass", "runs": 2}],
                    "user_constraints": ["u1", "u2"],
                },
            ]
        },
        "hand": {
            "user_constraints": [
                {"id": "u1", "message_line": t.marks["p1"], "key_terms": ["never print to stdout"]},
                {"id": "u2", "message_line": t.marks["p2"], "key_terms": ["keep it in greet.py"]},
            ]
        },
    }
    (directory / "labels.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")
    return {"transcript": t, "labels": labels}


def session_b(data: Path) -> dict[str, Any]:
    """A 2.1-style session on Windows: TaskCreate (ids out of order) / TaskUpdate, a Write."""
    cwd = "C:\\Users\\bob\\app"
    t = Transcript("bbbb-2222", cwd, "2.1.60")
    t.prompt("Build the CLI with Typer. Use Rich for the output.", mark="p1")
    t.tool("m1", "ta", "TaskCreate", {"subject": "Scaffold CLI", "description": "typer app"})
    t.tool("m1", "tb", "TaskCreate", {"subject": "Write docs", "description": "README"})
    t.result("tb", "Task #2 created", {"task": {"id": "2", "subject": "Write docs"}})
    t.result("ta", "Task #1 created", {"task": {"id": "1", "subject": "Scaffold CLI"}})
    t.tool("m2", "tc", "TaskUpdate", {"taskId": "1", "status": "completed"})
    t.result("tc", "Updated", {"success": True, "taskId": "1", "statusChange": {"to": "completed"}})
    write = {"file_path": "C:\\Users\\bob\\app\\cli\\main.py", "content": "import typer\n"}
    t.tool("m3", "tw", "Write", write)
    t.result(
        "tw",
        "File created successfully at: C:\\Users\\bob\\app\\cli\\main.py",
        {"type": "create", "filePath": write["file_path"], "content": write["content"]},
    )
    t.text("m4", "The CLI skeleton is in cli/main.py.")
    directory = data / SESSION_B
    t.write(directory / "transcript.jsonl")
    labels = {
        "key": SESSION_B,
        "session_id": t.session_id,
        "cwd": cwd,
        "mechanical": {
            "points": [
                {
                    "id": "end",
                    "kind": "end",
                    "line": len(t.lines) + 1,
                    "plan": [
                        {"content": "Scaffold CLI", "status": "completed"},
                        {"content": "Write docs", "status": "pending"},
                    ],
                    "edited_files": ["cli/main.py"],
                    "test_runs": [],
                    "user_constraints": ["u1"],
                }
            ]
        },
        "hand": {"user_constraints": [{"id": "u1", "message_line": 1, "key_terms": ["Rich"]}]},
    }
    (directory / "labels.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")
    return {"transcript": t, "labels": labels}


STAND_IN = textwrap.dedent(
    r'''
    """A stand-in charter: records hook payloads, answers `session recover --json`."""
    import json, os, random, re, sys, time

    MODE = set(os.environ.get("STANDIN_MODE", "good").split(","))
    PROJECT = os.environ["CLAUDE_PROJECT_DIR"]
    LOG = os.path.join(PROJECT, ".standin", "log.jsonl")


    def records():
        if not os.path.exists(LOG):
            return []
        with open(LOG, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]


    def state():
        plan, tasks, edited, tests, prompts = [], {}, [], {}, []
        for rec in records():
            event, p = rec["event"], rec["payload"]
            if event == "user-prompt-submit":
                prompts.append(p["prompt"])
            name = p.get("tool_name")
            if event == "pre-tool-use" and name == "TodoWrite":
                todos = p["tool_input"]["todos"]
                plan = [{"content": t["content"], "status": t["status"]} for t in todos]
            failed = isinstance(p.get("tool_response"), dict) and p["tool_response"].get("is_error")
            if failed:
                event = "post-tool-use-failure"
            if event == "post-tool-use" and name == "TaskCreate":
                task = p["tool_response"]["task"]
                tasks[task["id"]] = {"content": task["subject"], "status": "pending"}
            if event == "post-tool-use" and name == "TaskUpdate":
                tasks[p["tool_input"]["taskId"]]["status"] = p["tool_input"]["status"]
            if event == "post-tool-use" and name in ("Edit", "Write"):
                path = p["tool_input"]["file_path"]
                if path not in edited:
                    edited.append(path)
            if name == "Bash" and "pytest" in p["tool_input"]["command"]:
                if event == "post-tool-use":
                    tests[p["tool_input"]["command"]] = "pass"
                if event == "post-tool-use-failure":
                    tests[p["tool_input"]["command"]] = "fail"
        if tasks:
            plan = [tasks[k] for k in sorted(tasks, key=int)]
        if "wrongplan" in MODE:
            plan = list(reversed(plan))
        text = "Plan:\n" + "\n".join(f"- [{i['status']}] {i['content']}" for i in plan)
        if "noprompts" not in MODE:
            text += "\nThe user said:\n" + "\n".join(prompts)
        return {
            "plan": plan,
            "edited_files": [] if "noedits" in MODE else edited,
            "test_runs": [{"command": c, "outcome": o} for c, o in tests.items()],
            "user_instructions": prompts,
            "text": text,
        }


    def main():
        args = sys.argv[1:]
        if args[:2] == ["session", "recover"]:
            print(json.dumps(state(), sort_keys=True))
            return 0
        if args[:1] != ["hook"]:
            return 2
        event = re.sub(r"(?<!^)(?=[A-Z])", "-", args[1]).lower()  # PreToolUse -> pre-tool-use
        payload = json.loads(sys.stdin.read())
        rec = {"event": event, "payload": payload, "cwd": os.getcwd(), "env": PROJECT}
        rec["argv_event"] = args[1]
        copy = payload.get("transcript_path")
        if copy and os.path.exists(copy):
            with open(copy, encoding="utf-8") as handle:
                rec["copy_lines"] = sum(1 for _ in handle)
        tool_input = payload.get("tool_input") or {}
        if event == "post-tool-use" and "file_path" in tool_input:
            path = tool_input["file_path"]
            rec["file_now"] = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        os.makedirs(os.path.dirname(LOG), exist_ok=True)
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(rec) + "\n")
        if "crash" in MODE and event == "post-tool-use":
            raise RuntimeError("stand-in crash")
        if "exit3" in MODE and event == "stop":
            return 3
        if "hang" in MODE and event == "session-end":
            time.sleep(30)
        if "block" in MODE and event == "pre-tool-use" and payload.get("tool_name") == "Bash":
            print("blocked by the stand-in", file=sys.stderr)
            return 2
        if event == "session-start" and payload.get("source") == "compact":
            context = "Recovered state.\n" + state()["text"]
            if "random" in MODE:
                context += f"\nnonce {random.random()}"
            out = {"hookEventName": "SessionStart", "additionalContext": context}
            print(json.dumps({"hookSpecificOutput": out}))
        return 0


    sys.exit(main())
    '''
)


def stand_in(tmp: Path) -> str:
    """Write the stand-in and return the ``--charter-bin`` command for it."""
    script = tmp / "standin.py"
    script.write_text(STAND_IN, encoding="utf-8")
    return f"{sys.executable} {script}"


def stand_in_log(project: Path) -> list[dict[str, Any]]:
    path = project / ".standin" / "log.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
