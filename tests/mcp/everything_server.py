"""An MCP server on the official Python SDK (`MCPServer`), for the interop tests.

Each tool exercises one kind of result our client must map: text, an image, an embedded
resource, audio and binary resources (a PDF, an image), `structuredContent`, `isError`, stderr noise, a server that dies, a slow call, and
a tool list that changes (`notifications/tools/list_changed`). Speaks MCP on stdio.
"""

import base64
import os
import sys

import anyio
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    TextResourceContents,
)

server = MCPServer("everything-py")

# The 8-byte PNG signature: enough for the mapping test, which checks bytes and type.
PNG = b"\x89PNG\r\n\x1a\n"
# The first bytes of a WAV file and of a PDF: the same, for audio and documents.
WAV = b"RIFF\x24\x00\x00\x00WAVE"
PDF = b"%PDF-1.7\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class Weather(BaseModel):
    city: str
    celsius: int


@server.tool()
def echo(text: str) -> str:
    """Repeat the text."""
    return text


@server.tool()
def image() -> Image:
    """Return a tiny PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def resource() -> EmbeddedResource:
    """Return an embedded text resource."""
    return EmbeddedResource(
        type="resource",
        resource=TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="alpha"),
    )


@server.tool()
def media() -> list:
    """Return a WAV clip, an embedded PDF blob, an embedded PNG blob and an opus clip."""
    return [
        AudioContent(type="audio", data=b64(WAV), mime_type="audio/wav"),
        EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(
                uri="file:///reports/q3.pdf", mime_type="application/pdf", blob=b64(PDF)
            ),
        ),
        EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(
                uri="file:///chart.png", mime_type="image/png", blob=b64(PNG)
            ),
        ),
        AudioContent(type="audio", data=b64(WAV), mime_type="audio/opus"),
    ]


@server.tool()
def weather(city: str) -> Weather:
    """The weather in a city, as structured content."""
    return Weather(city=city, celsius=21)


@server.tool()
def fail(reason: str) -> str:
    """Fail with the reason."""
    raise ToolError(reason)


@server.tool()
def noise(lines: int) -> str:
    """Write harmless lines to stderr (the kind of log a dead server's message should skip)."""
    for i in range(lines):
        print(f"old noise, line {i}: all is well", file=sys.stderr, flush=True)
    return "noisy"


@server.tool()
def crash() -> str:
    """Exit the server process at once."""
    print("crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return "done"


def late_tool(x: int) -> int:
    """A tool added at run time."""
    return x * 2


@server.tool()
async def add_tool(ctx: Context) -> str:
    """Add `late_tool` and announce the change."""
    server.add_tool(late_tool, name="late_tool")
    await ctx.session.send_tool_list_changed()
    return "added"


if __name__ == "__main__":
    server.run()
