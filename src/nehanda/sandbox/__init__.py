"""Kernel confinement for the commands Bash runs: Landlock, namespaces, seccomp (ctypes)."""
