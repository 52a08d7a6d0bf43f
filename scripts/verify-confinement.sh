#!/usr/bin/env bash
# verify-confinement.sh: prove, on this host, that gnaw-mcp stays inside its root.
#
# For operators' CI. It
#   1. builds gnaw-mcp (cargo build --release) or takes a given binary;
#   2. runs `gnaw-mcp --self-test` (the Landlock probes, in a sandboxed child);
#   3. builds a scratch root next to a canary directory, full of hostile links, and drives the
#      real server over stdio with an attack corpus of `repo` arguments, checking that each one
#      gets JSON-RPC -32602 with the expected rejection kind;
#   4. sends the same corpus through the navigation tools' own path arguments (read's paths,
#      grep's after, tree's path, relative to the repo "."), each with the kind it must answer;
#   5. checks that the canary string never appears on the server's stdout or stderr;
#   6. serves two roots (GNAW_MCP_ROOT=root:second): the self-test reads both and nothing above
#      them; each is reached by name, a link between them is served under the target root's
#      name, links to a canary or an unlisted sibling are refused;
#   7. the HTTP mode (--listen, two tenants): the self-test proves each tenant's worker, its roots
#      handed over as descriptors, cannot read or list the other tenant's root with the
#      userspace check removed; then alice's token, through the real front door, never reads a
#      file of bob's, through any spelling of his root or a link into it.
# It ends with `N passed, N failed` and exits 1 on any failure.
#
# Usage: scripts/verify-confinement.sh [--binary PATH]      (or GNAW_MCP_BIN=PATH)
# Needs bash and python3 (standard library only).
set -euo pipefail

bin="${GNAW_MCP_BIN:-}"
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) bin="${2:?--binary needs a path}"; shift 2 ;;
        --binary=*) bin="${1#--binary=}"; shift ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "verify-confinement: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done

if [ -z "$bin" ]; then
    repo="$(cd "$(dirname "$0")/.." && pwd)"
    echo "building gnaw-mcp (release)..." >&2
    (cd "$repo" && cargo build --release --quiet --bin gnaw-mcp)
    bin="${CARGO_TARGET_DIR:-$repo/target}/release/gnaw-mcp"
fi
if [ ! -x "$bin" ]; then
    echo "verify-confinement: $bin is not an executable; build it or pass --binary PATH" >&2
    exit 2
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
command -v python3 >/dev/null || { echo "verify-confinement: python3 is required" >&2; exit 2; }

exec python3 - "$bin" <<'PY'
import json, os, secrets, select, shutil, subprocess, sys, tempfile, time

BIN = sys.argv[1]
passed = failed = 0

def verdict(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {what}")
    else:
        failed += 1
        print(f"FAIL  {what}{': ' + detail if detail else ''}")

# ------------------------------------------------------------------ scratch tree
work = os.path.realpath(tempfile.mkdtemp(prefix="gnaw-verify-"))
import atexit
atexit.register(shutil.rmtree, work, True)
root = os.path.join(work, "root")
canary_dir = os.path.join(work, "canary")
CANARY = "GNAW-CANARY-" + secrets.token_hex(12)
os.makedirs(os.path.join(root, "sub", "deeper"))
os.makedirs(canary_dir)
with open(os.path.join(canary_dir, "secret.txt"), "w") as f:
    f.write(CANARY + "\n")
with open(os.path.join(root, "file.txt"), "w") as f:
    f.write("inside the root\n")
with open(os.path.join(root, "sub", "inner.txt"), "w") as f:
    f.write("inner file\n")
for sib in ["root-evil", "root2", "root.bak", "root_backup"]:
    os.makedirs(os.path.join(work, sib))
    with open(os.path.join(work, sib, "leak.txt"), "w") as f:
        f.write(CANARY + "\n")
secret = os.path.join(canary_dir, "secret.txt")
links = {
    "link_out_file": secret,
    "link_out_dir": canary_dir,
    "rel_out": "../canary/secret.txt",
    "rel_up_up": "../../x",
    "hop1": "hop2", "hop2": "hop3", "hop3": secret,
    "dangling": "nothing-here",
    "dangling_out": "/gnaw-verify-does-not-exist",
    "loop_a": "loop_b", "loop_b": "loop_a",
    "self_link": "self_link",
    "proc_root": "/proc/self/root",
    "proc_cwd": "/proc/self/cwd",
    "dev_zero": "/dev/zero",
    "sub/ancestor": canary_dir,
    "sub/deeper/up3": "../../../canary",
}
for name, target in links.items():
    os.symlink(target, os.path.join(root, name))
os.symlink(root, os.path.join(work, "rootlink"))
os.mkfifo(os.path.join(root, "fifo"))
with open(os.path.join(root, ".git"), "w") as f:
    f.write(f"gitdir: {canary_dir}\n")
try:
    os.link(secret, os.path.join(root, "hardlink.txt"))
except OSError:
    pass  # another filesystem: nothing to prove here

# ------------------------------------------------------------------ 1. --self-test
env = dict(os.environ, GNAW_MCP_ROOT=root)
st = subprocess.run([BIN, "--self-test"], env=env, capture_output=True, text=True, timeout=120)
print(st.stdout, end="")
last = st.stdout.strip().splitlines()[-1] if st.stdout.strip() else ""
verdict(st.returncode == 0 and last.endswith(", 0 failed"),
        "gnaw-mcp --self-test passes on this host",
        f"exit {st.returncode}; {st.stderr.strip()[:300]}")
for out in (st.stdout, st.stderr):
    verdict(CANARY not in out, "self-test output holds no canary")

# ------------------------------------------------------------------ 2. the attack corpus
OUT, NF, INV, NAD = "OutsideRoot", "NotFound", "InvalidPath", "NotADirectory"
R, W = root, work
corpus = [
    # .. chains
    ("..", OUT), ("../", OUT), ("../..", OUT), ("../canary", OUT), ("../canary/secret.txt", OUT),
    ("sub/../..", OUT), ("sub/../../canary", OUT), ("./../canary", OUT), ("sub/deeper/../../..", OUT),
    ("../root/../canary", OUT), ("../root", OUT), ("../" * 1000 + "etc", OUT),
    ("a/" * 10 + "../" * 11 + "canary", NF),
    # absolute elsewhere
    ("/", OUT), ("/etc", OUT), ("/etc/passwd", OUT), ("/tmp", OUT), (W, OUT), (canary_dir, OUT),
    (secret, OUT), ("/gnaw-verify-does-not-exist", OUT), ("//", OUT), ("/./", OUT),
    ("//etc", OUT), (R + "/..", OUT), (R + "/../canary", OUT), (R + "/sub/../../canary", OUT),
    # empty, dots, slashes
    ("", INV), ("sub//missing", NF), ("file.txt", NAD), ("file.txt/", NAD), ("file.txt/x", NF),
    ("missing", NF), ("missing/", NF), ("fifo", NAD),
    # sibling prefixes of the root
    (R + "-evil", OUT), (R + "2", OUT), (R + ".bak", OUT), (R + "_backup", OUT),
    ("../root-evil", OUT), ("../root2", OUT), ("../root.bak", OUT), ("../root_backup", OUT),
    # literal names, never decoded
    ("%2e%2e", NF), ("%2e%2e/canary", NF), ("..%2f..%2fcanary", NF), ("%2E%2E%2F", NF),
    ("..\\..\\canary", NF), ("C:\\x", NF), ("\\\\server\\share", NF), ("~", NF), ("$HOME", NF),
    # NUL anywhere
    ("\0", INV), ("a\0b", INV), ("..\0", INV), ("sub\0/../..", INV), (R + "\0", INV),
    # symlinks out: file, dir, ancestor, 3 hops, relative, dangling, loops, self
    ("link_out_file", OUT), ("link_out_dir", OUT), ("link_out_dir/", OUT),
    ("link_out_dir/secret.txt", OUT), ("sub/ancestor", OUT), ("sub/ancestor/secret.txt", OUT),
    ("sub/deeper/up3", OUT), ("hop1", OUT), ("rel_out", OUT), ("rel_up_up", OUT),
    ("dangling", NF), ("dangling_out", OUT), ("loop_a", INV), ("self_link", INV),
    ("self_link/x", INV), ("dev_zero", OUT), (W + "/rootlink/../canary", OUT),
    # /proc
    ("proc_root", OUT), ("proc_root/etc", OUT), ("proc_cwd", OUT), ("/proc/self/root", OUT),
    ("/proc/self/root/etc", OUT), ("/proc/self/root" + canary_dir, OUT), ("/proc/self/cwd", OUT),
    ("/proc/self/fd/0", OUT), ("/proc/self/fd/1", OUT), ("/proc/self/fd/2", OUT),
    # (fd 3 and up may be the server's own fd on its root: that resolves to the root and is
    # served like any other spelling of it; a missing fd is OutsideRoot like any missing path)
    ("/proc/self/fd/999", OUT), ("/proc/self/environ", OUT), ("/proc/1/root", OUT),
    ("/proc/self/root/proc/self/cwd", OUT), ("/dev/zero", OUT), ("/dev/stdin", OUT),
    # long names and paths
    ("a" * 256, INV), ("a" * 255, NF), ("sub/" + "b" * 300, INV), ("a/" * 2100, INV),
    ("../" * 1400, INV), ("/" + "x" * 5000, INV),
    # odd but legal names: never decoded, simply absent
    ("new\nline", NF), ("back`tick`", NF), ("\x1b[31mred", NF), ("rtl\u202etxt", NF),
    ("zero\u200bwidth", NF), ("caf\u00e9", NF), ("cafe\u0301", NF),
]
# Wrong JSON types for repo. (A null or missing repo is the one root of this server: below.)
typed = [(7, INV), (True, INV), (["."], INV), ({"path": "."}, INV)]
# Non-UTF-8 cannot be carried by JSON; its closest spelling, a lone surrogate escape, must be
# refused before anything else as a parse error.
raw_lines = ['{"jsonrpc":"2.0","id":"raw1","method":"tools/call","params":{"name":"extract","arguments":{"repo":"\\udc80"}}}',
             '{"jsonrpc":"2.0","id":"raw2","method":"tools/call","params":{"name":"extract","arguments":{"repo":"..\\ud800/x"}}}']
# Paths that really lie inside (or resolve to) the root: they must be served.
positive = [".", "./", "sub", "sub/", R, R + "/", "sub/deeper/.."]
# Outside spellings that lead into the root are refused without saying where they lead (an
# absolute path is accepted only under the root as the operator spelled it, or canonical).
corpus += [(W + "/rootlink", OUT), ("/proc/self/root" + R, OUT)]

proc = subprocess.Popen([BIN], cwd=work, env=dict(env, RUST_LOG="debug"), stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
stdout_buf, stderr_buf = bytearray(), bytearray()
responses = {}

def pump(deadline):
    fds = [proc.stdout, proc.stderr]
    while time.time() < deadline:
        ready, _, _ = select.select(fds, [], [], 0.2)
        for f in ready:
            chunk = os.read(f.fileno(), 1 << 16)
            if not chunk:
                fds.remove(f)
                continue
            (stdout_buf if f is proc.stdout else stderr_buf).extend(chunk)
        while b"\n" in stdout_buf[consumed[0]:]:
            end = stdout_buf.index(b"\n", consumed[0])
            msg = json.loads(stdout_buf[consumed[0]:end])
            consumed[0] = end + 1
            if "id" in msg:
                responses[json.dumps(msg["id"])] = msg
        if not fds:
            return
        if waiting[0] is not None and waiting[0] in responses:
            return
consumed = [0]
waiting = [None]

def call(id_, repo_value, tool="extract", raw=None):
    """Send one tools/call and wait for the answer with id `id_` (None: a parse error's null id)."""
    arguments = {"repo": repo_value}
    if tool == "search":
        arguments["query"] = "inner marker"
    line = raw if raw is not None else json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    responses.pop("null", None)
    proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()
    waiting[0] = json.dumps(id_)
    pump(time.time() + 60)
    return responses.get(json.dumps(id_))

proc.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"verify","version":"1"}}}\n')
proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
proc.stdin.flush()
waiting[0] = "0"
pump(time.time() + 30)
verdict(json.dumps(0) in responses and "result" in responses[json.dumps(0)], "server starts and initializes")

def show(v):
    s = repr(v)
    return s if len(s) < 70 else s[:60] + f"... ({len(s)} chars)"

n = 0
for value, kind in corpus + typed:
    n += 1
    for tool in ("extract", "estimate", "search") if n % 5 == 0 else ("extract",):
        r = call(f"c{n}-{tool}", value, tool)
        err = (r or {}).get("error") or {}
        got = (err.get("code"), (err.get("data") or {}).get("kind"))
        verdict(got == (-32602, kind), f"{tool} repo={show(value)} -> -32602 {kind}", f"got {got if r else 'no answer'}")
for i, line in enumerate(raw_lines):
    r = call(None, None, raw=line)
    code = ((r or {}).get("error") or {}).get("code")
    verdict(code == -32700, f"non-UTF-8 (lone surrogate) repo -> -32700 parse error", f"got {code}")
# With one root, a missing or null repo is that root: served, and nothing outside it.
for id_, args in (("missing-repo", "{}"), ("null-repo", '{"repo":null}')):
    r = call(id_, None, raw='{"jsonrpc":"2.0","id":"%s","method":"tools/call","params":{"name":"extract","arguments":%s}}' % (id_, args))
    text = json.dumps(r)
    ok = r is not None and "result" in r and not r["result"].get("isError")
    verdict(ok and "inner.txt" in text and CANARY not in text,
            f"extract with repo {args} is the one root, served", f"got {text[:200]}")

for i, value in enumerate(positive):
    r = call(f"p{i}", value)
    ok = r is not None and "result" in r and not r["result"].get("isError")
    text = json.dumps(r)
    verdict(ok, f"extract repo={show(value)} inside the root is served", f"got {text[:200]}")
# The navigation tools' path arguments, relative to the repo "." (the root). A directory is
# reported by read and refused as NotAFile by after; a non-directory is served by read and after
# and refused as NotADirectory by tree. A value that is not a string is a wrongly typed argument
# (InvalidArguments); JSON null for an optional argument means "absent".
def nav_call(id_, tool, value):
    if tool in ("read", "outline"):
        args = {"repo": ".", "paths": [value]}
        name = tool
    elif tool == "after":
        args = {"repo": ".", "pattern": "inner", "after": value + ":1" if isinstance(value, str) else value}
        name = "grep"
    else:
        args = {"repo": ".", "path": value, "depth": 1}
        name = "tree"
    line = json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                       "params": {"name": name, "arguments": args}})
    return call(id_, None, raw=line)

def nav_expect(tool, value, kind):
    slash = isinstance(value, str) and value.endswith("/")
    if not isinstance(value, str):
        return "InvalidArguments"  # not a string: wrongly typed, as for every argument but repo
    if kind == NAD and not slash and tool in ("read", "after", "outline"):
        return None
    return kind

nav_cases = [(v, k) for v, k in corpus + typed] + [(v, "DIR") for v in positive]
for i, (value, kind) in enumerate(nav_cases):
    for tool in ("read", "after", "tree", "outline"):
        if value is None and tool not in ("read", "outline"):
            continue
        want = nav_expect(tool, value, kind)
        if kind == "DIR":
            want = "NotAFile" if tool == "after" else None
        r = nav_call(f"n{i}-{tool}", tool, value)
        err = (r or {}).get("error") or {}
        if want is None:
            ok = r is not None and "result" in r and not r["result"].get("isError")
            verdict(ok, f"{tool} {show(value)} -> served", f"got {json.dumps(r)[:200]}")
        else:
            got = (err.get("code"), (err.get("data") or {}).get("kind"))
            verdict(got == (-32602, want), f"{tool} {show(value)} -> -32602 {want}", f"got {got if r else 'no answer'}")

# search's include and exclude globs: every corpus input as a glob only filters what is inside
# the repo; it is served (or refused as a bad argument) and never reaches outside.
for i, (value, kind) in enumerate(corpus):
    if not isinstance(value, str):
        continue
    for which in ("include", "exclude"):
        line = json.dumps({"jsonrpc": "2.0", "id": f"g{i}-{which}", "method": "tools/call",
            "params": {"name": "search", "arguments": {"repo": ".", "query": "inner marker", which: [value]}}})
        r = call(f"g{i}-{which}", None, raw=line)
        text = json.dumps(r)
        err = (r or {}).get("error") or {}
        ok = r is not None and CANARY not in text and ("result" in r or err.get("code") == -32602)
        verdict(ok, f"search {which}={show(value)} -> served or -32602, nothing outside", f"got {text[:200]}")

r = call("whole", ".")
text = json.dumps(r)
verdict("inside the root" in text and "inner file" in text, "extract . includes the root's own files")
verdict("hardlink.txt" not in text or CANARY not in text, "a hard link to a file outside is not read")

proc.stdin.write(b'{"jsonrpc":"2.0","id":"last","method":"ping"}\n')
proc.stdin.flush()
waiting[0] = '"last"'
pump(time.time() + 30)
verdict(json.dumps("last") in responses, "server still answers ping after the corpus")
proc.stdin.close()
waiting[0] = None
pump(time.time() + 30)
rc = proc.wait(timeout=30)
verdict(rc == 0, "server exits 0 on end of input", f"exit {rc}")
verdict(CANARY.encode() not in stdout_buf, "canary never on stdout", f"{len(stdout_buf)} bytes checked")
verdict(CANARY.encode() not in stderr_buf, "canary never on stderr", f"{len(stderr_buf)} bytes checked")
print(f"({len(corpus) + len(typed) + len(raw_lines)} attack inputs, and {len(nav_cases)} through each navigation path argument; {len(stdout_buf)} bytes of stdout and {len(stderr_buf)} of stderr scanned)")

# ------------------------------------------------------------------ 4. two roots
# GNAW_MCP_ROOT=root:second: each root by its name, a link from one root into the other served
# under the target root's name, nothing between, beside or above them.
second = os.path.join(work, "second")
os.makedirs(second)
with open(os.path.join(second, "notes.txt"), "w") as f:
    f.write("the second root\n")
os.symlink("../root/sub", os.path.join(second, "to-root"))
os.symlink(canary_dir, os.path.join(second, "to-canary"))
os.symlink("../root-evil", os.path.join(second, "to-sibling"))
two = os.pathsep.join([root, second])
st = subprocess.run([BIN, "--self-test"], env=dict(os.environ, GNAW_MCP_ROOT=two),
                    capture_output=True, text=True, timeout=120)
last = st.stdout.strip().splitlines()[-1] if st.stdout.strip() else ""
verdict(st.returncode == 0 and last.endswith(", 0 failed") and "ok         read_other_root" in st.stdout
        and "ok         list_above_roots" in st.stdout,
        "gnaw-mcp --self-test passes on two roots (the second is read, what lies above is not)",
        f"exit {st.returncode}; {last}")
roots_cases = [
    ("root", "root"), ("second", "second"), ("root/sub", "root/sub"),
    ("second/to-root", "root/sub"), ("root/../second", "second"),
    (".", INV), ("sub", INV), ("canary", INV), ("root-evil", INV),
    ("second/to-canary", OUT), ("second/to-sibling", OUT), ("root/../canary", OUT),
    ("root/..", OUT), ("../canary", OUT), (W, OUT), (canary_dir, OUT), (secret, OUT),
]
lines = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "verify", "version": "0"}}})]
for i, (repo, _) in enumerate(roots_cases, 1):
    lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                             "params": {"name": "extract", "arguments": {"repo": repo}}}))
p2 = subprocess.run([BIN], input="\n".join(lines) + "\n", env=dict(os.environ, GNAW_MCP_ROOT=two),
                    capture_output=True, text=True, timeout=120)
answers = {}
for line in p2.stdout.splitlines():
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    answers[msg.get("id")] = msg
for i, (repo, want) in enumerate(roots_cases, 1):
    r = answers.get(i) or {}
    if want in (OUT, INV):
        got = ((r.get("error") or {}).get("code"), ((r.get("error") or {}).get("data") or {}).get("kind"))
        verdict(got == (-32602, want), f"two roots: repo {show(repo)} -> -32602 {want}", f"got {got}")
    else:
        text = ((r.get("result") or {}).get("content") or [{}])[0].get("text", "")
        verdict(text.startswith(f"# `{want}`"), f"two roots: repo {show(repo)} -> served as {want}",
                f"got {json.dumps(r)[:200]}")
verdict(p2.returncode == 0, "two roots: server exits 0 on end of input", f"exit {p2.returncode}")
for out in (p2.stdout, p2.stderr, st.stdout, st.stderr):
    verdict(CANARY not in out, "two roots: no canary in the server's output")

# ------------------------------------------------------------------ 5. HTTP: tenants apart
# Two tenants: alice on the scratch root, bob on a root of his own holding the canary. The
# self-test hands each tenant's child its roots as the spawner hands them to a worker, and the
# kernel alone (raw opens, no userspace check) must keep each from the other's root; then the
# real --listen server is driven with alice's token and every spelling of bob's root.
bob = os.path.join(work, "bob")
os.makedirs(os.path.join(bob, "sub"))
with open(os.path.join(bob, "bob.txt"), "w") as f:
    f.write(CANARY + "\n")
os.symlink(bob, os.path.join(root, "to-bob"))
def mint(name, root_dir):
    out = subprocess.run([BIN, "--mint-token", name], capture_output=True, text=True,
                         check=True).stdout
    table = out.split("GNAW_MCP_TENANTS):\n", 1)[1].replace("/path/to/repo", root_dir)
    return out.splitlines()[1], table
alice_token, alice_table = mint("alice", root)
_, bob_table = mint("bob", bob)
tenants = os.path.join(work, "tenants.toml")
with open(tenants, "w") as f:
    f.write(alice_table + bob_table)
http_env = dict(os.environ, GNAW_MCP_ROOT=root, GNAW_MCP_TENANTS=tenants)
http_env.pop("GNAW_MCP_LISTEN", None)
st = subprocess.run([BIN, "--self-test"], env=http_env, capture_output=True, text=True,
                    timeout=120)
for tenant in ("alice", "bob"):
    for probe in ("read_other_tenant", "list_other_tenant"):
        verdict(f"ok         {probe}[{tenant}]: denied with EACCES" in st.stdout,
                f"HTTP: {tenant}'s worker cannot {probe.split('_')[0]} the other tenant's root "
                "(kernel alone)", st.stdout[-300:])
verdict(st.returncode == 0, "HTTP: gnaw-mcp --self-test passes with the tenants file",
        f"exit {st.returncode}")
server = subprocess.Popen([BIN, "--listen", "127.0.0.1:0"], env=dict(http_env, RUST_LOG="info"),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
port = None
log = []
deadline = time.time() + 60
while time.time() < deadline:
    line = server.stderr.readline()
    if not line:
        break
    log.append(line)
    if "listening on http://127.0.0.1:" in line:
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        break
verdict(port is not None, "HTTP: gnaw-mcp --listen starts with two tenants", "".join(log)[-300:])
import urllib.request, urllib.error
def http_call(i, tool, args):
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                       "params": {"name": tool, "arguments": args,
                                  "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                            "io.modelcontextprotocol/clientCapabilities": {}}}})
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body.encode(), method="POST",
                                 headers={"Authorization": "Bearer " + alice_token,
                                          "Content-Type": "application/json",
                                          "Accept": "application/json, text/event-stream",
                                          "MCP-Protocol-Version": "2026-07-28",
                                          "Mcp-Method": "tools/call", "Mcp-Name": tool})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.read().decode()
    except urllib.error.HTTPError as e:
        return e.read().decode()
if port is not None:
    n = 0
    for repo in ["../bob", bob, bob + "/sub", "to-bob", "to-bob/sub", "/", work, "bob", ".."]:
        for tool, args in (("tree", {"repo": repo}), ("read", {"repo": repo, "paths": ["bob.txt"]}),
                           ("grep", {"repo": repo, "pattern": "CANARY"})):
            n += 1
            answer = http_call(n, tool, args)
            verdict(CANARY not in answer, f"HTTP: alice's {tool} repo={show(repo)} shows none of bob's files")
    answer = http_call(n + 1, "read", {"repo": ".", "paths": ["to-bob/bob.txt"]})
    verdict(CANARY not in answer, "HTTP: alice's read through a link into bob's root shows nothing")
    answer = http_call(n + 2, "tree", {"repo": "."})
    verdict("file.txt" in answer, "HTTP: alice's own root is served", answer[:200])
    server.kill()
    server.wait()
    rest = server.stderr.read()
    verdict(CANARY not in "".join(log) + rest, "HTTP: no canary in the server's log")

shutil.rmtree(work, ignore_errors=True)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
