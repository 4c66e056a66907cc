// `floe config show | set | edit` (issue 18): the stored configuration in the reference's serde
// names as YAML, every change validated by the config model and shown as a diff before it is
// written; refused changes and dry runs leave the repository's config as it was. One case opens
// a CLI-set configuration in the reference Icechunk (WASM child).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Repository, Storage } from '../../src/txn/index.ts';
import { runReference } from '../support/reference-icechunk.ts';
import { unifiedDiff } from '../../src/cli/text-diff.ts';
import { floe, removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

/** A fresh empty repository; `config` runs `floe config ...` on it. */
async function freshRepository() {
  const dir = tempDir('floe-config-cli-');
  const repoPath = path.join(dir, 'repo.icechunk');
  await Repository.create(Storage.newLocalFilesystem(repoPath));
  const config = (args: string[], env: Record<string, string> = {}) => floe(['config', ...args, '--repo', repoPath], { cwd: dir, env });
  const stored = async () => (await Repository.open(Storage.newLocalFilesystem(repoPath))).config;
  /** The repo info file: unchanged bytes mean nothing was written. */
  const infoBytes = () => readFileSync(path.join(repoPath, 'repo')).toString('hex');
  return { dir, repoPath, config, stored, infoBytes };
}

describe('floe config show', () => {
  it('says when nothing is stored, and shows what set stored in serde names', async () => {
    const { config } = await freshRepository();
    const empty = await config(['show']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^no configuration stored/);
    expect(JSON.parse((await config(['show', '--json'])).stdout)).toEqual({});

    expect((await config(['set', 'inline_chunk_threshold_bytes', '1024'])).code).toBe(0);
    expect((await config(['set', 'compression.level', '5'])).code).toBe(0);
    const shown = await config(['show']);
    expect(shown.stdout).toBe('inline_chunk_threshold_bytes: 1024\ncompression:\n  level: 5\n');
    expect(JSON.parse((await config(['show', '--json'])).stdout)).toEqual({ inline_chunk_threshold_bytes: 1024, compression: { level: 5 } });
  });
});

describe('floe config set', () => {
  it('sets a number, printing the diff, and the repository reads it', async () => {
    const { config, stored } = await freshRepository();
    const out = await config(['set', 'inline_chunk_threshold_bytes', '64']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe('--- stored config\n+++ new config\n@@ -0,0 +1,1 @@\n+inline_chunk_threshold_bytes: 64\nset inline_chunk_threshold_bytes: configuration written\n');
    expect(await stored()).toEqual({ inlineChunkThresholdBytes: 64 });
  });

  it('sets nested fields, keeping the others, and null unsets one', async () => {
    const { config, stored } = await freshRepository();
    expect((await config(['set', 'repo_update_retries.default.max_tries', '7'])).code).toBe(0);
    expect((await config(['set', 'repo_update_retries.default.initial_backoff_ms', '20'])).code).toBe(0);
    expect((await config(['set', 'caching.num_bytes_chunks', '18446744073709551615'])).code).toBe(0);
    expect(await stored()).toEqual({
      repoUpdateRetries: { default: { maxTries: 7, initialBackoffMs: 20 } },
      caching: { numBytesChunks: 18446744073709551615n },
    });
    const unset = await config(['set', 'repo_update_retries.default.max_tries', 'null']);
    expect(unset.stdout).toContain('-    max_tries: 7\n');
    expect(await stored()).toEqual({ repoUpdateRetries: { default: { initialBackoffMs: 20 } }, caching: { numBytesChunks: 18446744073709551615n } });
  });

  it('sets lists and maps written as YAML flow values', async () => {
    const { config, stored } = await freshRepository();
    const split = await config(['set', 'manifest.splitting.split_sizes', '[[{path_matches: {regex: temp}}, [{condition: {DimensionName: time}, num_chunks: 12}, {condition: Any, num_chunks: 2}]], [any_array, [{condition: {Axis: 0}, num_chunks: 3}]]]']);
    expect(split.code, split.stderr).toBe(0);
    expect(split.stdout).toContain('+      - - path_matches:\n+            regex: temp\n');
    expect((await config(['set', 'compression', '{algorithm: zstd, level: 2}'])).code).toBe(0);
    expect((await config(['set', 'virtual_chunk_containers."s3://bucket/data/"', '{url_prefix: "s3://bucket/data/", store: {s3: {region: us-east-1}}}'])).code).toBe(0);
    expect(await stored()).toEqual({
      compression: { algorithm: 0, level: 2 },
      manifest: {
        splitting: {
          split_sizes: [
            [{ path_matches: { regex: 'temp' } }, [{ condition: { DimensionName: 'time' }, num_chunks: 12 }, { condition: 'Any', num_chunks: 2 }]],
            ['any_array', [{ condition: { Axis: 0 }, num_chunks: 3 }]],
          ],
        },
      },
      virtualChunkContainers: {
        's3://bucket/data/': {
          urlPrefix: 's3://bucket/data/',
          store: { type: 'S3', field0: { region: 'us-east-1', anonymous: false, allowHttp: false, forcePathStyle: false, requesterPays: false } },
        },
      },
    });
    // One item of a list, by index.
    expect((await config(['set', 'manifest.splitting.split_sizes.1.1.0.num_chunks', '4'])).code).toBe(0);
    expect((await stored()).manifest?.splitting?.split_sizes?.[1]).toEqual(['any_array', [{ condition: { Axis: 0 }, num_chunks: 4 }]]);
  });

  it.each([
    ['compression.level', '300', 'compression.level', '300', '0..=255 (u8)'],
    ['inline_chunk_threshold_bytes', '65536', 'inline_chunk_threshold_bytes', '65536', '0..=65535 (u16)'],
    ['repo_update_retries.default.max_tries', '0', 'repo_update_retries.default.max_tries', '0', 'not 0'],
    ['manifest.splitting.split_sizes', '[[any_array, [{condition: Any, num_chunks: 0}]]]', 'manifest.splitting.split_sizes[0][1][0].num_chunks', '0', 'u32, not 0'],
    ['manifest.splitting.split_sizes', '[[AnyArrays, []]]', 'manifest.splitting.split_sizes[0][0]', '"AnyArrays"', 'any_array'],
    ['compresion.level', '3', 'compresion', '', 'inline_chunk_threshold_bytes'],
    ['compression.levle', '3', 'compression.levle', '', 'algorithm, level'],
  ])('refuses %s = %s before writing anything', async (key, value, field, shownValue, allowed) => {
    const { config, stored, infoBytes } = await freshRepository();
    expect((await config(['set', 'inline_chunk_threshold_bytes', '100'])).code).toBe(0);
    const before = infoBytes();
    const out = await config(['set', key, value]);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`INVALID_CONFIG: config field ${field} is ${shownValue}`);
    expect(out.stderr).toContain(allowed);
    expect(out.stderr).toContain('nothing was written');
    expect(infoBytes()).toBe(before);
    expect(await stored()).toEqual({ inlineChunkThresholdBytes: 100 });
  });

  it('--dry-run prints the diff and writes nothing; an unchanged value writes nothing either', async () => {
    const { config, stored, infoBytes } = await freshRepository();
    expect((await config(['set', 'compression.level', '4'])).code).toBe(0);
    const before = infoBytes();
    const dry = await config(['set', 'compression.level', '9', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe('--- stored config\n+++ new config\n@@ -1,2 +1,2 @@\n compression:\n-  level: 4\n+  level: 9\nset compression.level: dry run, nothing written\n');
    const same = await config(['set', 'compression.level', '4']);
    expect(same.stdout).toBe('set compression.level: no change; nothing written\n');
    expect(infoBytes()).toBe(before);
    expect(await stored()).toEqual({ compression: { level: 4 } });
  });

  it('refuses a malformed command line with exit code 2', async () => {
    const { config } = await freshRepository();
    expect((await config(['set', 'compression.level'])).code).toBe(2);
    expect((await config(['set', 'compression..level', '3'])).code).toBe(2);
    expect((await config(['frobnicate'])).code).toBe(2);
  });
});

describe('floe config edit', () => {
  /** An EDITOR that records the file it was given and replaces its content with `next`. */
  function scriptedEditor(dir: string, next: string): { editor: string; seen: () => string } {
    const script = path.join(dir, 'editor.mjs');
    const nextFile = path.join(dir, 'next.yaml');
    const seenFile = path.join(dir, 'seen.txt');
    writeFileSync(nextFile, next);
    writeFileSync(script, [
      "import { readFileSync, writeFileSync } from 'node:fs';",
      'const file = process.argv[2];',
      `writeFileSync(${JSON.stringify(seenFile)}, file + '\\n' + readFileSync(file, 'utf8'));`,
      `writeFileSync(file, readFileSync(${JSON.stringify(nextFile)}, 'utf8'));`,
    ].join('\n'));
    return { editor: `"${process.execPath}" "${script}"`, seen: () => readFileSync(seenFile, 'utf8') };
  }

  it('opens the stored YAML, validates and writes the edit, and removes the temporary file', async () => {
    const { dir, config, stored } = await freshRepository();
    expect((await config(['set', 'compression.level', '4'])).code).toBe(0);
    const { editor, seen } = scriptedEditor(dir, 'inline_chunk_threshold_bytes: 32\nmanifest:\n  splitting:\n    split_sizes: [[any_array, [{condition: Any, num_chunks: 8}]]]\n');
    const out = await config(['edit'], { EDITOR: editor });
    expect(out.code, out.stderr).toBe(0);
    const [tempFile = '', ...shown] = seen().split('\n');
    expect(shown.join('\n')).toContain('compression:\n  level: 4\n');
    expect(existsSync(tempFile)).toBe(false);
    expect(out.stdout).toContain('-compression:\n-  level: 4\n+inline_chunk_threshold_bytes: 32\n');
    expect(out.stdout).toContain('edit: configuration written');
    // Fields the edit left out are unset: a replacement, not a merge.
    expect(await stored()).toEqual({ inlineChunkThresholdBytes: 32, manifest: { splitting: { split_sizes: [['any_array', [{ condition: 'Any', num_chunks: 8 }]]] } } });
  });

  it.each([
    ['an out-of-range value', 'num_updates_per_repo_info_file: 70000\n', 'num_updates_per_repo_info_file is 70000'],
    ['an unknown field', 'inline_chunk_treshold_bytes: 3\n', 'inline_chunk_treshold_bytes is 3'],
    ['a YAML syntax error', 'compression: [1,\n', 'not valid YAML'],
    ['a list at the top', '- 1\n', 'the configuration is [1]'],
  ])('writes nothing for %s and says why', async (_, next, reason) => {
    const { dir, config, stored, infoBytes } = await freshRepository();
    expect((await config(['set', 'compression.level', '4'])).code).toBe(0);
    const before = infoBytes();
    const { editor, seen } = scriptedEditor(dir, next);
    const out = await config(['edit'], { VISUAL: editor });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('INVALID_CONFIG');
    expect(out.stderr).toContain(reason);
    expect(out.stderr).toContain('nothing was written');
    expect(existsSync(seen().split('\n')[0] ?? '')).toBe(false);
    expect(infoBytes()).toBe(before);
    expect(await stored()).toEqual({ compression: { level: 4 } });
  });

  it('--dry-run shows the diff of the edit and writes nothing; no editor is an error', async () => {
    const { dir, config, infoBytes } = await freshRepository();
    const before = infoBytes();
    const { editor } = scriptedEditor(dir, 'compression: {level: 6}\n');
    const out = await config(['edit', '--dry-run'], { EDITOR: editor });
    expect(out.stdout).toBe('--- stored config\n+++ new config\n@@ -0,0 +1,2 @@\n+compression:\n+  level: 6\nedit: dry run, nothing written\n');
    expect(infoBytes()).toBe(before);
    const none = await config(['edit']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('set $VISUAL or $EDITOR');
  });
});

describe('a configuration set by the CLI, in the reference', () => {
  it('opens in the reference Icechunk with the values set', async () => {
    const { repoPath, config } = await freshRepository();
    expect((await config(['set', 'inline_chunk_threshold_bytes', '64'])).code).toBe(0);
    expect((await config(['set', 'manifest.splitting.split_sizes', '[[{name_matches: {regex: temp}}, [{condition: {DimensionName: time}, num_chunks: 3}]]]'])).code).toBe(0);
    const [opened] = runReference<{ ok: boolean; config?: { inlineChunkThresholdBytes?: number; manifest?: unknown }; error?: string }[]>({
      op: 'open-configs', items: [{ dir: repoPath, resave: false }],
    });
    expect(opened?.ok, opened?.error).toBe(true);
    expect(opened?.config?.inlineChunkThresholdBytes).toBe(64);
    expect(opened?.config?.manifest).toMatchObject({
      splitting: { split_sizes: [[{ name_matches: { regex: 'temp' } }, [{ condition: { DimensionName: 'time' }, num_chunks: 3 }]]] },
    });
  }, 120_000);
});

describe('unifiedDiff', () => {
  it('gives separate hunks with three lines of context for changes far apart, and nothing for equal texts', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join('\n') + '\n';
    const after = ['A', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].join('\n') + '\n';
    expect(unifiedDiff(before, after, { before: 'x', after: 'y' })).toBe(
      '--- x\n+++ y\n@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n@@ -8,3 +8,4 @@\n h\n i\n j\n+k\n',
    );
    expect(unifiedDiff(before, before, { before: 'x', after: 'y' })).toBe('');
  });
});
