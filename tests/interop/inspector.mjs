// gnaw-mcp interop: drive the server with MCP Inspector's CLI (@modelcontextprotocol/inspector,
// pinned in package.json), one `inspector --cli` process per request, in the protocol eras given
// (--protocol-era legacy | auto). tools/list runs with --strict (tool-schema portability: exit 6
// on an error-severity finding; warnings are printed). Each tool gets the checks of lib.mjs, with
// one escape and one wrongly typed property (a call costs a Node process; the SDK drivers try all).
// The Inspector needs Node >= 22.19: --node names that binary (this script itself runs on any
// Node >= 20). The CLI's error envelope carries only the message, so error calls are checked to
// fail with a message, not for code and data.kind (the SDK drivers check those).
// Prints ok/FAIL lines for scripts/interop.sh.
//
// With --url URL (instead of --bin), the CLI reaches `gnaw-mcp --listen` over Streamable HTTP
// (--transport http) with the bearer token of GNAW_INTEROP_TOKEN.
//
// Usage: node inspector.mjs --node NODE22 --era legacy|auto (--bin PATH | --url URL) --root DIR
//                           --args tool_args.json

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  AUTO_CONNECT_BOUND_MS, Report, checkListing, checkTool, loadConfig, parseArgs,
} from './lib.mjs';

const opts = parseArgs(process.argv.slice(2));
const era = opts.era ?? 'legacy';
const config = loadConfig(opts.args);
const rep = new Report(`inspector-cli[${era}${opts.url ? ', http' : ''}]`);
const CALL_TIMEOUT_MS = 60_000;

const require = createRequire(import.meta.url);
const inspectorDir = dirname(require.resolve('@modelcontextprotocol/inspector/package.json'));
const launcher = join(inspectorDir, 'clients', 'launcher', 'build', 'index.js');

// The Inspector keeps a catalog and client config under $HOME: give it a scratch home.
const home = mkdtempSync(join(tmpdir(), 'gnaw-inspector-home-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  MCP_CATALOG_PATH: join(home, 'catalog.json'),
  MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
  NO_COLOR: '1',
  CI: 'true',
};

/** Run the Inspector CLI with `args`; resolves { code, stdout, stderr, ms }. */
function inspector(args) {
  const argv = opts.url
    ? [launcher, '--cli', '--protocol-era', era, '--format', 'json', '--transport', 'http',
      '--server-url', opts.url, '--header', `Authorization: Bearer ${process.env.GNAW_INTEROP_TOKEN}`,
      ...args]
    : [launcher, '--cli', '--protocol-era', era, '--format', 'json',
      '-e', `GNAW_MCP_ROOT=${opts.root}`, '-e', 'GNAW_MCP_TOOLS=all', '-e', 'RUST_LOG=warn', ...args, opts.bin];
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(opts.node, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), CALL_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? `signal ${signal}`, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** The last JSON object line in `text`, or undefined. */
function lastJson(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('{'));
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    try {
      return JSON.parse(lines[i]);
    } catch {
      // not this line
    }
  }
  // Pretty-printed output: try the whole text.
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

try {
  const list = await inspector(['--strict', '--method', 'tools/list']);
  console.log(`time inspector-cli[${era}] connect+list ${list.ms.toFixed(0)} ms (whole CLI process, Node start included)`);
  const listed = lastJson(list.stdout);
  if (!rep.check(list.code === 0 && Array.isArray(listed?.result?.tools),
    'tools/list --strict exits 0 with a tool list',
    `exit ${list.code}; stdout ${list.stdout.slice(0, 300)}; stderr ${list.stderr.slice(-1500)}`)) {
    throw new Error('no tool list');
  }
  if (era === 'auto') {
    rep.check(list.ms < AUTO_CONNECT_BOUND_MS,
      `connect+list within ${AUTO_CONNECT_BOUND_MS / 1000} s (${list.ms.toFixed(0)} ms)`,
      'auto era stalled on server/discover');
  }
  for (const entry of listed.schemaFindings ?? []) {
    for (const f of entry.findings ?? []) {
      rep.note(`--strict ${f.severity} on ${entry.toolName} ${f.schema}.${f.path} (${f.rule}): ${f.issue}`);
    }
  }
  const tools = listed.result.tools;
  checkListing(rep, tools, config);
  for (const tool of tools) {
    const call = async (args) => {
      const run = await inspector(['-q', '--method', 'tools/call', '--tool-name', tool.name,
        '--tool-args-json', JSON.stringify(args)]);
      const out = lastJson(run.stdout);
      if (run.code === 0 && out?.result) return { result: out.result };
      const envelope = lastJson(run.stderr);
      return {
        error: {
          exit: run.code,
          message: envelope?.error?.message ?? run.stderr.slice(-300),
          result: out?.result,
        },
      };
    };
    await checkTool(rep, tool, config, call, { hidesErrorData: true, thorough: false });
  }
} catch (e) {
  rep.check(false, 'session', `${e?.constructor?.name}: ${e?.message}`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exitCode = rep.failed > 0 ? 1 : 0;
