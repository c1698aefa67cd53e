"""The Typer application: sub-commands are registered by each capability's CLI module."""

from __future__ import annotations

import sys

import typer

from charter.errors import CharterError, describe

app = typer.Typer(
    name="charter",
    help="Context engine for AI coding agents: rules, search, decisions, drift.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _show_version(value: bool) -> None:
    if value:
        from charter import __version__

        print(f"charter {__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Context engine for AI coding agents: rules, search, decisions, drift."""


eval_app = typer.Typer(help="Measure quality on benchmark data.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")

from charter.plugins import manager  # noqa: E402 - after the apps it fills

manager().hook.charter_cli(app=app, eval_app=eval_app)


def _check_argv(argv: list[str]) -> None:
    """Refuse an argument holding bytes that are not UTF-8 (a Latin-1 terminal, a
    mangled paste), naming it: Python hands them on as lone surrogates, which no UTF-8
    text holds, and `charter context` said "TypeError: TextEncodeInput must be …",
    `decisions add` "UnicodeEncodeError … surrogates not allowed"."""
    from charter.paths import shown_name, utf8_name

    for arg in argv:
        if not utf8_name(arg):
            raise CharterError(
                f"argument '{shown_name(arg)}' is not valid UTF-8 (each byte that is "
                "not is shown as \\x..); write it in UTF-8"
            )


def run() -> None:
    """Run the app; user errors become one stderr line and a non-zero exit."""
    from charter.cli.common import tolerate_narrow_stdout

    tolerate_narrow_stdout()
    try:
        _check_argv(sys.argv[1:])
        # Without standalone mode click *returns* a command's typer.Exit(code) instead of
        # raising it: pass it on, or a failing check ('session gates') would exit 0.
        code = app(standalone_mode=False)
        if isinstance(code, int) and not isinstance(code, bool) and code:
            raise SystemExit(code)
    except CharterError as exc:
        print(f"charter: error: {exc}", file=sys.stderr)
        raise SystemExit(exc.exit_code) from None
    except typer.Abort:
        print("charter: aborted", file=sys.stderr)
        raise SystemExit(1) from None
    except SystemExit:
        raise
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    except typer.TyperException as exc:  # usage errors from Typer's bundled click
        format_message = getattr(exc, "format_message", None)
        message = format_message() if callable(format_message) else str(exc)
        if not message:  # no arguments: Typer has printed the help
            raise SystemExit(0) from None
        print(f"charter: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(getattr(exc, "exit_code", 2)) from None
    except Exception as exc:  # anything unexpected: one line, never a traceback
        print(f"charter: error: {describe(exc)}", file=sys.stderr)
        raise SystemExit(1) from None
