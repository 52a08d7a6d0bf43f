"""gnaw-mcp interop: judge the EOF check's run (tests/interop/eof.sh): the server's exit status,
its stdout (one JSON-RPC message per line, nothing else) and, on failure, its stderr's tail.
Standard library only. Prints ok/FAIL lines for scripts/interop.sh; exits 1 on any failure.

Usage: eof_check.py EXIT_STATUS STDOUT_FILE STDERR_FILE
"""

import json
import sys

status = int(sys.argv[1])
with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
    lines = f.read().splitlines()
with open(sys.argv[3], encoding="utf-8", errors="replace") as f:
    stderr = f.read()
failed = 0


def check(ok: bool, what: str, detail: str = "") -> None:
    global failed
    if ok:
        print(f"ok   eof {what}")
    else:
        failed += 1
        print(f"FAIL eof {what}{': ' + detail if detail else ''}")


if status == 124:
    check(False, "server exits after EOF", "still running 60 s after stdin closed (killed)")
else:
    check(status == 0, "server exits 0 after EOF", f"exit status {status}")

messages, junk = [], []
for line in lines:
    try:
        msg = json.loads(line)
    except ValueError:
        junk.append(line)
        continue
    if isinstance(msg, dict) and msg.get("jsonrpc") == "2.0":
        messages.append(msg)
    else:
        junk.append(line)
check(not junk, "stdout holds JSON-RPC messages only", f"{len(junk)} other line(s), first {junk[:1]!r:.200}")

responses = {}
for msg in messages:
    if "id" in msg:
        responses.setdefault(json.dumps(msg["id"]), []).append(msg)
unexpected = sorted(set(responses) - {"1", "2", "3", "4"})
check(not unexpected, "no answer to an id that was not sent", f"ids {unexpected}")
dupes = sorted(k for k, v in responses.items() if len(v) > 1)
check(not dupes, "no id answered twice", f"ids {dupes}")


def answer(i: int):
    got = responses.get(str(i))
    return got[0] if got else None


def expect(i: int, what: str, judge) -> None:
    msg = answer(i)
    if msg is None:
        check(False, f"id {i} ({what}) is answered", "no response before the server exited")
        return
    ok, detail = judge(msg)
    check(ok, f"id {i} ({what}) is answered", detail if not ok else "")


expect(1, "initialize", lambda m: (
    isinstance(m.get("result"), dict) and "protocolVersion" in m["result"], json.dumps(m)[:300]))
expect(2, "tools/call estimate", lambda m: (
    isinstance(m.get("result"), dict)
    and m["result"].get("isError") is not True
    and isinstance(m["result"].get("structuredContent", {}).get("tokens"), int),
    json.dumps(m)[:300]))
expect(3, "tools/call with repo ../..", lambda m: (
    isinstance(m.get("error"), dict)
    and m["error"].get("code") == -32602
    and (m["error"].get("data") or {}).get("kind") == "OutsideRoot",
    json.dumps(m)[:300]))
expect(4, "ping", lambda m: (m.get("result") == {}, json.dumps(m)[:300]))

if failed:
    tail = "\n".join(stderr.splitlines()[-8:])
    print("     eof: the server's stderr ended with:")
    for line in tail.splitlines():
        print(f"     | {line[:300]}")
sys.exit(1 if failed else 0)
