// gnaw-mcp interop: drive the server with the official TypeScript SDK over stdio.
//   --sdk v1: @modelcontextprotocol/sdk (the 1.x line every client ships today; it has no
//             negotiation modes: always the legacy initialize handshake);
//   --sdk v2: @modelcontextprotocol/client (the 2.x split of the same SDK), with
//             versionNegotiation.mode `legacy` or `auto` (auto probes server/discover first).
// Both validate structuredContent against outputSchema themselves; lib.mjs validates again.
// Then resources, prompts and completions: lib.mjs's checkResourcesAndPrompts.
// Prints ok/FAIL lines for scripts/interop.sh.
//
// With --url URL (instead of --bin), the client reaches `gnaw-mcp --listen` over Streamable HTTP
// (the SDK's StreamableHTTPClientTransport) with the bearer token of GNAW_INTEROP_TOKEN.
//
// Usage: node ts_client.mjs --sdk v1|v2 --mode legacy|auto (--bin PATH | --url URL) --root DIR
//                           --args tool_args.json

import {
  AUTO_CONNECT_BOUND_MS, LEGACY_VERSIONS, MODERN_VERSION, Report, checkListing,
  checkResourcesAndPrompts, checkTool, loadConfig, parseArgs,
} from './lib.mjs';

const opts = parseArgs(process.argv.slice(2));
const sdk = opts.sdk ?? 'v1';
const mode = sdk === 'v1' ? 'legacy' : (opts.mode ?? 'legacy');
const config = loadConfig(opts.args);

let Client;
let StdioClientTransport;
let StreamableHTTPClientTransport;
let label;
const over = opts.url ? ', http' : '';
if (sdk === 'v1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js'));
  ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
  label = `ts-sdk-v1[${mode}${over}]`;
} else if (sdk === 'v2') {
  ({ Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/client/stdio'));
  label = `ts-sdk-v2[${mode}${over}]`;
} else {
  throw new Error(`--sdk must be v1 or v2, not ${sdk}`);
}
const rep = new Report(label);

const clientOptions = sdk === 'v2' ? { versionNegotiation: { mode } } : {};
const client = new Client({ name: 'gnaw-interop', version: '0' }, clientOptions);
const transport = opts.url
  ? new StreamableHTTPClientTransport(new URL(opts.url), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.GNAW_INTEROP_TOKEN}` } },
  })
  : new StdioClientTransport({
    command: opts.bin,
    args: [],
    env: { GNAW_MCP_ROOT: opts.root, GNAW_MCP_TOOLS: 'all', RUST_LOG: 'warn', PATH: process.env.PATH ?? '' },
    stderr: 'inherit',
  });

try {
  const started = performance.now();
  await client.connect(transport);
  const { tools } = await client.listTools();
  const elapsed = performance.now() - started;
  const version = typeof client.getNegotiatedProtocolVersion === 'function'
    ? client.getNegotiatedProtocolVersion() : undefined;
  console.log(`time ${label} connect+list ${elapsed.toFixed(0)} ms (protocol ${version ?? 'not exposed by this SDK'})`);
  if (mode === 'auto') {
    rep.check(elapsed < AUTO_CONNECT_BOUND_MS,
      `connect+list within ${AUTO_CONNECT_BOUND_MS / 1000} s (${elapsed.toFixed(0)} ms)`,
      'auto mode stalled on server/discover');
    rep.check(version === MODERN_VERSION, `auto negotiates ${MODERN_VERSION} through server/discover`,
      `negotiated ${version}`);
  } else if (version !== undefined) {
    rep.check(LEGACY_VERSIONS.includes(version), `legacy handshake negotiates ${version}`);
  } else {
    const info = client.getServerVersion();
    rep.check(info?.name === 'gnaw-mcp', `legacy handshake with ${info?.name} ${info?.version}`,
      JSON.stringify(info));
  }

  checkListing(rep, tools, config);
  for (const tool of tools) {
    const call = async (args) => {
      try {
        return { result: await client.callTool({ name: tool.name, arguments: args }) };
      } catch (e) {
        return { error: { name: e?.constructor?.name, code: e?.code, data: e?.data, message: e?.message } };
      }
    };
    await checkTool(rep, tool, config, call);
  }
  await checkResourcesAndPrompts(rep, client, opts.root);
} catch (e) {
  rep.check(false, 'session', `${e?.constructor?.name}: ${e?.message}`);
} finally {
  await client.close().catch(() => {});
}
process.exitCode = rep.failed > 0 ? 1 : 0;
