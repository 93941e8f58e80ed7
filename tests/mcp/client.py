"""The official Python MCP SDK's stdio client against a server given on the command line.

Usage: python client.py SERVER [ARGS...]

Lists the tools, calls `get_weather` (with a `_meta` the server turns into its context) and
`find_activities`, calls `get_weather` with bad arguments, and prints one JSON object with
what came back, for tests/mcp.rs to check.
"""

import json
import sys

import anyio

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(result):
    return {
        "is_error": bool(result.is_error),
        "text": [c.text for c in result.content if getattr(c, "type", None) == "text"],
        "structured": result.structured_content,
    }


async def main() -> None:
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            weather = await session.call_tool(
                "get_weather",
                {"city": "Lisbon", "units": "fahrenheit"},
                meta={"traveller": {"home_city": "Lisbon"}},
            )
            activities = await session.call_tool("find_activities", {"city": "Porto", "outdoor": True})
            bad = await session.call_tool("get_weather", {"city": 7})
            out = {
                "server": init.server_info.name,
                "tools": {t.name: t.input_schema for t in tools.tools},
                "weather": dump(weather),
                "activities": dump(activities),
                "bad": dump(bad),
            }
            print(json.dumps(out))


anyio.run(main)
