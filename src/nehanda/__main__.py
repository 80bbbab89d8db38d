"""Lets ``python -m nehanda`` behave exactly like the ``nehanda`` command."""

from nehanda.cli.main import main

main()
