// The reference Icechunk (`@earthmover/icechunk`, WASM build) over any Floe ObjectStorage, through
// its `Storage.newCustom` callbacks, so both implementations can share one repository. See
// ../shared/notes/reference-icechunk-in-node.md for the callback contract and its quirks: a
// missing object is an Error whose message starts with `ObjectNotFound`, every callback takes a
// leading `null` (error-first convention), and the WASM runtime keeps a process alive (scripts
// end with process.exit). Tests drive it from a child process: see reference-child.mjs and
// `runReference` below.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isFloeError } from '../../src/errors.ts';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';

const notFound = (key: string) => new Error(`ObjectNotFound: ${key}`);
const rel = (prefix: string, key: string) => key.slice(prefix.length).replace(/^\//, '');
const dirPrefix = (prefix: string) => (prefix === '' || prefix.endsWith('/') ? prefix : prefix + '/');

/** The object `Storage.newCustom` takes, backed by `storage`. */
export function customBackend(storage: ObjectStorage) {
  return {
    canWrite: async () => true,
    getObjectRange: async (_: null, args: { path: string; rangeStart?: number; rangeEnd?: number }) => {
      const range = args.rangeStart !== undefined ? { offset: args.rangeStart, ...(args.rangeEnd !== undefined ? { length: args.rangeEnd - args.rangeStart } : {}) } : undefined;
      const got = await storage.get(args.path, range);
      if (!got) throw notFound(args.path);
      return { data: Buffer.from(got.bytes), version: { etag: got.version } };
    },
    putObject: async (_: null, args: { path: string; data: Buffer; previousVersion?: { etag?: string } }) => {
      const options = args.previousVersion ? (args.previousVersion.etag ? { ifMatch: args.previousVersion.etag } : { ifNoneMatch: '*' as const }) : {};
      try {
        const { version } = await storage.put(args.path, new Uint8Array(args.data), options);
        return { kind: 'updated', newVersion: { etag: version } };
      } catch (err) {
        if (isFloeError(err, 'PRECONDITION_FAILED')) return { kind: 'not_on_latest_version' };
        throw err;
      }
    },
    copyObject: async (_: null, args: { from: string; to: string; version?: { etag?: string } }) => {
      try {
        const { version } = await storage.copy(args.from, args.to, args.version?.etag ? { ifMatch: args.version.etag } : {});
        return { kind: 'updated', newVersion: { etag: version } };
      } catch (err) {
        if (isFloeError(err, 'PRECONDITION_FAILED')) return { kind: 'not_on_latest_version' };
        throw err;
      }
    },
    listObjects: async (_: null, prefix: string) => {
      const out = [];
      const p = dirPrefix(prefix);
      for await (const o of storage.list(p)) out.push({ id: rel(p, o.key), createdAt: o.lastModified, sizeBytes: o.size });
      return out;
    },
    deleteBatch: async (_: null, args: { prefix: string; batch: { id: string; size: number }[] }) => {
      const p = dirPrefix(args.prefix);
      await storage.delete(args.batch.map((b) => p + b.id));
      return { deletedObjects: args.batch.length, deletedBytes: args.batch.reduce((n, b) => n + b.size, 0) };
    },
    getObjectLastModified: async (_: null, key: string) => {
      const info = await storage.head(key);
      if (!info) throw notFound(key);
      return info.lastModified;
    },
    getObjectConditional: async (_: null, args: { path: string; previousVersion?: { etag?: string } }) => {
      const got = await storage.get(args.path);
      if (!got) throw notFound(args.path);
      if (args.previousVersion?.etag === got.version) return { kind: 'on_latest_version' };
      return { kind: 'modified', data: Buffer.from(got.bytes), newVersion: { etag: got.version } };
    },
  };
}

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'reference-child.mjs');

/** Runs one reference command in a child process (the WASM runtime stays out of test workers). */
export function runReference<T = unknown>(command: Record<string, unknown>, timeoutMs = 90_000): T {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--no-warnings', CHILD, JSON.stringify(command)], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const line = result.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (result.status !== 0 || !line) {
    throw new Error(`reference child failed (status ${result.status}): ${result.stderr.slice(-2000)} ${result.stdout.slice(-500)}`);
  }
  const reply = JSON.parse(line) as { ok: boolean; error?: string; value?: T };
  if (!reply.ok) throw new Error(`reference error: ${reply.error}`);
  return reply.value as T;
}
