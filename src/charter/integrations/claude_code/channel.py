"""The hook <-> warm worker channel: who may talk to whom, and how much.

The worker answers hooks with the project's rules and can make the Stop hook block, and
each request carries the user's prompt. So both ends make sure the other is the same
local user before a byte of it is used:

- the socket, lock and token live in the verified runtime directory
  (:func:`charter.paths.runtime_dir`: ours, a real directory, mode 0700);
- nothing there is opened through a symlink (``O_NOFOLLOW``, ``lstat``);
- each side checks the other's peer credentials (``SO_PEERCRED``: same uid) where the
  platform has them;
- every request carries the worker's random token, read from a 0600 file only the
  worker's user can read;
- a request is one line of JSON of at most :data:`MAX_REQUEST` bytes, read before a
  deadline; anything bigger or slower is refused, so the worker never grows unbounded.

Standard library only: the hook imports this on every prompt.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import struct
import time
from pathlib import Path
from typing import Any

from charter.safejson import replace_lone_surrogates

#: Hook input larger than this is not read (Claude Code's payloads are far smaller).
MAX_HOOK_INPUT = 4 * 1024 * 1024
#: The largest request the worker reads: a whole hook input plus the envelope.
MAX_REQUEST = MAX_HOOK_INPUT + 64 * 1024
#: The largest reply a hook reads from the worker.
MAX_REPLY = 1024 * 1024
TOKEN_BYTES = 32


class ChannelError(OSError):
    """The other end is not who it must be, or broke the protocol."""


def token_path(sock_path: Path) -> Path:
    return sock_path.with_suffix(".token")


def lock_path(sock_path: Path) -> Path:
    return sock_path.with_suffix(".lock")


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end (None where the platform cannot tell)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    size = struct.calcsize("3i")
    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, size))
    return int(uid)


def check_peer(sock: socket.socket) -> None:
    """Raise :class:`ChannelError` unless the peer runs as this user."""
    uid = peer_uid(sock)
    if uid is not None and uid != os.getuid():
        raise ChannelError(f"peer runs as uid {uid}, not {os.getuid()}")


def _open_private(path: Path, flags: int) -> int:
    """``os.open`` that never follows a symlink and accepts only our own regular file."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        os.close(fd)
        raise ChannelError(f"{path} is not this user's regular file")
    return fd


def open_lock(sock_path: Path) -> int:
    """The worker's lock file descriptor (created 0600; a planted symlink is refused)."""
    return _open_private(lock_path(sock_path), os.O_RDWR | os.O_CREAT)


def write_token(sock_path: Path) -> str:
    """A fresh random token in a 0600 file next to the socket (replaced atomically)."""
    import secrets  # the worker only: hooks stay light

    token = secrets.token_hex(TOKEN_BYTES)
    final = token_path(sock_path)
    temp = final.with_name(f"{final.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, token.encode())
    finally:
        os.close(fd)
    os.replace(temp, final)
    return token


def read_token(sock_path: Path) -> str:
    fd = _open_private(token_path(sock_path), os.O_RDONLY)
    try:
        return os.read(fd, 4 * TOKEN_BYTES).decode("ascii", errors="replace").strip()
    finally:
        os.close(fd)


def same_token(expected: str, given: object) -> bool:
    import hmac

    return isinstance(given, str) and hmac.compare_digest(expected.encode(), given.encode())


def check_socket_file(sock_path: Path) -> None:
    """Raise unless ``sock_path`` is a socket owned by this user (not a symlink to one)."""
    info = os.lstat(sock_path)
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
        raise ChannelError(f"{sock_path} is not this user's socket")


def read_line(sock: socket.socket, limit: int, deadline: float) -> bytes:
    """One newline-terminated message (or everything until EOF), at most ``limit`` bytes,
    before ``deadline`` (``time.monotonic``); :class:`ChannelError` otherwise."""
    buffer = bytearray()
    while not buffer.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            raise ChannelError("timed out reading the message")
        sock.settimeout(left)
        chunk = sock.recv(min(65536, limit + 1 - len(buffer)))
        if not chunk:
            break
        buffer += chunk
        if len(buffer) > limit:
            raise ChannelError(f"message over {limit} bytes refused")
    return bytes(buffer)


#: A hook process or warm worker above this resident size gives up the request (fails
#: open): a hostile input must not grow it without bound. ``hooks.max_memory_mb`` sets it
#: once the project's configuration is read.
MAX_RSS = 1024 * 1024 * 1024


def rss_bytes() -> int | None:
    """This process's resident set size now (None where ``/proc`` is not available)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            pages = int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


#: The hook fields Claude Code sends as free text. A handler reads each with ``str(...)``,
#: so a list or an object there would be taken as its Python repr (a prompt stored and
#: answered as ``"['...']"``).
TEXT_FIELDS = ("prompt", "custom_instructions", "last_assistant_message", "source", "trigger")


def drop_mistyped_text(event: str, payload: dict[str, Any]) -> list[str]:
    """Drop each free-text field of ``payload`` that is not a string and return one note
    naming each: the hook goes on as if the field were absent, never with the repr of a
    list or object as its text. Both the full client and the warm worker call this."""
    notes = []
    for field in TEXT_FIELDS:
        value = payload.get(field)
        if value is not None and not isinstance(value, str):
            del payload[field]
            notes.append(
                f"hook {event}: {field} is {type(value).__name__}, not text; ignored "
                "(the hook goes on without it)"
            )
    if replace_lone_surrogates(payload):
        notes.append(
            f"hook {event}: the input holds text that is not valid Unicode (half of a "
            "surrogate pair, as a cut emoji leaves); each is read as U+FFFD"
        )
    return notes
