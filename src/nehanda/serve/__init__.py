"""``nehanda serve``: an OpenAI- and Anthropic-compatible endpoint in front of any provider.

Imported only by the ``serve`` command: it needs the ``serve`` extra (starlette, uvicorn).
"""
