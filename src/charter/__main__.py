"""``python -m charter`` runs the CLI."""

from charter.cli import main

main()
