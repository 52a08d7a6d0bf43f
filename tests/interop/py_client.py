"""gnaw-mcp interop: drive the server with the official Python MCP SDK (`mcp`, pinned in
tests/interop/requirements.txt) in each of its connect modes (`legacy`: the initialize
handshake; `auto`: probe `server/discover`, fall back to initialize on a legacy server).

For every tool that tools/list returns: a success call per known-good argument set (structured
content validated against outputSchema, by the SDK and again here with jsonschema), calls with an
escaping `repo` (expects -32602, data.kind OutsideRoot), with an unknown argument and with a
wrongly typed value for each property (expects -32602, data.kind InvalidArguments, or
InvalidPath for `repo`). Then resources, prompts and completions (check_resources_and_prompts).
Prints `ok ...` / `FAIL ...` lines that scripts/interop.sh counts.

With `--second NAME`, the server reads several roots (GNAW_MCP_ROOT is a ':'-separated list whose
first root is the sample repo, so the known-good `repo` values name it) and the second root,
called NAME, holds `to-repo` (a link into the first root's `src`) and `to-outside` (a link out):
the link into the listed root is served under that root's name, the link out is OutsideRoot, and
`.` is refused with the roots' names.

With `--url URL`, the client reaches `gnaw-mcp --listen` over Streamable HTTP instead (the SDK's
streamable HTTP client), with the bearer token of `GNAW_INTEROP_TOKEN`; `--root` is then only
what the tenant serves, for the labels.

Usage: py_client.py (--bin PATH | --url URL) --root DIR[:DIR] --args tool_args.json
                    [--mode legacy|auto]... [--second NAME]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time

import anyio
import jsonschema
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference, ResourceTemplateReference

# Versions the server speaks (docs/mcp.md, "Protocol versions").
LEGACY_VERSIONS = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
MODERN_VERSION = "2026-07-28"
AUTO_CONNECT_BOUND_S = 5.0
CALL_TIMEOUT_S = 60.0


class Report:
    def __init__(self, label: str) -> None:
        self.label = label

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            print(f"ok   {self.label} {what}", flush=True)
        else:
            print(f"FAIL {self.label} {what}{': ' + detail if detail else ''}", flush=True)
        return ok

    def note(self, text: str) -> None:
        print(f"     {self.label} {text}", flush=True)


def placeholder(schema: dict) -> object:
    """A plausible valid value for a required property no known-good set names."""
    kind = schema.get("type")
    if kind == "string":
        return "README.md"
    if kind in ("integer", "number"):
        return max(schema.get("minimum", 1), 1)
    if kind == "boolean":
        return False
    if kind == "array":
        return ["README.md"]
    if kind == "object":
        return {}
    return "README.md"


def wrong_value(schema: dict) -> object | None:
    """A value of the wrong JSON type for `schema`, never a string or null (clients such as
    MCP Inspector coerce strings, and the server treats null as absent), or None to skip."""
    kind = schema.get("type")
    if kind == "string":
        return 12345
    if kind in ("integer", "number"):
        return True
    if kind == "boolean":
        return 7
    if kind == "array":
        return {"not": "an array"}
    if kind == "object":
        return [1, 2]
    return None


def argument_sets(tool, known: dict) -> tuple[list[dict], bool]:
    """Known-good sets for the tool, else one made from its inputSchema."""
    if tool.name in known:
        return copy.deepcopy(known[tool.name]), True
    schema = tool.input_schema or {}
    props = schema.get("properties", {})
    # `repo` is optional (it defaults to the root), but the sample repository is under the root.
    args = {"repo": "repo"} if "repo" in props else {}
    for name in schema.get("required", []):
        args[name] = "repo" if name == "repo" else placeholder(props.get(name, {}))
    return [args], False


def expect_error(rep: Report, what: str, exc: BaseException | None, kind: str) -> None:
    if exc is None:
        rep.check(False, what, "the call succeeded; expected a JSON-RPC error")
        return
    if not isinstance(exc, MCPError):
        rep.check(False, what, f"raised {type(exc).__name__}: {exc}, not an MCPError")
        return
    data = exc.data if isinstance(exc.data, dict) else {}
    rep.check(
        exc.code == -32602 and data.get("kind") == kind,
        f"{what} ({kind})",
        f"got code {exc.code}, data {json.dumps(exc.data)}; expected -32602 with kind {kind}",
    )


async def call(client: Client, name: str, args: dict):
    """(result, None) on success, (None, exception) on any failure."""
    try:
        return await client.call_tool(name, args, read_timeout_seconds=CALL_TIMEOUT_S), None
    except Exception as exc:  # noqa: BLE001 - the caller judges the exception
        return None, exc


async def run_mode(mode: str, opts: argparse.Namespace, config: dict) -> None:
    rep = Report(f"python-sdk[{mode}{', two roots' if opts.second else ''}{', http' if opts.url else ''}]")
    if opts.url:
        token = os.environ["GNAW_INTEROP_TOKEN"]
        params = streamable_http_client(
            opts.url,
            http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}),
        )
    else:
        params = StdioServerParameters(
            command=opts.bin,
            env={"GNAW_MCP_ROOT": opts.root, "GNAW_MCP_TOOLS": "all", "RUST_LOG": "warn", "PATH": os.environ.get("PATH", "")},
        )
    known = config["tools"]
    started = time.monotonic()
    async with Client(params, mode=mode, read_timeout_seconds=CALL_TIMEOUT_S) as client:
        listing = await client.list_tools()
        elapsed = time.monotonic() - started
        version = client.protocol_version
        print(f"time {rep.label} connect+list {elapsed * 1000:.0f} ms (protocol {version})", flush=True)
        if mode == "auto":
            rep.check(
                elapsed < AUTO_CONNECT_BOUND_S,
                f"connect+list within {AUTO_CONNECT_BOUND_S:.0f} s ({elapsed * 1000:.0f} ms)",
                "auto mode stalled on server/discover",
            )
            rep.check(
                version == MODERN_VERSION,
                f"auto negotiates {MODERN_VERSION} through server/discover",
                f"negotiated {version}",
            )
        else:
            rep.check(version in LEGACY_VERSIONS, f"legacy handshake negotiates {version}", "")

        tools = listing.tools
        names = [t.name for t in tools]
        rep.check(len(tools) >= 1 and len(set(names)) == len(names), f"tools/list lists {names}")
        for name in known:
            rep.check(name in names, f"tools/list includes known tool {name}")

        # Lean schemas: every tool's definition as the server sent it, measured the way Python
        # prints JSON (json.dumps: ", " and ": " separators), so a pin holds whatever spacing a
        # client measures with. The servers here turn every tool on (GNAW_MCP_TOOLS=all); the
        # default set's 16,000-character bound is pinned by tests/protocol/schemas.rs.
        defs = [t.model_dump(by_alias=True, exclude_none=True) for t in tools]
        rep.note(f"tools/list of every tool is {len(json.dumps(defs))} characters")
        for d in defs:
            size = len(json.dumps(d))
            rep.check(size <= 2000, f"{d['name']}: definition is {size} <= 2000 characters")

        for tool in tools:
            schema = tool.input_schema or {}
            rep.check(schema.get("type") == "object", f"{tool.name}: inputSchema is an object schema")
            for which, s in (("inputSchema", schema), ("outputSchema", tool.output_schema)):
                if s is None:
                    continue
                try:
                    jsonschema.Draft202012Validator.check_schema(s)
                    rep.check(True, f"{tool.name}: {which} is valid JSON Schema 2020-12")
                except jsonschema.SchemaError as e:
                    rep.check(False, f"{tool.name}: {which} is valid JSON Schema 2020-12", e.message)
            props = schema.get("properties", {})
            sets, is_known = argument_sets(tool, known)
            if not is_known:
                rep.note(f"{tool.name}: no known-good arguments in tool_args.json; made {sets[0]}")

            for args in sets:
                result, exc = await call(client, tool.name, args)
                what = f"{tool.name} {json.dumps(args)} succeeds"
                if exc is not None:
                    rep.check(False, what, f"{type(exc).__name__}: {exc}")
                    continue
                content_ok = bool(result.content) and not result.is_error
                rep.check(content_ok, what, f"isError={result.is_error}, content={result.content!r:.300}")
                if tool.output_schema is not None:
                    sc = result.structured_content
                    errors = (
                        ["no structuredContent"]
                        if sc is None
                        else [e.message for e in jsonschema.validators.validator_for(tool.output_schema)(
                            tool.output_schema).iter_errors(sc)]
                    )
                    rep.check(not errors, f"{tool.name} structuredContent validates against outputSchema",
                              "; ".join(errors[:3]))

            base = sets[0]
            if "repo" in props:
                for escape in config["escapes"]:
                    args = dict(base, repo=escape)
                    _, exc = await call(client, tool.name, args)
                    expect_error(rep, f"{tool.name} repo={escape!r} is refused", exc, "OutsideRoot")
            else:
                rep.note(f"{tool.name}: takes no repo; escape check not applicable")

            unknown = config["unknown_argument"]
            _, exc = await call(client, tool.name, dict(base, **{unknown: True}))
            expect_error(rep, f"{tool.name} unknown argument {unknown!r} is refused", exc, "InvalidArguments")

            if opts.second and tool.name in ("extract", "tree"):
                await check_roots(client, rep, tool.name, opts.second)

            for prop, prop_schema in props.items():
                bad = wrong_value(prop_schema)
                if bad is None:
                    rep.note(f"{tool.name}.{prop}: type {prop_schema.get('type')!r}; wrong-type check skipped")
                    continue
                kind = "InvalidPath" if prop == "repo" else "InvalidArguments"
                _, exc = await call(client, tool.name, dict(base, **{prop: bad}))
                expect_error(rep, f"{tool.name} {prop}={json.dumps(bad)} (wrong type) is refused", exc, kind)

        # With two roots the first is the sample repository itself.
        await check_resources_and_prompts(client, rep, opts.root.split(":")[0], "" if opts.second else "repo/")


async def attempt(rep: Report, what: str, make):
    """The result of `make()`, or None after a FAIL line naming the exception."""
    try:
        return await make()
    except Exception as exc:  # noqa: BLE001 - reported
        rep.check(False, what, f"{type(exc).__name__}: {exc}")
        return None


async def check_resources_and_prompts(client: Client, rep: Report, root: str, inner: str) -> None:
    """Resources, prompts and completions, as a client that lets a person attach a file or pick a
    prompt reaches them (the same checks as tests/interop/lib.mjs's checkResourcesAndPrompts):
    the root's template, its listed files, a file read by URI and URIs leaving the root refused
    as `read` refuses them, the path completed, both prompts got, a prompt argument completed.
    `inner` is where the sample repository is under the root (`repo/`, or `` when it is the root)."""
    name = os.path.basename(root.rstrip("/"))
    caps = client.server_capabilities
    rep.check(bool(caps.resources and caps.prompts and caps.completions),
              "server declares resources, prompts and completions", f"{caps}")
    template = f"gnaw://{name}/{{+path}}"
    listed = await attempt(rep, "resources/templates/list", client.list_resource_templates)
    uris = [t.uri_template for t in listed.resource_templates] if listed else []
    rep.check(template in uris, f"resources/templates/list has {template}", f"{uris}")

    main = f"gnaw://{name}/{inner}src/main.rs"
    listed = await attempt(rep, "resources/list", client.list_resources)
    uris = [str(r.uri) for r in listed.resources] if listed else []
    rep.check(main in uris, f"resources/list lists {main}", f"{uris[:10]}")

    read = await attempt(rep, f"resources/read {main}", lambda: client.read_resource(main))
    text = getattr(read.contents[0], "text", "") if read and read.contents else ""
    rep.check("util::greeting" in text, f"resources/read {main} sends the file", f"{read!r:.300}")

    for uri in (f"gnaw://{name}/%2e%2e/outside/secret.txt", f"gnaw://{name}//etc/passwd"):
        try:
            got = await client.read_resource(uri)
            expect_error(rep, f"resources/read {uri} is refused", None, "OutsideRoot")
            rep.note(f"{got!r:.200}")
        except Exception as exc:  # noqa: BLE001 - judged here
            expect_error(rep, f"resources/read {uri} is refused", exc, "OutsideRoot")

    paths = await attempt(rep, "completion/complete (a path)", lambda: client.complete(
        ResourceTemplateReference(type="ref/resource", uri=template), {"name": "path", "value": f"{inner}src/"}))
    values = paths.completion.values if paths else []
    rep.check(f"{inner}src/main.rs" in values, f"completion/complete offers {inner}src/main.rs for {inner}src/",
              f"{values}")

    prompts = await attempt(rep, "prompts/list", client.list_prompts)
    names = [p.name for p in prompts.prompts] if prompts else []
    rep.check("review" in names and "explain" in names, f"prompts/list has review and explain ({names})")
    review = await attempt(rep, "prompts/get review", lambda: client.get_prompt("review", {"repo": "repo"}))
    text = json.dumps([m.model_dump(mode="json") for m in review.messages]) if review else ""
    rep.check("util.rs" in text and "changed" in text, "prompts/get review holds the working change to src/util.rs",
              text[:300])
    explain = await attempt(rep, "prompts/get explain", lambda: client.get_prompt("explain", {"repo": "repo"}))
    text = json.dumps([m.model_dump(mode="json") for m in explain.messages]) if explain else ""
    rep.check("main.rs" in text, "prompts/get explain holds the overview map", text[:300])

    bases = await attempt(rep, "completion/complete (a prompt argument)", lambda: client.complete(
        PromptReference(type="ref/prompt", name="review"), {"name": "base", "value": "HEAD~"}))
    values = bases.completion.values if bases else []
    rep.check("HEAD~1" in values, "completion/complete offers HEAD~1 for review's base", f"{values}")


async def check_roots(client: Client, rep: Report, tool: str, second: str) -> None:
    """Several roots: each is reached by name, a link between them is served under the target
    root's name, a link out is refused, and `.` names no root."""
    result, exc = await call(client, tool, {"repo": second})
    rep.check(exc is None and not result.is_error, f"{tool} repo={second!r} (the second root) succeeds",
              f"{exc}")
    result, exc = await call(client, tool, {"repo": f"{second}/to-repo"})
    text = "" if exc is not None else "".join(getattr(c, "text", "") for c in result.content)
    shown = text.startswith("# `repo/src`") if tool == "extract" else "main.rs" in text
    rep.check(exc is None and shown,
              f"{tool} repo={second + '/to-repo'!r} (a link into the first root) is served as repo/src",
              f"{exc or text[:200]}")
    _, exc = await call(client, tool, {"repo": f"{second}/to-outside"})
    expect_error(rep, f"{tool} repo={second + '/to-outside'!r} (a link out of both roots) is refused",
                 exc, "OutsideRoot")
    _, exc = await call(client, tool, {"repo": "."})
    expect_error(rep, f"{tool} repo='.' names no root", exc, "InvalidPath")
    rep.check(isinstance(exc, MCPError) and second in str(exc),
              f"{tool} repo='.' refusal names the roots", f"{exc}")


def describe(exc: BaseException) -> str:
    """`Type: message`, with the leaves of an exception group (anyio wraps errors in them)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--bin")
    where.add_argument("--url")
    parser.add_argument("--root", required=True)
    parser.add_argument("--args", required=True)
    parser.add_argument("--mode", action="append", choices=["legacy", "auto"])
    parser.add_argument("--second", help="the second root's name, when --root lists two")
    opts = parser.parse_args()
    with open(opts.args, encoding="utf-8") as f:
        config = json.load(f)
    status = 0
    for mode in opts.mode or ["legacy", "auto"]:
        try:
            anyio.run(run_mode, mode, opts, config)
        except BaseException as exc:  # noqa: BLE001 - a crash is a failure, then go on
            print(f"FAIL python-sdk[{mode}] session: {describe(exc)}", flush=True)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
