#!/usr/bin/env python3
"""Two gnaw-mcp --listen instances behind nginx, checked through the proxy.

Run by scripts/proxy-nginx.sh (which finds or installs nginx). nginx runs from a temp prefix
with contrib/nginx/gnaw-mcp.conf rendered: its upstream ports, listen addresses, certificate and
log paths replaced, every other line as shipped. Instance a takes its settings from the
environment and writes its audit trail on stderr; instance b takes them from a config file
(`gnaw-mcp --config FILE`) and writes its audit trail to descriptor 3 (GNAW_MCP_AUDIT_FD), as
contrib/systemd/gnaw-mcp.service runs it. Both trust nginx (GNAW_MCP_TRUSTED_PROXIES=127.0.0.1).
The test client connects from 127.0.0.2, so that the client the audit names (the last
X-Forwarded-For hop) is told apart from nginx (127.0.0.1).

Prints each check; exits 1 on the first failure (with the logs' tails), 0 when all pass. Every
process it started is stopped on exit. Standard library only.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
PUBLIC_HOST = "localhost"  # the TLS certificate's name; GNAW_MCP_PUBLIC_URL uses it
ALLOWED_ORIGIN = "https://app.example.test"
MARKER = "proxied_marker_7f3a"  # a line only alice's repo holds
CLIENT = "127.0.0.2"  # the test client's source address; nginx is 127.0.0.1
PROXIED = f"{CLIENT} via 127.0.0.1:"  # how an instance's audit names a client behind nginx
# The instances' per-address bound, low in this test: nginx's many connections must not meet it.
PER_CLIENT = 4

procs = []


class Failed(Exception):
    pass


def check(cond, what, detail=""):
    if not cond:
        raise Failed(f"{what}: {detail}" if detail else what)
    print(f"  ok  {what}")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, proc, what, log, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise Failed(f"{what} exited ({proc.returncode}):\n{tail(log)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise Failed(f"{what} did not listen on {port} within {seconds} s:\n{tail(log)}")


def start(cmd, env, log):
    with open(log, "ab") as out:
        p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
    procs.append(p)
    return p


def stop(p, sig=signal.SIGTERM):
    """Stop the process group this script started as `p` (gnaw-mcp's spawner and workers,
    nginx's workers)."""
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def tail(path, n=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(l if len(l) < 400 else l[:400] + " ...\n" for l in f.readlines()[-n:])
    except OSError:
        return f"(no {path})"


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name):
        return self.headers.get(name)

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            raise Failed(f"not JSON (status {self.status}): {self.body[:300]!r}")

    def text(self):
        return self.body.decode(errors="replace")


def connect(port, tls=None, timeout=60):
    """A connection to 127.0.0.1:port (nginx or an instance) from the client's address."""
    if tls is not None:
        return http.client.HTTPSConnection(PUBLIC_HOST, port, context=tls, timeout=timeout,
                                           source_address=(CLIENT, 0))
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(CLIENT, 0))


def req(port, method, path, headers=None, body=None, tls=None, chunked=False, timeout=60):
    conn = connect(port, tls, timeout)
    h = dict(headers or {})
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    try:
        if chunked:
            h["Transfer-Encoding"] = "chunked"
            half = len(data) // 2
            conn.request(method, path, body=iter([data[:half], data[half:]]), headers=h,
                         encode_chunked=True)
        else:
            conn.request(method, path, body=data, headers=h)
    except (BrokenPipeError, ConnectionResetError):
        # The server answered (411, 413, 429) and closed before the body was all sent.
        pass
    r = conn.getresponse()
    raw = r.read()
    conn.close()
    return Reply(r.status, r.headers, raw)


def meta(extra=None):
    m = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "proxy-nginx", "version": "0"},
    }
    m.update(extra or {})
    return m


def modern_request(token, rid, method, params=None, meta_extra=None):
    params = dict(params or {})
    params["_meta"] = meta(meta_extra)
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    headers = {
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "Accept": "application/json, text/event-stream",
    }
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    return headers, body


def modern(port, token, rid, method, params=None, **kw):
    headers, body = modern_request(token, rid, method, params)
    return req(port, "POST", "/mcp", headers, body, **kw)


def streamed_search(port, token, rid, progress, timeout):
    """A search for "widget" sent with the progress token `progress`: the connection and its
    response, not yet read (its body streams as SSE)."""
    headers, body = modern_request(token, rid, "tools/call",
                                   {"name": "search", "arguments": {"repo": ".", "query": "widget"}},
                                   {"progressToken": progress})
    conn = connect(port, timeout=timeout)
    conn.request("POST", "/mcp", body=json.dumps(body).encode(),
                 headers={**headers, "Content-Type": "application/json"})
    return conn, conn.getresponse()


def result_text(answer):
    return "".join(c.get("text", "") for c in answer["result"].get("content", []))


def legacy_headers(token, session=None):
    h = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    if session:
        h["Mcp-Session-Id"] = session
        h["MCP-Protocol-Version"] = LEGACY
    return h


def initialize(port, token):
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {},
                       "clientInfo": {"name": "proxy-nginx", "version": "0"}}}
    r = req(port, "POST", "/mcp", legacy_headers(token), body)
    session = r.header("Mcp-Session-Id")
    if r.status != 200 or not session:
        raise Failed(f"initialize: {r.status} {r.text()[:300]}")
    if r.json()["result"]["protocolVersion"] != LEGACY:
        raise Failed(f"initialize negotiated {r.json()['result']['protocolVersion']}")
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    r2 = req(port, "POST", "/mcp", legacy_headers(token, session), note)
    if r2.status != 202:
        raise Failed(f"notifications/initialized: {r2.status} {r2.text()[:300]}")
    return session


def legacy_call(port, token, session, rid, method, params=None):
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}
    return req(port, "POST", "/mcp", legacy_headers(token, session), body)


class Instance:
    """A gnaw-mcp --listen instance: with `config`, started as `gnaw-mcp --config FILE` with its
    audit trail on descriptor 3 (the file `audit`), else from the environment, auditing on
    stderr (its log)."""

    def __init__(self, name, binary, port, env, tmp, config=None):
        self.name = name
        self.port = port
        self.log = os.path.join(tmp, f"{name}.log")
        if config:
            self.audit_log = os.path.join(tmp, f"{name}-audit.log")
            # The shell opens the descriptor, as contrib/systemd/gnaw-mcp.service does.
            cmd = ["/bin/sh", "-c", 'exec "$0" --config "$1" 3>>"$2"',
                   binary, config, self.audit_log]
        else:
            self.audit_log = self.log
            cmd = [binary, "--listen", f"127.0.0.1:{port}"]
        self.proc = start(cmd, env, self.log)
        wait_port(port, self.proc, f"gnaw-mcp {name}", self.log)

    def settled(self):
        """The audit lines, once none has been added for 0.3 s: an instance writes a request's
        line after sending its answer, so the line may lag the answer a little."""
        lines, still = self.audit(), time.time()
        while time.time() - still < 0.3:
            time.sleep(0.05)
            now = self.audit()
            if len(now) != len(lines):
                lines, still = now, time.time()
        return lines

    def audit(self):
        """This instance's audit lines so far (one per HTTP request it handled)."""
        lines = []
        if not os.path.exists(self.audit_log):
            return lines
        with open(self.audit_log, errors="replace") as f:
            for line in f:
                if line.startswith('{"audit":"gnaw-mcp"'):
                    lines.append(json.loads(line))
        return lines


ACCESS = re.compile(r'^(\S+) \[[^\]]*\] "[^"]*" (\d+) \d+ \S+ upstream=(.*) '
                    r'upstream_status=(.*) id=([0-9a-f]+)$')


def access_lines(path):
    """nginx's access log (the shipped gnaw_mcp format) by request id: (client address,
    status, upstream addresses)."""
    by_id = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = ACCESS.match(line.rstrip("\n"))
            if m:
                by_id[m.group(5)] = (m.group(1), m.group(2), m.group(3))
    return by_id


def new_lines(instances, before):
    """The audit lines each instance added since `before` (line counts), once settled."""
    return {n: i.settled()[before[n]:] for n, i in instances.items()}


def render(conf, ports, paths, tls):
    """The shipped config with the test's ports and paths: each replaced text must occur as
    often as expected, so a change to the file that the test would silently miss fails here."""
    with open(conf) as f:
        text = f.read()
    if tls:
        listen = (f"    listen 127.0.0.1:{ports['tls']} ssl http2;\n"
                  f"    listen 127.0.0.1:{ports['plain']};\n")
    else:
        listen = f"    listen 127.0.0.1:{ports['plain']};\n"
    subs = [
        ("server 127.0.0.1:8761 ", f"server 127.0.0.1:{ports['a']} ", 2),
        ("server 127.0.0.1:8762 ", f"server 127.0.0.1:{ports['b']} ", 2),
        ("    listen 80;\n", f"    listen 127.0.0.1:{ports['redirect']};\n", 1),
        ("    listen [::]:80;\n", "", 1),
        ("    listen 443 ssl http2;\n", listen, 1),
        ("    listen [::]:443 ssl http2;\n", "", 1),
        ("/etc/ssl/certs/mcp.example.com.pem", paths["cert"], 1),
        ("/etc/ssl/private/mcp.example.com.key", paths["key"], 1),
        ("/var/log/nginx/gnaw-mcp.access.log", paths["access"], 1),
    ]
    for old, new, n in subs:
        found = text.count(old)
        if found != n:
            raise Failed(f"rendering {conf}: expected {n} of {old!r}, found {found}")
        text = text.replace(old, new)
    if not tls:
        text = "".join(l for l in text.splitlines(True) if not l.lstrip().startswith("ssl_"))
    return text


def make_repos(tmp):
    alice = os.path.join(tmp, "alice")
    bob = os.path.join(tmp, "bob")
    os.makedirs(os.path.join(alice, "src"))
    os.makedirs(os.path.join(alice, "gen"))
    os.makedirs(bob)
    with open(os.path.join(alice, "src", "main.rs"), "w") as f:
        f.write(f"fn main() {{\n    let {MARKER} = 1;\n    println!(\"{{}}\", {MARKER});\n}}\n")
    # Enough files that a cold search takes a while and reports progress on the way.
    for i in range(1500):
        with open(os.path.join(alice, "gen", f"f{i:04}.rs"), "w") as f:
            f.write(f"// generated {i}\npub fn widget_{i}() -> u32 {{ {i} }}\n"
                    + "".join(f"pub const WIDGET_{i}_{j}: u32 = {j};\n" for j in range(20)))
    with open(os.path.join(bob, "bob.rs"), "w") as f:
        f.write("fn bob_only() {}\n")
    return alice, bob


def mint(binary, name, root):
    out = subprocess.run([binary, "--mint-token", name], capture_output=True, text=True,
                         check=True).stdout
    token = next(l for l in out.splitlines() if l.startswith("gnaw_")).strip()
    digest = next(l for l in out.splitlines() if l.startswith("token_sha256")).split('"')[1]
    entry = f'[tenants.{name}]\ntoken_sha256 = "{digest}"\nroots = ["{root}"]\n'
    return token, entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--nginx", required=True)
    ap.add_argument("--openssl", default="")
    ap.add_argument("--conf", required=True)
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    began = time.time()

    tmp = tempfile.mkdtemp(prefix="gnaw-proxy-")
    # nginx's workers (nobody, when started by root) create files under the temp paths.
    os.chmod(tmp, 0o755)
    ok = False
    try:
        run(args, binary, tmp)
        ok = True
    except Failed as e:
        for name in ("a.log", "b.log", "b-audit.log", "nginx-error.log", "access.log"):
            print(f"--- {name} (tail)\n{tail(os.path.join(tmp, name), 12)}", file=sys.stderr)
        print(f"FAILED: {e}", file=sys.stderr)
    finally:
        for p in reversed(procs):
            stop(p)
        if os.environ.get("GNAW_PROXY_KEEP") == "1":
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"proxy-nginx: {'passed' if ok else 'FAILED'} in {time.time() - began:.1f} s")
    return 0 if ok else 1


def run(args, binary, tmp):
    version = subprocess.run([args.nginx, "-v"], capture_output=True, text=True).stderr.strip()
    print(f"binary: {binary}\nnginx:  {args.nginx} ({version})")
    ports = {k: free_port() for k in ("a", "b", "plain", "tls", "redirect")}
    tls = bool(args.openssl)
    paths = {
        "cert": os.path.join(tmp, "cert.pem"),
        "key": os.path.join(tmp, "key.pem"),
        "access": os.path.join(tmp, "access.log"),
    }
    public_url = f"https://{PUBLIC_HOST}:{ports['tls']}" if tls else f"http://127.0.0.1:{ports['plain']}"

    print("== setup")
    alice_root, bob_root = make_repos(tmp)
    alice, alice_entry = mint(binary, "alice", alice_root)
    bob, bob_entry = mint(binary, "bob", bob_root)
    # carol reads alice's root in her own worker, whose cache is cold: a call to cancel. Two
    # tenants on one root must say so (shares_with), or the server refuses to start.
    carol, carol_entry = mint(binary, "carol", alice_root)
    carol_entry = carol_entry.rstrip("\n") + '\nshares_with = ["alice"]\n'
    tenants = os.path.join(tmp, "tenants.toml")
    with open(tenants, "w") as f:
        f.write(alice_entry + "\n" + bob_entry + "\n" + carol_entry)
    # The environment must not override b's config file (a variable that is set wins).
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("GNAW_MCP_")}
    base_env["RUST_LOG"] = "info"
    env = dict(base_env)
    env.update({
        "GNAW_MCP_TENANTS": tenants,
        "GNAW_MCP_PUBLIC_URL": public_url,
        "GNAW_MCP_ALLOWED_ORIGINS": ALLOWED_ORIGIN,
        "GNAW_MCP_TRUSTED_PROXIES": "127.0.0.1",
        "GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
    })
    a = Instance("a", binary, ports["a"], env, tmp)
    b_conf = os.path.join(tmp, "b.toml")
    with open(b_conf, "w") as f:
        # The same settings as a's variables; tenants relative to this file's directory.
        f.write(f"""listen = "127.0.0.1:{ports['b']}"
tenants = "tenants.toml"
public_url = "{public_url}"
allowed_origins = ["{ALLOWED_ORIGIN}"]
trusted_proxies = ["127.0.0.1"]
max_connections_per_client = {PER_CLIENT}
audit_fd = 3
""")
    shown = subprocess.run([binary, "--config", b_conf, "--print-config"], env=base_env,
                           capture_output=True, text=True)
    check(shown.returncode == 0 and f'tenants = "{tenants}"' in shown.stdout
          and 'trusted_proxies = "127.0.0.1"' in shown.stdout,
          "b's config file: --print-config reads it (tenants resolved from its directory)",
          shown.stdout + shown.stderr)
    b = Instance("b", binary, ports["b"], base_env, tmp, config=b_conf)
    instances = {"a": a, "b": b}
    print(f"  gnaw-mcp a on 127.0.0.1:{ports['a']} (environment), b on 127.0.0.1:{ports['b']} "
          f"(--config b.toml, audit on fd 3); GNAW_MCP_PUBLIC_URL={public_url}, "
          f"GNAW_MCP_TRUSTED_PROXIES=127.0.0.1, GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT={PER_CLIENT}")

    tls_context = None
    if tls:
        subprocess.run([args.openssl, "req", "-x509", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                        "-subj", f"/CN={PUBLIC_HOST}",
                        "-addext", f"subjectAltName=DNS:{PUBLIC_HOST},IP:127.0.0.1",
                        "-keyout", paths["key"], "-out", paths["cert"]],
                       check=True, capture_output=True)
        tls_context = ssl.create_default_context(cafile=paths["cert"])
    else:
        print("  (openssl is not installed: the TLS listener is left out of the test)")
    with open(os.path.join(tmp, "gnaw-mcp.conf"), "w") as f:
        f.write(render(args.conf, ports, paths, tls))
    main_conf = os.path.join(tmp, "nginx.conf")
    with open(main_conf, "w") as f:
        f.write(f"""daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log notice;
events {{ worker_connections 512; }}
http {{
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    access_log off;
    include {tmp}/gnaw-mcp.conf;
}}
""")
    nginx_cmd = [args.nginx, "-p", tmp + "/", "-e", f"{tmp}/nginx-error.log", "-c", main_conf]
    t = subprocess.run(nginx_cmd + ["-t"], capture_output=True, text=True)
    check(t.returncode == 0, "nginx -t accepts the rendered contrib/nginx/gnaw-mcp.conf",
          t.stderr + tail(f"{tmp}/nginx-error.log"))
    nginx = start(nginx_cmd, env=None, log=os.path.join(tmp, "nginx-stdout.log"))
    wait_port(ports["plain"], nginx, "nginx", f"{tmp}/nginx-error.log")
    print(f"  nginx on 127.0.0.1:{ports['plain']} (http)"
          + (f", 127.0.0.1:{ports['tls']} (https)" if tls else "")
          + f", 127.0.0.1:{ports['redirect']} (the port-80 redirect)")
    P = ports["plain"]

    print("== (a) authentication and the metadata, through the proxy")
    r = req(P, "POST", "/mcp", {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"},
             modern_request("x", 1, "tools/list")[1])
    want = f'Bearer resource_metadata="{public_url}/.well-known/oauth-protected-resource"'
    check(r.status == 401 and r.header("WWW-Authenticate") == want,
          "no token: 401, WWW-Authenticate names the metadata under GNAW_MCP_PUBLIC_URL",
          f"{r.status} {r.header('WWW-Authenticate')!r}")
    r = modern(P, "gnaw_" + "0" * 64, 1, "tools/list")
    check(r.status == 401 and 'error="invalid_token"' in (r.header("WWW-Authenticate") or ""),
          "unknown token: 401 invalid_token", f"{r.status} {r.header('WWW-Authenticate')!r}")
    r = req(P, "GET", "/.well-known/oauth-protected-resource")
    check(r.status == 200 and r.json().get("resource") == f"{public_url}/mcp",
          "the protected-resource metadata is routed, and names the public URL",
          f"{r.status} {r.text()[:200]}")
    r = req(P, "GET", "/healthz")
    check(r.status == 200 and r.text().strip() == "ok",
          "/healthz is routed without a token: ok", f"{r.status} {r.text()[:200]}")
    r = req(P, "GET", "/metrics")
    check(r.status == 404, "/metrics is not proxied: 404 from nginx", str(r.status))
    r = req(P, "GET", "/elsewhere")
    check(r.status == 404, "another path: 404 from nginx", str(r.status))

    print("== Origin, passed through unchanged and checked by gnaw-mcp")
    headers, body = modern_request(alice, 1, "tools/list")
    r = req(P, "POST", "/mcp", {**headers, "Origin": "https://evil.example"}, body)
    check(r.status == 403, "a foreign Origin: 403", f"{r.status} {r.text()[:200]}")
    r = req(P, "POST", "/mcp", {**headers, "Origin": ALLOWED_ORIGIN}, body)
    check(r.status == 200, "an Origin in GNAW_MCP_ALLOWED_ORIGINS: 200", str(r.status))
    r = req(P, "POST", "/mcp", {**headers, "Origin": "http://localhost:3000"}, body)
    check(r.status == 403, "a loopback Origin (http://localhost:3000): 403, since behind a "
          "proxy it is the remote browser's own machine", f"{r.status} {r.text()[:200]}")
    r = req(P, "POST", "/mcp", {**headers, "Origin": public_url}, body)
    check(r.status == 200, f"the public URL's own origin ({public_url}): 200",
          f"{r.status} {r.text()[:200]}")

    print("== the client behind the proxy: X-Forwarded-For and X-Request-Id in the audit")
    before = {n: len(i.settled()) for n, i in instances.items()}
    headers, body = modern_request(alice, "xff", "tools/list")
    r = req(P, "POST", "/mcp", {**headers, "X-Forwarded-For": "203.0.113.7",
                                "X-Request-Id": "client-chosen-id"}, body)
    lines = [l for ls in new_lines(instances, before).values() for l in ls]
    check(r.status == 200 and len(lines) == 1
          and lines[0]["client"].startswith(PROXIED)
          and lines[0]["request_id"] not in (None, "client-chosen-id"),
          "a client's own X-Forwarded-For and X-Request-Id, through nginx: the audit names "
          f"the address nginx saw ({lines[0]['client'] if lines else '?'}) and nginx's "
          "request id", str(lines))
    for n, i in instances.items():
        before = len(i.audit())  # settled above
        r = req(i.port, "POST", "/mcp", {**headers, "X-Forwarded-For": "203.0.113.7",
                                         "X-Request-Id": f"direct-{n}.1:x_y"}, body)
        got = i.settled()[before:]
        check(r.status == 200 and len(got) == 1
              and got[0]["client"].startswith(f"{CLIENT}:")
              and got[0]["request_id"] == f"direct-{n}.1:x_y",
              f"straight to instance {n} (not a trusted proxy): X-Forwarded-For is ignored "
              f"({got[0]['client'] if got else '?'}); a plain X-Request-Id is kept", str(got))
    before = len(a.audit())
    r = req(a.port, "POST", "/mcp", {**headers, "X-Request-Id": "not plain<script>"}, body)
    got = a.settled()[before:]
    check(r.status == 200 and len(got) == 1 and got[0]["request_id"] is None,
          "an X-Request-Id that is not a plain token: request_id null", str(got))

    print("== (b) 2026-07-28 calls, stateless, spread over both instances")
    before = {n: len(i.audit()) for n, i in instances.items()}
    calls = 24
    for k in range(calls):
        kind = k % 4
        if kind == 0:
            r = modern(P, alice, k, "tools/list")
            ok = r.status == 200 and any(t["name"] == "grep" for t in r.json()["result"]["tools"])
        elif kind == 1:
            r = modern(P, alice, k, "tools/call", {"name": "grep", "arguments": {
                "repo": ".", "pattern": MARKER, "include": ["src/**"]}})
            ok = r.status == 200 and "src/main.rs" in result_text(r.json())
        elif kind == 2:
            r = modern(P, alice, k, "tools/call", {"name": "read", "arguments": {
                "repo": ".", "paths": ["src/main.rs:2"]}})
            ok = r.status == 200 and f"let {MARKER} = 1" in result_text(r.json())
        else:
            r = modern(P, bob, k, "tools/call", {"name": "grep", "arguments": {
                "repo": ".", "pattern": "bob_only|" + MARKER}})
            text = result_text(r.json()) if r.status == 200 else ""
            ok = "==> bob.rs" in text and "main.rs" not in text
        if not ok or r.json().get("id") != k:
            raise Failed(f"call {k}: {r.status} {r.text()[:400]}")
    lines = new_lines(instances, before)
    spread = {n: len(lines[n]) for n in instances}
    check(True, f"{calls} calls (tools/list, grep, read for alice; grep for bob): all answered "
          f"right, with the caller's id, each tenant seeing only its root")
    check(sum(spread.values()) == calls and min(spread.values()) >= calls // 4,
          f"they reached both instances: a {spread['a']}, b {spread['b']} "
          f"(each instance's audit lines)", str(spread))
    check(all(l["client"].startswith(PROXIED) for ls in lines.values() for l in ls),
          f"every one of their audit lines names the client behind nginx ({PROXIED}PORT)",
          str([l["client"] for ls in lines.values() for l in ls if not l["client"].startswith(PROXIED)]))
    by_id = access_lines(paths["access"])
    matched = [(n, l, by_id.get(l["request_id"] or "")) for n, ls in lines.items() for l in ls]
    bad = [(n, l["request_id"], hit) for n, l, hit in matched
           if hit is None or hit[0] != CLIENT or hit[2] != f"127.0.0.1:{instances[n].port}"
           or hit[1] != str(l["status"])]
    check(not bad, "each audit line's request_id is nginx's $request_id of the same request: "
          "its access-log line has the client's address, that instance as upstream and the "
          "same status", str(bad[:3]))

    print("== (c) an SSE answer streams through (progress, then the result)")
    t0 = time.time()
    conn, resp = streamed_search(P, alice, "sse-1", "p1", timeout=120)
    events = []
    data = []
    while True:
        line = resp.readline()
        if not line:
            break
        line = line.decode().rstrip("\r\n")
        if line.startswith("data: "):
            data.append(line[6:])
        elif line == "" and data:
            events.append((time.time() - t0, json.loads("\n".join(data))))
            data = []
    conn.close()
    check(resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream",
          "200 text/event-stream", f"{resp.status} {resp.getheader('Content-Type')}")
    progress = [(t, e) for t, e in events if e.get("method") == "notifications/progress"]
    final = events[-1][1] if events else {}
    check(final.get("id") == "sse-1" and "result" in final and progress
          and all(e["params"]["progressToken"] == "p1" for _, e in progress),
          f"{len(progress)} progress event(s) with the client's token, then the result",
          str([e for _, e in events])[:400])
    first, last = progress[0][0], events[-1][0]
    check(last - first >= 0.1,
          f"the first progress arrived {first:.2f} s in, the result at {last:.2f} s: "
          "events pass as they are sent, not held to the end",
          f"first {first:.3f} s, last {last:.3f} s")

    print("== closing the connection cancels the call, through the proxy")
    conn, resp = streamed_search(P, carol, "cancel-1", "c1", timeout=60)
    started = False
    while not started:
        line = resp.readline()
        if not line:
            break
        started = line.startswith(b"data: ") and b"notifications/progress" in line
    conn.sock.shutdown(socket.SHUT_RDWR)
    conn.close()
    closed = time.time()
    cancelled = []
    while not cancelled and time.time() - closed < 10:
        time.sleep(0.1)
        cancelled = [(n, l) for n, i in instances.items() for l in i.audit()
                     if l.get("tenant") == "carol"
                     and l.get("decision") == "refused: client closed the connection; call cancelled"]
    check(started and cancelled,
          "a search closed by its client after its first progress event: nginx closes its "
          f"connection, and instance {cancelled[0][0] if cancelled else '?'} cancels the call "
          f"({time.time() - closed:.1f} s after the close)", "no cancellation in the audit")

    print("== (d) legacy sessions (2025-06-18), kept on one instance by the token's hash")
    before = {n: i.settled() for n, i in instances.items()}
    sessions = {}
    for who, token in (("alice", alice), ("bob", bob)):
        s = initialize(P, token)
        for rid in range(1, 4):
            r = legacy_call(P, token, s, rid, "tools/call", {"name": "grep", "arguments": {
                "repo": ".", "pattern": "bob_only" if who == "bob" else MARKER}})
            want_file = "bob.rs" if who == "bob" else "src/main.rs"
            if r.status != 200 or want_file not in result_text(r.json()):
                raise Failed(f"{who}'s legacy call {rid}: {r.status} {r.text()[:300]}")
            if "structuredContent" not in r.json()["result"]:
                raise Failed(f"{who}'s legacy answer is not shaped for {LEGACY}")
        r = legacy_call(P, token, s, 9, "tools/list")
        if r.status != 200:
            raise Failed(f"{who}'s tools/list: {r.status} {r.text()[:300]}")
        sessions[who] = s
    home = {}
    for who in ("alice", "bob"):
        tenant_lines = {n: [l for l in i.settled()[len(before[n]):]
                            if l.get("tenant") == who]
                        for n, i in instances.items()}
        used = [n for n, lines in tenant_lines.items() if lines]
        check(len(used) == 1 and len(tenant_lines[used[0]]) == 6,
              f"{who}: initialize, initialized, 3 calls and tools/list, all on instance "
              f"{used[0] if used else '?'}", str({n: len(l) for n, l in tenant_lines.items()}))
        home[who] = used[0]
    other = {"a": b, "b": a}[home["alice"]]
    r = legacy_call(other.port, alice, sessions["alice"], 10, "tools/list")
    check(r.status == 404, "the same session sent straight to the other instance: 404 "
          "(why the stickiness is needed)", str(r.status))

    print(f"== connections: nginx is not bounded per address (GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT"
          f"={PER_CLIENT} on the instances), the client is")
    home_i = instances[home["alice"]]
    before = len(home_i.settled())
    streams = []
    n_streams = PER_CLIENT + 2
    statuses = []
    try:
        for _ in range(n_streams):
            s = initialize(P, alice)
            sock = socket.create_connection(("127.0.0.1", P), timeout=10,
                                            source_address=(CLIENT, 0))
            streams.append(sock)
            head = "".join(f"{k}: {v}\r\n" for k, v in legacy_headers(alice, s).items())
            sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: {PUBLIC_HOST}\r\n{head}\r\n".encode())
            got = b""
            while b"\r\n" not in got:
                chunk = sock.recv(256)
                if not chunk:
                    break
                got += chunk
            statuses.append(int(got.split()[1]) if got.startswith(b"HTTP/1.1 ") else got)
    finally:
        # Every stream was open until here: the instance held them all at once.
        for sock in streams:
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()
    gets = []
    deadline = time.time() + 10
    while len(gets) < n_streams and time.time() < deadline:
        time.sleep(0.1)
        gets = [l for l in home_i.audit()[before:] if l["http"] == "GET"]
    check(statuses == [200] * n_streams and len(gets) == n_streams
          and all(l["client"].startswith(PROXIED) for l in gets),
          f"{n_streams} legacy session streams (GET) open at once through nginx: all 200, "
          f"{n_streams} connections from nginx to instance {home_i.name} at once", 
          f"{statuses} {[l['client'] for l in gets]}")
    direct = []
    try:
        for _ in range(PER_CLIENT + 1):
            sock = socket.create_connection(("127.0.0.1", a.port), timeout=5,
                                            source_address=(CLIENT, 0))
            direct.append(sock)
        first = direct[-1].recv(64)
        held = []
        for sock in direct[:-1]:
            sock.setblocking(False)
            try:
                held.append(sock.recv(64))
            except BlockingIOError:
                held.append(None)
    finally:
        for sock in direct:
            sock.close()
    # The instance frees the address's slots as its threads see the closes.
    deadline = time.time() + 5
    while time.time() < deadline:
        if req(a.port, "GET", "/.well-known/oauth-protected-resource").status == 200:
            break
    check(first.startswith(b"HTTP/1.1 429") and held == [None] * PER_CLIENT,
          f"{PER_CLIENT + 1} connections straight from {CLIENT} to instance a: the last one "
          "is refused (429), the address is bounded", f"{first!r} {held}")

    print("== bodies and transports")
    headers, body = modern_request(alice, "chunked", "tools/list")
    r = req(P, "POST", "/mcp", headers, body, chunked=True)
    check(r.status == 200 and r.json().get("id") == "chunked",
          "a chunked request body: nginx reads it whole and sends Content-Length (200)",
          f"{r.status} {r.text()[:200]}")
    r = req(ports["a"], "POST", "/mcp", headers, body, chunked=True)
    check(r.status == 411, "(the same body straight to an instance: 411)", str(r.status))
    big = json.dumps(body).encode()[:-1] + b', "pad": "' + b"x" * (4 << 20) + b'"}'
    r = req(P, "POST", "/mcp", headers, big)
    check(r.status == 413, "a body over 4 MiB: 413 from nginx (client_max_body_size 4m)",
          str(r.status))
    if tls:
        r = modern(ports["tls"], alice, "tls", "tools/call", {"name": "read", "arguments": {
            "repo": ".", "paths": ["src/main.rs:2"]}}, tls=tls_context)
        check(r.status == 200 and MARKER in result_text(r.json()),
              "a call over TLS (self-signed certificate, HTTP/1.1 by ALPN)", str(r.status))
    r = req(ports["redirect"], "POST", "/mcp", {"Host": "mcp.example.com"}, {"x": 1})
    check(r.status == 308 and r.header("Location") == "https://mcp.example.com/mcp",
          "the port-80 server: 308 to https", f"{r.status} {r.header('Location')}")

    print(f"== (e) instance {home['alice']} (alice's legacy sessions) killed (SIGKILL)")
    dead = instances[home["alice"]]
    alive = other
    stop(dead.proc, signal.SIGKILL)
    n_before = len(alive.settled())
    kill_calls = 12
    for k in range(kill_calls):
        r = modern(P, alice, 100 + k, "tools/call", {"name": "read", "arguments": {
            "repo": ".", "paths": ["src/main.rs:2"]}})
        if r.status != 200 or MARKER not in result_text(r.json()):
            raise Failed(f"stateless call {k} after the kill: {r.status} {r.text()[:300]}")
    served = len(alive.settled()) - n_before
    check(served == kill_calls,
          f"{kill_calls} stateless calls after the kill: all 200, all served by {alive.name} "
          "(a refused connection is retried on the other instance)", f"{served} served")
    with open(paths["access"]) as f:
        retried = [l for l in f if f"upstream=127.0.0.1:{dead.port}, 127.0.0.1:{alive.port}" in l
                   and "upstream_status=502, 200" in l]
    check(len(retried) >= 1, f"nginx's access log shows the retry: {len(retried)} POST(s) "
          "refused by the dead instance and answered by the live one",
          tail(paths["access"], 14))
    r = legacy_call(P, alice, sessions["alice"], 20, "tools/list")
    check(r.status == 404 and r.json()["error"]["data"]["kind"] == "UnknownSession",
          "alice's legacy session, held by the dead instance: 404 UnknownSession", str(r.status))
    s = initialize(P, alice)
    r = legacy_call(P, alice, s, 21, "tools/call", {"name": "grep", "arguments": {
        "repo": ".", "pattern": MARKER}})
    check(r.status == 200 and "src/main.rs" in result_text(r.json()),
          f"initialize again: a new session on {alive.name}, and its calls work", str(r.status))
    if home["bob"] == alive.name:
        r = legacy_call(P, bob, sessions["bob"], 22, "tools/list")
        check(r.status == 200, "bob's session, on the live instance, goes on", str(r.status))
    with open(paths["access"]) as f:
        log = f.read()
    check("Bearer" not in log and alice not in log, "nginx's access log holds no token")
    with open(b.log, errors="replace") as f:
        on_stderr = sum(1 for l in f if l.startswith('{"audit"'))
    check(on_stderr == 0 and len(b.audit()) > 20,
          f"instance b's audit trail went to descriptor 3 ({len(b.audit())} lines in "
          "b-audit.log), none to its stderr", f"{on_stderr} on stderr")


if __name__ == "__main__":
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    sys.exit(main())
