// gnaw-mcp interop: helpers shared by the Node drivers (ts_client.mjs, inspector.mjs): ok/FAIL
// reporting in the format scripts/interop.sh counts, argument sets per tool (known-good ones from
// tool_args.json, else made from the tool's inputSchema), wrongly typed values, and explicit
// outputSchema validation with Ajv.

import { readFileSync } from 'node:fs';
import AjvModule from 'ajv';

const Ajv = AjvModule.default ?? AjvModule;

export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export const MODERN_VERSION = '2026-07-28';
export const AUTO_CONNECT_BOUND_MS = 5000;

/** `--name value` pairs from argv (repeated names keep the last value). */
export function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`bad argument list near ${argv[i]}`);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

export function loadConfig(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export class Report {
  constructor(label) {
    this.label = label;
    this.failed = 0;
  }

  check(ok, what, detail = '') {
    if (ok) {
      console.log(`ok   ${this.label} ${what}`);
    } else {
      this.failed += 1;
      console.log(`FAIL ${this.label} ${what}${detail ? `: ${detail}` : ''}`);
    }
    return ok;
  }

  note(text) {
    console.log(`     ${this.label} ${text}`);
  }
}

/** A plausible valid value for a required property no known-good set names. */
export function placeholder(schema = {}) {
  switch (schema.type) {
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      return ['README.md'];
    case 'object':
      return {};
    default:
      return 'README.md';
  }
}

/**
 * A value of the wrong JSON type for `schema`, never a string or null (MCP Inspector coerces
 * strings to the declared type, and the server treats null as absent), or undefined to skip.
 */
export function wrongValue(schema = {}) {
  switch (schema.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return true;
    case 'boolean':
      return 7;
    case 'array':
      return { not: 'an array' };
    case 'object':
      return [1, 2];
    default:
      return undefined;
  }
}

/** [argument sets, known?]: tool_args.json's sets for the tool, else one from its inputSchema. */
export function argumentSets(tool, known) {
  if (Object.hasOwn(known, tool.name)) {
    return [structuredClone(known[tool.name]), true];
  }
  const schema = tool.inputSchema ?? {};
  const props = schema.properties ?? {};
  // `repo` is optional (it defaults to the root), but the sample repository is under the root.
  const args = Object.hasOwn(props, 'repo') ? { repo: 'repo' } : {};
  for (const name of schema.required ?? []) {
    args[name] = name === 'repo' ? 'repo' : placeholder(props[name]);
  }
  return [[args], false];
}

const ajv = new Ajv({ strict: false, allErrors: true });

/** Error strings from validating `value` against `schema` (empty when valid). */
export function schemaErrors(schema, value) {
  if (value === undefined || value === null) return ['no structuredContent'];
  const validate = ajv.compile(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** The checks every client runs for one tool, over a `call(args)` that returns
 *  `{ result }` on success or `{ error: { code, data, message } }` on a JSON-RPC error
 *  (code/data may be unknown for a client that hides them: then `hidesErrorData` is true).
 *  `thorough: false` (for a client that costs a process per call) tries one escape and one
 *  wrongly typed property instead of all of them. */
export async function checkTool(rep, tool, config, call, { hidesErrorData = false, thorough = true } = {}) {
  const schema = tool.inputSchema ?? {};
  rep.check(schema.type === 'object', `${tool.name}: inputSchema is an object schema`);
  const props = schema.properties ?? {};
  const [sets, isKnown] = argumentSets(tool, config.tools);
  if (!isKnown) {
    rep.note(`${tool.name}: no known-good arguments in tool_args.json; made ${JSON.stringify(sets[0])}`);
  }

  for (const args of sets) {
    const what = `${tool.name} ${JSON.stringify(args)} succeeds`;
    const { result, error } = await call(args);
    if (error) {
      rep.check(false, what, `error ${JSON.stringify(error).slice(0, 400)}`);
      continue;
    }
    const ok = Array.isArray(result?.content) && result.content.length > 0 && result.isError !== true;
    rep.check(ok, what, `result ${JSON.stringify(result).slice(0, 400)}`);
    if (tool.outputSchema) {
      const errors = schemaErrors(tool.outputSchema, result?.structuredContent);
      rep.check(errors.length === 0, `${tool.name} structuredContent validates against outputSchema`,
        errors.slice(0, 3).join('; '));
    }
  }

  const expectError = async (what, args, kind) => {
    const { result, error } = await call(args);
    if (!error) {
      rep.check(false, what, `succeeded (${JSON.stringify(result).slice(0, 200)}); expected a JSON-RPC error`);
      return;
    }
    if (hidesErrorData) {
      rep.check(typeof error.message === 'string' && error.message.length > 0,
        `${what} (kind not shown by this client)`, JSON.stringify(error));
      return;
    }
    rep.check(error.code === -32602 && error.data?.kind === kind, `${what} (${kind})`,
      `got code ${error.code}, data ${JSON.stringify(error.data)}; expected -32602 with kind ${kind}`);
  };

  const base = sets[0];
  if (Object.hasOwn(props, 'repo')) {
    for (const escape of thorough ? config.escapes : config.escapes.slice(0, 1)) {
      await expectError(`${tool.name} repo=${JSON.stringify(escape)} is refused`,
        { ...base, repo: escape }, 'OutsideRoot');
    }
  } else {
    rep.note(`${tool.name}: takes no repo; escape check not applicable`);
  }
  const unknown = config.unknown_argument;
  await expectError(`${tool.name} unknown argument ${JSON.stringify(unknown)} is refused`,
    { ...base, [unknown]: true }, 'InvalidArguments');
  let typed = 0;
  for (const [prop, propSchema] of Object.entries(props)) {
    const bad = wrongValue(propSchema);
    if (bad === undefined) {
      rep.note(`${tool.name}.${prop}: type ${JSON.stringify(propSchema.type)}; wrong-type check skipped`);
      continue;
    }
    if (!thorough && (prop === 'repo' || typed > 0)) continue;
    typed += 1;
    await expectError(`${tool.name} ${prop}=${JSON.stringify(bad)} (wrong type) is refused`,
      { ...base, [prop]: bad }, prop === 'repo' ? 'InvalidPath' : 'InvalidArguments');
  }
}

/** The tools/list checks every client runs. */
export function checkListing(rep, tools, config) {
  const names = tools.map((t) => t.name);
  rep.check(names.length >= 1 && new Set(names).size === names.length,
    `tools/list lists ${JSON.stringify(names)}`);
  for (const name of Object.keys(config.tools)) {
    rep.check(names.includes(name), `tools/list includes known tool ${name}`);
  }
}

/**
 * Resources, prompts and completions, as a client that lets a person attach a file or pick a
 * prompt reaches them: the root's resource template, its listed files, a file read by URI (and a
 * URI that leaves the root refused as `read` refuses it), the template's path completed, both
 * prompts listed and got, a prompt argument completed. `root` is the directory the server
 * serves (its name names the template); the sample repository is `repo` under it.
 */
export async function checkResourcesAndPrompts(rep, client, root) {
  const name = root.replace(/\/+$/, '').split('/').pop();
  const attempt = async (what, f) => {
    try {
      return await f();
    } catch (e) {
      rep.check(false, what, `${e?.constructor?.name}: ${e?.message}`);
      return undefined;
    }
  };
  const caps = client.getServerCapabilities?.() ?? {};
  rep.check(caps.resources && caps.prompts && caps.completions,
    'server declares resources, prompts and completions', JSON.stringify(caps));

  const templates = await attempt('resources/templates/list', () => client.listResourceTemplates());
  const template = `gnaw://${name}/{+path}`;
  rep.check(templates?.resourceTemplates?.some((t) => t.uriTemplate === template),
    `resources/templates/list has ${template}`, JSON.stringify(templates?.resourceTemplates));

  const listed = await attempt('resources/list', () => client.listResources());
  const main = `gnaw://${name}/repo/src/main.rs`;
  rep.check(listed?.resources?.some((r) => r.uri === main),
    `resources/list lists ${main}`, JSON.stringify(listed?.resources?.map((r) => r.uri)));

  const read = await attempt(`resources/read ${main}`, () => client.readResource({ uri: main }));
  rep.check(read?.contents?.[0]?.text?.includes('util::greeting'),
    `resources/read ${main} sends the file`, JSON.stringify(read)?.slice(0, 300));

  for (const uri of [`gnaw://${name}/%2e%2e/outside/secret.txt`, `gnaw://${name}//etc/passwd`]) {
    try {
      const got = await client.readResource({ uri });
      rep.check(false, `resources/read ${uri} is refused`, JSON.stringify(got).slice(0, 300));
    } catch (e) {
      rep.check(e?.code === -32602 && e?.data?.kind === 'OutsideRoot',
        `resources/read ${uri} is refused (OutsideRoot)`, `code ${e?.code}, data ${JSON.stringify(e?.data)}`);
    }
  }

  const paths = await attempt('completion/complete (a path)', () => client.complete({
    ref: { type: 'ref/resource', uri: template },
    argument: { name: 'path', value: 'repo/src/' },
  }));
  rep.check(paths?.completion?.values?.includes('repo/src/main.rs'),
    'completion/complete offers repo/src/main.rs for repo/src/', JSON.stringify(paths));

  const prompts = await attempt('prompts/list', () => client.listPrompts());
  const names = prompts?.prompts?.map((p) => p.name) ?? [];
  rep.check(names.includes('review') && names.includes('explain'),
    `prompts/list has review and explain (${names})`);

  const review = await attempt('prompts/get review', () => client.getPrompt({
    name: 'review', arguments: { repo: 'repo' },
  }));
  const reviewText = JSON.stringify(review?.messages ?? []);
  rep.check(reviewText.includes('util.rs') && reviewText.includes('changed'),
    'prompts/get review holds the working change to src/util.rs', reviewText.slice(0, 300));

  const explain = await attempt('prompts/get explain', () => client.getPrompt({
    name: 'explain', arguments: { repo: 'repo' },
  }));
  const explainText = JSON.stringify(explain?.messages ?? []);
  rep.check(explainText.includes('main.rs'), 'prompts/get explain holds the overview map',
    explainText.slice(0, 300));

  const bases = await attempt('completion/complete (a prompt argument)', () => client.complete({
    ref: { type: 'ref/prompt', name: 'review' },
    argument: { name: 'base', value: 'HEAD~' },
  }));
  rep.check(bases?.completion?.values?.includes('HEAD~1'),
    'completion/complete offers HEAD~1 for review\'s base', JSON.stringify(bases));
}
