"""The CLI's own command groups, offered on the seam like any plugin's."""

from __future__ import annotations

from typing import Any

from charter.plugins import hookimpl


@hookimpl
def charter_cli(app: Any, eval_app: Any) -> None:
    from charter.cli import (
        decisions_cmds,
        doctor_cmds,
        export_cmds,
        graph_cmds,
        install_cmds,
        project_cmds,
        rules_cmds,
        search_cmds,
        session_cmds,
        session_eval_cmds,
    )

    project_cmds.register(app)
    rules_cmds.register(app, eval_app)
    search_cmds.register(app, eval_app)
    decisions_cmds.register(app, eval_app)
    doctor_cmds.register(app)
    export_cmds.register(app)
    graph_cmds.register(app, eval_app)
    install_cmds.register(app)
    session_cmds.register(app)
    session_eval_cmds.register(app, eval_app)
