"""An MCP server on the official Python SDK whose tool names MCP allows and providers refuse.

`files.read` is a valid MCP name (dots are allowed) but not a valid model tool name
(`^[a-zA-Z0-9_-]{1,64}$`). With `--clash`, it also lists `files_read`, the name `files.read`
maps to. Speaks MCP on stdio.
"""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("names-py")


@server.tool(name="files.read")
def files_read_dotted(path: str) -> str:
    """Read a file (pretend)."""
    return f"contents of {path}"


@server.tool()
def echo(text: str) -> str:
    """Repeat the text."""
    return text


if "--clash" in sys.argv:

    @server.tool(name="files_read")
    def files_read_underscored(path: str) -> str:
        """Another tool under the name `files.read` maps to."""
        return f"other {path}"


if __name__ == "__main__":
    server.run()
