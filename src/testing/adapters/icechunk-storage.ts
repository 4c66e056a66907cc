// The reference Icechunk (`@earthmover/icechunk`, WASM build) over any Floe ObjectStorage, through
// its `Storage.newCustom` callbacks. The callback contract and its quirks: a missing object is an
// Error whose message starts with `ObjectNotFound`, every callback takes a leading `null` (Node's
// error-first convention), and `previousVersion` without an etag means "create only if absent".
import { isFloeError } from '../../errors.ts';
import type { ObjectStorage } from '../../engine/storage/types.ts';

const notFound = (key: string) => new Error(`ObjectNotFound: ${key}`);
const rel = (prefix: string, key: string) => key.slice(prefix.length).replace(/^\//, '');
const dirPrefix = (prefix: string) => (prefix === '' || prefix.endsWith('/') ? prefix : prefix + '/');

/** The object `Storage.newCustom` takes, backed by `storage`. */
export function customBackend(storage: ObjectStorage) {
  return {
    /** Always true: writes are refused by the storage itself, if at all. */
    canWrite: async () => true,
    /** Reads an object (or a byte range); a missing object is an `ObjectNotFound` error. */
    getObjectRange: async (_: null, args: { path: string; rangeStart?: number; rangeEnd?: number }) => {
      const range = args.rangeStart !== undefined ? { offset: args.rangeStart, ...(args.rangeEnd !== undefined ? { length: args.rangeEnd - args.rangeStart } : {}) } : undefined;
      const got = await storage.get(args.path, range);
      if (!got) throw notFound(args.path);
      return { data: Buffer.from(got.bytes), version: { etag: got.version } };
    },
    /** Writes an object; `previousVersion` makes it conditional (an etag: if-match; none: create only). */
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
    /** Copies an object, if-match on the source's etag when given. */
    copyObject: async (_: null, args: { from: string; to: string; version?: { etag?: string } }) => {
      try {
        const { version } = await storage.copy(args.from, args.to, args.version?.etag ? { ifMatch: args.version.etag } : {});
        return { kind: 'updated', newVersion: { etag: version } };
      } catch (err) {
        if (isFloeError(err, 'PRECONDITION_FAILED')) return { kind: 'not_on_latest_version' };
        throw err;
      }
    },
    /** Lists the objects under a prefix, ids relative to it. */
    listObjects: async (_: null, prefix: string) => {
      const out = [];
      const p = dirPrefix(prefix);
      for await (const o of storage.list(p)) out.push({ id: rel(p, o.key), createdAt: o.lastModified, sizeBytes: o.size });
      return out;
    },
    /** Deletes a batch of objects under a prefix; reports how many and their bytes. */
    deleteBatch: async (_: null, args: { prefix: string; batch: { id: string; size: number }[] }) => {
      const p = dirPrefix(args.prefix);
      await storage.delete(args.batch.map((b) => p + b.id));
      return { deletedObjects: args.batch.length, deletedBytes: args.batch.reduce((n, b) => n + b.size, 0) };
    },
    /** An object's modification time. */
    getObjectLastModified: async (_: null, key: string) => {
      const info = await storage.head(key);
      if (!info) throw notFound(key);
      return info.lastModified;
    },
    /** Reads an object unless it is still at `previousVersion`. */
    getObjectConditional: async (_: null, args: { path: string; previousVersion?: { etag?: string } }) => {
      const got = await storage.get(args.path);
      if (!got) throw notFound(args.path);
      if (args.previousVersion?.etag === got.version) return { kind: 'on_latest_version' };
      return { kind: 'modified', data: Buffer.from(got.bytes), newVersion: { etag: got.version } };
    },
  };
}
