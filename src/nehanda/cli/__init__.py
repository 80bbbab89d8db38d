"""The front end: the ``nehanda`` click commands (``main``), ``run``, the REPL, ``doctor``,
``providers``, ``sessions`` and ``trust``, and the session wiring they share (``session``).

Nothing is imported here: ``nehanda --help`` loads ``main`` and click only.
"""
