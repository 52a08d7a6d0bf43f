"""gnaw-mcp --listen driven over HTTP (the 2026-07-28 wire): what the HTTP benchmarks
(fairness.py, token_less.py, wake.py) share: tenants minted by the binary, the server started
on a free loopback port, and a `tools/call` request. Python standard library only."""

import json
import os
import subprocess
import urllib.request


def mint(binary, name, root):
    """A tenant `name` minted by `binary` for `root`: its token and its tenants-file table."""
    minted = subprocess.run([binary, "--mint-token", name], capture_output=True,
                            text=True, check=True).stdout
    table = minted.split("GNAW_MCP_TENANTS):\n", 1)[1].replace("/path/to/repo", root)
    return minted.splitlines()[1], table


def write_tenants(work, text):
    """The tenants file `text` written in `work`; its path."""
    tenants = os.path.join(work, "tenants.toml")
    with open(tenants, "w") as f:
        f.write(text)
    return tenants


def start(binary, env):
    """`binary --listen 127.0.0.1:0` started with `env` (its stderr a pipe the caller drains);
    the process and the port it said it listens on (None when it never said)."""
    env = dict(env)
    env.pop("GNAW_MCP_LISTEN", None)
    server = subprocess.Popen([binary, "--listen", "127.0.0.1:0"], env=env,
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    port = None
    for line in server.stderr:
        if "listening on http://127.0.0.1:" in line:
            port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
            break
    return server, port


def tools_call(port, token, i, tool, arguments, accept="application/json"):
    """The POST of `tools/call` for `tool` with `arguments` (request id `i`) as `token`'s
    tenant, with the headers the 2026-07-28 wire asks for."""
    body = json.dumps({
        "jsonrpc": "2.0", "id": i, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments,
                   "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}}},
    }).encode()
    return urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", data=body, method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "Accept": accept, "MCP-Protocol-Version": "2026-07-28",
                 "Mcp-Method": "tools/call", "Mcp-Name": tool})
