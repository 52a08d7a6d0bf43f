"""gnaw-mcp driven over pipes, one JSON-RPC message per line: the client the benchmarks
(driver.py, search.py) share. Python standard library only."""

import json
import os
import subprocess
import time


class Server:
    """gnaw-mcp over pipes, one JSON-RPC message per line."""

    def __init__(self, exe, root, log=subprocess.DEVNULL, extra_env=None):
        env = dict(os.environ, GNAW_MCP_ROOT=root, **{"RUST_LOG": "warn", **(extra_env or {})})
        self.start = time.perf_counter()
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=log, env=env)
        self.next_id = 0

    def initialize(self):
        """The MCP handshake. Returns the seconds from spawn to the `initialize` answer."""
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "gnaw-bench", "version": "0"}})
        took = time.perf_counter() - self.start
        self.notify("notifications/initialized")
        return took

    def request(self, method, params):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"gnaw-mcp closed its output during {method}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"gnaw-mcp answered {method} with {reply['error']}")
                return reply["result"]

    def notify(self, method):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.proc.stdin.flush()

    def close(self):
        """End of input; the server exits 0. Returns its peak RSS in KiB."""
        self.proc.stdin.close()
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.proc.stdout.close()
        return usage.ru_maxrss
