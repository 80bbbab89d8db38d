"""Lets ``python -m nehanda`` behave exactly like the ``nehanda`` command."""

from nehanda.cli import main

main()
