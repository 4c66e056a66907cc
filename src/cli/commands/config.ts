// `floe config`: the repository configuration in the reference Icechunk's stored shape (serde's
// snake_case names and enum forms, as a YAML document), shown, set one field at a time, or edited
// whole in $VISUAL/$EDITOR. A change is read back through the config model (the reference's
// types and ranges) and shown as a diff before anything is written; a refused one writes nothing.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { abortedOr } from '../../engine/abort.ts';
import { floeError, isFloeError } from '../../errors.ts';
import type { MetadataValue } from '../../format/icechunk/metadata-value.ts';
import { decodeStoredConfig, encodeStoredConfig } from '../../format/icechunk/repo-config-codec.ts';
import type { RepositoryConfig } from '../../format/icechunk/repo-config.ts';
import type { Repository } from '../../txn/index.ts';
import { UsageError, type CommandContext, type CommandSpec } from '../command.ts';
import { openRepository, openRepositoryToWrite } from '../repository-location.ts';
import { unifiedDiff } from '../text-diff.ts';

type Tree = { [key: string]: MetadataValue };

export const configCommand: CommandSpec = {
  usage: '[show | set KEY VALUE [--dry-run] | edit [--dry-run]]',
  details: [
    'The configuration as the reference Icechunk stores it: serde snake_case names, enum variants',
    'as `any_array` or `{ path_matches: { regex: ... } }`. KEY is a dotted path of those names',
    '(`compression.level`, `manifest.splitting.split_sizes`; quote a segment holding dots:',
    '`virtual_chunk_containers."s3://bucket/data/".url_prefix`); VALUE is YAML, so lists and maps',
    'are written in flow style; `null` unsets a field. Every change is checked against the',
    "reference's types and ranges and shown as a diff first; --dry-run writes nothing. `edit` opens",
    '$VISUAL or $EDITOR on a temporary YAML file.',
  ].join('\n'),
  examples: [
    'floe config show',
    'floe config set inline_chunk_threshold_bytes 1024',
    'floe config set repo_update_retries.default.max_tries 20',
    "floe config set manifest.splitting.split_sizes '[[any_array, [{condition: {DimensionName: time}, num_chunks: 12}]]]' --dry-run",
    'EDITOR=nano floe config edit',
  ],
  options: { 'dry-run': { type: 'boolean' } },
  async run(ctx) {
    const [action = 'show', key, value] = ctx.positionals;
    switch (action) {
      case 'show':
        ctx.atMost(1);
        return show(ctx, await openRepository(ctx));
      case 'set':
        ctx.atMost(3);
        if (key === undefined || value === undefined) throw new UsageError('config set needs a KEY and a VALUE');
        return set(ctx, await openRepositoryToWrite(ctx, 'floe config set'), key, value);
      case 'edit':
        ctx.atMost(1);
        return edit(ctx, await openRepositoryToWrite(ctx, 'floe config edit'));
      default:
        throw new UsageError(`unknown action ${JSON.stringify(action)}: use show, set or edit`);
    }
  },
};

function show(ctx: CommandContext, repo: Repository): void {
  const tree = storedTree(repo);
  if (ctx.json) return ctx.printJson(tree);
  if (Object.keys(tree).length === 0) {
    return ctx.print('no configuration stored: every field takes the reference default (docs/icechunk-format.md lists them)');
  }
  ctx.print(yamlText(tree));
}

async function set(ctx: CommandContext, repo: Repository, key: string, valueText: string): Promise<void> {
  const segments = keySegments(key);
  const tree = structuredClone(storedTree(repo));
  setAt(tree, segments, parseYaml(valueText, `the value for ${key}`));
  await apply(ctx, repo, tree, `set ${key}`);
}

async function edit(ctx: CommandContext, repo: Repository): Promise<void> {
  const editor = ctx.io.env.VISUAL || ctx.io.env.EDITOR;
  if (!editor) throw floeError('INVALID_ARGUMENT', 'floe config edit needs an editor: set $VISUAL or $EDITOR (or use `floe config set KEY VALUE`)');
  const dir = await mkdtemp(path.join(tmpdir(), 'floe-config-'));
  try {
    const file = path.join(dir, 'config.yaml');
    const current = storedTree(repo);
    await writeFile(file, EDIT_HEADER + (Object.keys(current).length === 0 ? '' : yamlText(current)));
    await runEditor(ctx, editor, file);
    const edited = parseYaml(await readFile(file, 'utf8'), 'the edited file') ?? {};
    if (!isTree(edited)) throw refused('', edited, 'a map of RepositoryConfig fields');
    await apply(ctx, repo, edited, 'edit');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const EDIT_HEADER = [
  '# The repository configuration in the reference Icechunk\'s stored form (serde names).',
  '# Save and quit to apply; it is checked and shown as a diff first. Invalid: nothing is written.',
  '',
].join('\n');

/** Validates `tree`, prints the diff against what is stored, and writes it unless --dry-run. */
async function apply(ctx: CommandContext, repo: Repository, tree: Tree, what: string): Promise<void> {
  const config = validated(tree, repo.storedConfigValue);
  const before = yamlText(storedTree(repo));
  const after = yamlText(withoutNulls(encodeStoredConfig(config, repo.storedConfigValue)));
  const diff = unifiedDiff(before, after, { before: 'stored config', after: 'new config' });
  const dryRun = ctx.flags['dry-run'] === true;
  const written = diff !== '' && !dryRun;
  if (written) await repo.replaceConfig(config, ctx.request);
  if (ctx.json) return ctx.printJson({ action: what, diff, written });
  if (diff === '') return ctx.print(`${what}: no change; nothing written`);
  ctx.print(diff);
  ctx.print(dryRun ? `${what}: dry run, nothing written` : `${what}: configuration written`);
}

/**
 * The configuration `tree` describes, checked by the config model. The stored-form reader ignores
 * unknown names (as the reference does); here one is most likely a typo, so it is refused unless
 * it was stored already (a newer reference's field, which a write keeps).
 */
function validated(tree: Tree, stored: MetadataValue): RepositoryConfig {
  let config: RepositoryConfig;
  try {
    config = decodeStoredConfig(tree);
  } catch (err) {
    if (!isFloeError(err, 'INVALID_CONFIG')) throw err;
    const { field, value, allowed } = err.details;
    throw floeError('INVALID_CONFIG', `config field ${field} is ${value}, but must be ${allowed}: fix it and retry; nothing was written`, { details: err.details, cause: err });
  }
  refuseUnknownNames(tree, encodeStoredConfig(config, stored), '');
  return config;
}

/** A name in `given` that the full stored form (every known field, null when unset) lacks. */
function refuseUnknownNames(given: MetadataValue, known: MetadataValue, where: string): void {
  if (Array.isArray(given) && Array.isArray(known)) {
    given.forEach((item, i) => refuseUnknownNames(item, known[i] ?? null, `${where}[${i}]`));
  }
  if (!isTree(given) || !isTree(known)) return;
  for (const [name, value] of Object.entries(given)) {
    const at = where === '' ? name : `${where}.${name}`;
    if (!Object.hasOwn(known, name)) {
      if (value !== null) throw refused(at, value, `one of the fields there: ${Object.keys(known).join(', ')}`);
      continue;
    }
    refuseUnknownNames(value, known[name] ?? null, at);
  }
}

function refused(field: string, value: unknown, allowed: string): Error {
  const text = JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  const where = field === '' ? 'the configuration' : `config field ${field}`;
  return floeError('INVALID_CONFIG', `${where} is ${text}, but must be ${allowed}: fix it and retry; nothing was written`, {
    details: { field: field === '' ? '(root)' : field, value: text, allowed },
  });
}

/** What is stored, in the reference's current form (older Floe forms read as theirs), nulls left out. */
function storedTree(repo: Repository): Tree {
  const stored = repo.storedConfigValue;
  if (stored === null) return {};
  const normal = withoutNulls(encodeStoredConfig(repo.config, stored));
  return isTree(normal) ? normal : {};
}

function withoutNulls(value: MetadataValue): MetadataValue {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isTree(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function yamlText(tree: MetadataValue): string {
  return isTree(tree) && Object.keys(tree).length === 0 ? '' : stringify(tree, { lineWidth: 0 });
}

/** YAML text as a value; integers as bigint first, so u64 fields keep every digit. */
function parseYaml(text: string, what: string): MetadataValue {
  try {
    return safeIntegersAsNumbers(parse(text, { intAsBigInt: true }) as MetadataValue);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw floeError('INVALID_CONFIG', `${what} is not valid YAML (${reason}): fix it and retry; nothing was written`, {
      details: { field: '(root)', value: text.length > 120 ? `${text.slice(0, 117)}...` : text, allowed: 'YAML' },
      cause: err,
    });
  }
}

/** Integers within 2^53 as numbers, so messages and diffs show them as written. */
function safeIntegersAsNumbers(value: MetadataValue): MetadataValue {
  if (typeof value === 'bigint') return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value;
  if (Array.isArray(value)) return value.map(safeIntegersAsNumbers);
  if (!isTree(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safeIntegersAsNumbers(v)]));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** `a.b."c.d".0` → ['a', 'b', 'c.d', '0']. */
function keySegments(key: string): string[] {
  const segments: string[] = [];
  const pattern = /"([^"]*)"|([^."]+)/gy;
  for (let at = 0; at < key.length; ) {
    pattern.lastIndex = at;
    const match = pattern.exec(key);
    if (!match) throw new UsageError(`KEY ${JSON.stringify(key)} is not a dotted path of field names (quote a segment holding dots)`);
    segments.push(match[1] ?? match[2] ?? '');
    at = pattern.lastIndex;
    if (at < key.length && key[at] !== '.') throw new UsageError(`KEY ${JSON.stringify(key)}: expected "." after ${JSON.stringify(match[0])}`);
    if (key[at] === '.') at++;
  }
  if (segments.length === 0 || key.endsWith('.')) throw new UsageError(`KEY ${JSON.stringify(key)} is not a dotted path of field names`);
  return segments;
}

/** Sets `value` at `segments` in `tree`, making the maps on the way; a list takes an index. */
function setAt(tree: Tree, segments: readonly string[], value: MetadataValue): void {
  let node: MetadataValue = tree;
  segments.forEach((segment, depth) => {
    const last = depth === segments.length - 1;
    const where = segments.slice(0, depth).join('.');
    if (Array.isArray(node)) {
      const index = Number(segment);
      if (!/^\d+$/.test(segment) || index >= node.length) throw refused(`${where}[${segment}]`, segment, `an index below ${node.length} of the list at ${where}`);
      if (last) node[index] = value;
      else node = node[index] ?? null;
      return;
    }
    if (!isTree(node)) throw refused(where, node, `a map to hold ${segment}`);
    if (last) node[segment] = value;
    else node = node[segment] ??= {};
  });
}

/** Runs the editor through the shell (so `EDITOR="code --wait"` works) and waits for it. */
function runEditor(ctx: CommandContext, editor: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${editor} "$1"`, 'floe-config-editor', file], { stdio: 'inherit', ...(ctx.io.signal ? { signal: ctx.io.signal } : {}) });
    child.on('error', (err) => reject(ctx.io.signal?.aborted ? abortedOr(err, ctx.io.signal) : floeError('INVALID_ARGUMENT', `could not run the editor ${JSON.stringify(editor)}: ${err.message}; nothing was written`, { cause: err })));
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(floeError('INVALID_ARGUMENT', `the editor ${JSON.stringify(editor)} exited with ${code ?? 'a signal'}; nothing was written`));
    });
  });
}
