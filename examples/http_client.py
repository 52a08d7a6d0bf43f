#!/usr/bin/env python3
"""Call gnaw-mcp over HTTP with the official MCP Python SDK, sending the bearer token.

Only the SDK's public API: `mcp.Client`, the Streamable HTTP transport
`mcp.client.streamable_http.streamable_http_client`, and the `httpx2.AsyncClient` it takes,
which carries the `Authorization: Bearer <token>` header on every request.

Run it against a server of your own (docs/mcp.md, "HTTP"):

    gnaw-mcp --mint-token me            # prints a token, and the [tenants.me] lines
    # put those lines in tenants.toml, with roots = ["/path/to/repo"]
    GNAW_MCP_TENANTS=tenants.toml gnaw-mcp --listen 127.0.0.1:8752 &
    python3 -m pip install mcp==2.3.0   # the SDK version tests/interop/requirements.txt pins
    GNAW_MCP_TOKEN=gnaw_... python3 examples/http_client.py http://127.0.0.1:8752/mcp

It lists the tools, then prints the `tree` of the tenant's root (its `repo` is `.` with one
root; with several, a root's name) and an `overview` of it when the server offers one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


def text_of(result) -> str:
    """The text a tool answered (its `content`'s text parts)."""
    return "".join(part.text for part in result.content if getattr(part, "text", None))


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the server's endpoint, e.g. http://127.0.0.1:8752/mcp")
    parser.add_argument("repo", nargs="?", default=".", help="the repo argument (default: .)")
    args = parser.parse_args()
    token = os.environ.get("GNAW_MCP_TOKEN")
    if not token:
        print("set GNAW_MCP_TOKEN to the token gnaw-mcp --mint-token printed", file=sys.stderr)
        return 2

    # The read timeout is long: a tool may take a while on a large repository.
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(30.0, read=300.0),
    )
    async with http, Client(streamable_http_client(args.url, http_client=http)) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        print(f"tools: {', '.join(tools)}")
        tree = await client.call_tool("tree", {"repo": args.repo, "depth": 1})
        print(text_of(tree))
        if tree.is_error:
            return 1
        if "overview" in tools:
            overview = await client.call_tool("overview", {"repo": args.repo, "budget": 800})
            print(text_of(overview))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
