"""WebFetch: a web page as Markdown, with Claude Code's arguments ``{"url", "prompt"}``.

The fetch is ``fetch_http.fetch_page``'s (public addresses only unless a rule names the
host, resolved once and connected to as checked, redirects followed by hand and listed,
10 MB and 30 s caps). HTML becomes Markdown through markdownify (MIT, maintained; not
html2text, which is GPL-3), imported here alone and only when a page is converted, so no
other command pays for it; other text comes back as it is, anything else is refused.

Claude Code gives every page and the ``prompt`` to a small model and returns its answer.
Here the Markdown itself comes back while it fits ``BUDGET`` characters (the calling
model reads it with its own question in mind, losing nothing to a summary); a longer
page goes to the session's reader (``WebAccess.reader``: the same model, asked once
without tools), whose answer comes back in its place. Without a reader, or when it
fails, the page's head comes back with a line saying how much was cut. The call runs in nehanda's
process, not in the Bash sandbox: ``[sandbox] network`` does not govern it; its own
permission rules do (``WebFetch(domain:HOST)``), and it asks by default.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nehanda.errors import NehandaError, ToolError
from nehanda.tools.base import Tool, ToolContext
from nehanda.tools.fetch_http import NAME, Page, fetch_page
from nehanda.tools.web_access import PageReader

# About 15,000 tokens: most of an article, well under the cap every answer gets.
BUDGET = 60_000
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml")

DESCRIPTION = """\
Fetch a web page and get its content as Markdown. `url` must be a full http(s) URL; \
http is upgraded to https. `prompt` says what you want from the page; the page comes \
back as Markdown for you to read with that in mind, or, for a long page, an answer to \
`prompt` read from it, so make `prompt` specific. \
Redirects to the same host are followed and listed; when a page redirects to another \
host, the answer gives the new URL: call WebFetch again with it. Only public addresses \
are reached (no localhost or private network) unless a permission rule names the host. \
Read-only: it changes nothing."""


class WebFetchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, description="The URL to fetch.")
    prompt: str = Field(description="What to find out from the page.")


async def web_fetch(args: WebFetchArgs, context: ToolContext) -> str:
    page = await fetch_page(args.url.strip(), context.web)
    head = _head(page)
    if page.redirect is not None:
        return (
            f"{head}\n\nThe page redirects to another host: {page.redirect}\n"
            f"To get it, call WebFetch again with url {page.redirect!r} and the same prompt."
        )
    markdown = _markdown(page)
    if len(markdown) <= BUDGET:
        return f"{head}\n\n{markdown}"
    return f"{head}\n\n{await _read_for(args.prompt, markdown, context.web.reader)}"


def _head(page: Page) -> str:
    lines = [f"Fetched {page.url} ({page.status}, {page.content_type or 'no content type'})"]
    lines += [f"redirect: {hop}" for hop in page.hops]
    return "\n".join(lines)


def _markdown(page: Page) -> str:
    kind = page.content_type.split(";")[0].strip().lower()
    if kind and not kind.startswith(_TEXT_TYPES):
        raise ToolError(NAME, f"{page.url} is {kind}, not a text page; WebFetch reads text only.")
    text = page.body.decode(_charset(page.content_type), errors="replace")
    if kind in ("text/html", "application/xhtml+xml") or (not kind and "<html" in text[:1000]):
        from markdownify import markdownify

        text = markdownify(text, heading_style="ATX", strip=["img"])
    lines = [line.rstrip() for line in text.strip().splitlines()]
    return "\n".join(line for index, line in enumerate(lines) if line or _kept_blank(lines, index))


def _kept_blank(lines: list[str], index: int) -> bool:
    """One blank line between paragraphs; markdownify leaves runs of them."""
    return index > 0 and bool(lines[index - 1])


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            name = value.strip("\"' ")
            try:
                "".encode(name)
            except LookupError:
                break
            return name
    return "utf-8"


async def _read_for(prompt: str, markdown: str, reader: PageReader | None) -> str:
    if reader is None:
        return _head_of(markdown)
    try:
        answer = await reader(markdown, prompt)
    except NehandaError as error:
        return _head_of(markdown, f" (the model could not read it for you: {error})")
    return (
        f"[The page is {len(markdown):,} characters of Markdown, too long to return whole. "
        f"The model read it for your prompt and answered:]\n\n{answer}"
    )


def _head_of(markdown: str, why: str = "") -> str:
    cut = markdown.rfind("\n", 0, BUDGET)
    head = markdown[: cut if cut > BUDGET // 2 else BUDGET]
    left = len(markdown) - len(head)
    return (
        f"{head}\n\n[... the page goes on for {left:,} more characters of Markdown "
        f"({len(markdown):,} in all){why}, cut here: ask for a more specific page ...]"
    )


def _outcome(arguments: dict[str, object], output: str) -> str:
    first = output.split("\n", 1)[0]
    return first.removeprefix("Fetched ")


TOOL = Tool(
    name=NAME,
    description=DESCRIPTION,
    args_model=WebFetchArgs,
    read_only=True,
    kind="fetch",
    handler=web_fetch,
    url_argument="url",
    summary_keys=("url",),
    outcome=_outcome,
    small_window=False,
)
