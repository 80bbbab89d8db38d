"""The built-in tools: Read, Write, Edit, Bash, LS, Glob and Grep, one module each.

A tool is an argument model (pydantic, which yields the JSON Schema), a description
written for the model, a permission default (``read_only``) and an async handler, and
it says what the layers above need to know of it (``base.Tool``). The engine reaches
them only through ``registry.BuiltinTools``, a ``Toolset``.
Helpers: ``paths`` (workspace confinement), ``beneath`` (opening a resolved path below
its root's descriptor, following no symlink), ``workfile`` (the file a Write or Edit
replaces, held by its folder's descriptor), ``output`` (caps), ``filestate`` (what the
model last read), ``patterns`` (globs), ``ignore`` (.gitignore), ``walk`` (directory
walks), ``grep_search`` and ``ripgrep`` (Grep's two backends); whole-file replacement
is ``nehanda.fs.replace_at`` (``write_atomic`` by path).
"""
