"""The hook client's fast path: hand the raw hook input to the warm worker, print its
rendered answer.

PreToolUse and PostToolUse run on every tool call, so their hook process must cost
little more than starting Python. This module imports only C-level modules (no ``json``,
``pathlib``, ``socket`` or ``tempfile``): it finds the project root and the worker's
socket with ``os.path`` (the same rules as :mod:`charter.paths`, which a test holds it
to), checks the runtime directory, the socket file and the worker's uid exactly as the
full client does, sends the input unparsed with the worker's token, and writes the
worker's pre-rendered stdout and stderr. Anything unusual — no worker, a check that
fails, a reply it cannot read, input too large — returns ``None`` and the full client
(:mod:`charter.integrations.claude_code.hook_main`) takes over with the input already
read, so its fail-open and fail-closed rules still decide.
"""

from __future__ import annotations

import os
import sys

#: Input up to this size goes through the fast path (Claude Code's tool payloads are far
#: smaller); larger input is left to the full client and its caps.
FAST_INPUT = 1024 * 1024
TIMEOUT = 8.0
HEADER = b"CHARTER-RENDER "
#: Claude Code's event names, by Charter's CLI names (``charter hook <name>``).
EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "stop": "Stop",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "post-tool-use-failure": "PostToolUseFailure",
    "pre-compact": "PreCompact",
    "session-end": "SessionEnd",
}
#: Events answered by the warm worker (session start needs full discovery in-process).
FAST_EVENTS = frozenset(EVENTS) - {"session-start"}
#: Every spelling of an event a settings file may use — Charter's (``pre-tool-use``),
#: Claude Code's (``PreToolUse``), snake or lower case — by Charter's name: a hook
#: configured as ``charter hook PreToolUse`` must still run its guardrail, not exit
#: silently (which Claude Code reads as "allow").
_SPELLINGS = {
    key: name for name, pascal in EVENTS.items() for key in (name.replace("-", ""), pascal.lower())
}


def canonical_event(name: str) -> str | None:
    """Charter's name for ``name`` in any of its spellings; None for an unknown event."""
    return _SPELLINGS.get(name.replace("-", "").replace("_", "").lower())


def render(reply: dict) -> bytes:  # type: ignore[type-arg]
    """A worker reply as the fast client prints it: the stdout and stderr the full
    client would write, after a header with their sizes."""
    import json

    output = reply.get("output")
    out = (json.dumps(output) + "\n").encode() if output else b""
    notes = reply.get("notes") or []
    err = "".join(f"charter: {note}\n" for note in notes if isinstance(note, str)).encode()
    return HEADER + f"{len(out)} {len(err)}\n".encode() + out + err


def _temp_root() -> str:
    for name in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(name, "")
        if value and os.path.isdir(value):
            return value
    return "/tmp"


def _private_dir(path: str) -> bool:
    import stat

    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and not stat.S_IMODE(info.st_mode) & 0o077
    )


def runtime_base() -> str:
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg and os.path.isabs(xdg) and _private_dir(xdg):
        return os.path.join(xdg, "charter")
    return os.path.join(_temp_root(), f"charter-{os.getuid()}")


def find_root(start: str, strict: bool = False) -> str:
    """As :func:`charter.paths.find_root`; with ``strict``, "" when in no project."""
    start = os.path.realpath(start)
    candidate = start
    while True:
        if os.path.isfile(os.path.join(candidate, "charter.toml")):
            return candidate
        pyproject = os.path.join(candidate, "pyproject.toml")
        if os.path.isfile(pyproject):
            try:
                with open(pyproject, encoding="utf-8", errors="replace") as handle:
                    if "[tool.charter" in handle.read():
                        return candidate
            except OSError:
                pass
        if os.path.lexists(os.path.join(candidate, ".git")):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return "" if strict else start
        candidate = parent


def shared_dir(path: str) -> bool:
    """As :func:`charter.paths.shared_dir`: /, $HOME or an ancestor, the temp directory."""
    where = os.path.realpath(path)
    home = os.path.realpath(os.path.expanduser("~"))
    if where == os.path.dirname(where) or where == os.path.realpath(_temp_root()):
        return True
    return home == where or home.startswith(where.rstrip(os.sep) + os.sep)


def socket_path(root: str, version: str) -> str:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - builds without the builtin module
        from hashlib import sha256
    digest = sha256(f"{os.path.realpath(root)}\0{version}".encode()).hexdigest()[:16]
    return os.path.join(runtime_base(), f"{digest}.sock")


#: Seconds the whole of stdin may take (the full client's own limit, shared with it).
STDIN_SECONDS = 5.0


def _read_stdin(deadline: float) -> bytes:
    """Stdin until EOF, ``FAST_INPUT`` bytes or ``deadline`` (``time.monotonic``)."""
    import select
    import time

    chunks: list[bytes] = []
    size = 0
    fd = sys.stdin.fileno()
    while size <= FAST_INPUT:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    raise TimeoutError(b"".join(chunks))


def _own_file(path: str, kind: int) -> bool:
    import stat

    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_IFMT(info.st_mode) == kind and info.st_uid == os.getuid()


def _ask(root: str, event: str, raw: bytes) -> bytes | None:
    import _socket
    import stat

    from charter import __version__

    base = runtime_base()
    if not _private_dir(base):
        return None
    path = socket_path(root, __version__)
    token_file = path[: -len(".sock")] + ".token"
    if not _own_file(path, stat.S_IFSOCK) or not _own_file(token_file, stat.S_IFREG):
        return None
    fd = os.open(token_file, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        token = os.read(fd, 256).strip()
    finally:
        os.close(fd)
    if not token.isalnum():
        return None
    body = raw.strip() or b"{}"
    request = (
        b'{"event": "' + event.encode() + b'", "token": "' + token + b'", "render": true, '
        b'"payload": ' + body + b"}\n"
    )
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(TIMEOUT)
        sock.connect(path)
        option = getattr(_socket, "SO_PEERCRED", None)
        if option is not None:
            import struct

            _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(_socket.SOL_SOCKET, option, 12))
            if uid != os.getuid():
                return None
        sock.sendall(request)
        chunks: list[bytes] = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        sock.close()
    return b"".join(chunks)


def run(event: str, deadline: float) -> tuple[int | None, bytes]:
    """(exit code, or None to hand over to the full client; the input read so far).

    Stdin that is larger than the fast path takes, or not closed by ``deadline``, is
    handed over unfinished: the full client reads on until the same deadline.
    """
    try:
        raw = _read_stdin(deadline)
    except TimeoutError as unfinished:
        return None, bytes(unfinished.args[0])
    except (OSError, ValueError):
        return None, b""
    env_root = os.environ.get("CLAUDE_PROJECT_DIR")
    try:
        root = find_root(env_root, strict=True) if env_root else ""
        if env_root and not root and not shared_dir(env_root):
            root = os.path.realpath(env_root)  # a named directory outside git: the project
        if not root:
            root = find_root(os.getcwd(), strict=True)
        if not root:  # in no project: the full client says so
            return None, raw
        reply = _ask(root, event, raw)
    except Exception:  # anything unexpected: the full client decides
        return None, raw
    if reply is None or not reply.startswith(HEADER):
        return None, raw
    head, _, rest = reply.partition(b"\n")
    sizes = head[len(HEADER) :].split()
    if len(sizes) != 2 or not all(s.isdigit() for s in sizes):
        return None, raw
    out_size, err_size = int(sizes[0]), int(sizes[1])
    if len(rest) != out_size + err_size:
        return None, raw
    _write_all(2, rest[out_size:])
    _write_all(1, rest[:out_size])
    return 0, raw


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
