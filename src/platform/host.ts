// What the read path needs from its host that JavaScript itself does not give (issue 31): byte
// helpers Node's Buffer makes fast, random bytes, a yield to the event loop. Everything here runs
// in a browser as well as in Node: Node's Buffer is used when the host has one (found on
// globalThis at load, never named as a global), so Node keeps its native speed (memcmp, byte
// swaps, uninitialised memory, base64) and a browser gets plain-JavaScript equivalents with the
// same results. Random bytes come from Web Crypto, which Node ≥ 20 has on globalThis too.
//
// Inventory (issue 31 stage 1, from the real static import graph of src/browser.ts: 190 files
// before this seam; test/unit/architecture/import-graph.test.ts keeps what is still left):
// - Node-only globals, now through this module: Buffer in format/bytes.ts, format/json.ts,
//   format/codecs/bytes.ts, format/zarr/{paths,fill-value}.ts, format/zarr-v2/{fill,create}.ts,
//   engine/storage/keys.ts, engine/consolidated.ts, engine/chunk-io.ts, txn/fork.ts,
//   txn/ref-names.ts; setImmediate in engine/abort.ts; process in format/zarr/float16-array.ts;
//   node:crypto in format/icechunk/ids.ts; node:buffer's MAX_LENGTH in engine/array.ts;
//   node:os's endianness in engine/raw-chunk.ts; process.env in codecs/crc32c.ts and
//   codecs/zstd-backend.ts (hostEnv).
// - Stage 2 (what was still Node-only): the decode pool's threads, local-file reads, the fs and
//   SQLite backends and zstd's native loaders have browser siblings (`x.browser.ts`, which the
//   browser build takes in place of `x.ts`: scripts/build-browser.mjs); Node builtins and CommonJS
//   packages on Node-only paths load through optional-dependency.ts's loadPackage, which the
//   browser build replaces with a refusal. The architecture test checks the entry reaches no
//   Node API in the graph the browser build resolves.
// - npm packages reached, all browser-safe: lru-cache, flatbuffers, ts-pattern, @bokuweb/zstd-wasm's web glue.

/** Node's Buffer when the host has one; undefined in a browser. */
const NodeBuffer: typeof globalThis.Buffer | undefined = (globalThis as { Buffer?: typeof globalThis.Buffer }).Buffer;

/** Uninitialised (Node) or zeroed (browser) memory in an ArrayBuffer of its own, never a pooled one. */
export function allocateOwnBytes(size: number): Uint8Array {
  if (NodeBuffer === undefined) return new Uint8Array(size);
  const buffer = NodeBuffer.allocUnsafeSlow(size);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, size);
}

/** Same length and same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (NodeBuffer !== undefined) return NodeBuffer.from(a.buffer, a.byteOffset, a.length).equals(NodeBuffer.from(b.buffer, b.byteOffset, b.length));
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether the UTF-8 bytes of `needle` (non-empty) occur in `haystack`. */
export function containsText(haystack: Uint8Array, needle: string): boolean {
  if (NodeBuffer !== undefined) return NodeBuffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).includes(needle);
  const pattern = new TextEncoder().encode(needle);
  const first = pattern[0] ?? 0;
  outer: for (let at = haystack.indexOf(first); at >= 0 && at + pattern.length <= haystack.length; at = haystack.indexOf(first, at + 1)) {
    for (let i = 1; i < pattern.length; i++) if (haystack[at + i] !== pattern[i]) continue outer;
    return true;
  }
  return false;
}

/** Whether a string has no unpaired UTF-16 surrogate (so UTF-8 encodes it without loss). */
export function isWellFormedText(text: string): boolean {
  // String.prototype.isWellFormed: Node ≥ 20 and every current browser (ES2024, past this project's lib).
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Reverses the byte order of each `width`-byte element (2, 4 or 8; length a multiple of it) in place. */
export function swapBytesInPlace(bytes: Uint8Array, width: 2 | 4 | 8): void {
  if (NodeBuffer !== undefined) {
    const buffer = NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    if (width === 2) buffer.swap16();
    else if (width === 4) buffer.swap32();
    else buffer.swap64();
    return;
  }
  if (bytes.byteOffset % width === 0) {
    // Aligned: whole words at a time (several times faster than byte moves).
    const count = Math.floor(bytes.length / width);
    if (width === 2) {
      const words = new Uint16Array(bytes.buffer, bytes.byteOffset, count);
      for (let i = 0; i < count; i++) words[i] = ((words[i]! & 0xff) << 8) | (words[i]! >>> 8);
      return;
    }
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, count * (width / 4));
    for (let i = 0; i < words.length; i++) {
      const x = words[i]!;
      words[i] = ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24);
    }
    if (width === 8) {
      for (let i = 0; i + 1 < words.length; i += 2) {
        const t = words[i]!;
        words[i] = words[i + 1]!;
        words[i + 1] = t;
      }
    }
    return;
  }
  for (let at = 0; at + width <= bytes.length; at += width) {
    for (let i = 0, j = at + width - 1; i < width / 2; i++, j--) {
      const t = bytes[at + i]!;
      bytes[at + i] = bytes[j]!;
      bytes[j] = t;
    }
  }
}

/** The parts one after another in one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (NodeBuffer !== undefined) return NodeBuffer.concat(parts);
  let total = 0;
  for (const part of parts) total += part.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The UTF-8 length of a string (a lone surrogate counts as the 3 bytes of U+FFFD, as encoders write it). */
export function utf8Length(text: string): number {
  if (NodeBuffer !== undefined) return NodeBuffer.byteLength(text, 'utf8');
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Standard base64 (with padding) of the bytes. */
export function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

/**
 * The bytes of base64 text, in a Uint8Array of its own. Callers check the text's shape first
 * where it matters: Node's decoder skips characters outside the alphabet, a browser's `atob`
 * refuses them (a FloeError here names the cause).
 */
export function fromBase64(text: string): Uint8Array {
  if (NodeBuffer !== undefined) return new Uint8Array(NodeBuffer.from(text, 'base64'));
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const SharedMemory = (globalThis as { SharedArrayBuffer?: typeof SharedArrayBuffer }).SharedArrayBuffer;

/**
 * Whether the host has shared memory: Node does; a browser page only when cross-origin isolated
 * (COOP/COEP headers, which static hosts rarely send). Without it, workers get chunks and results
 * by transfer.
 */
export const HOST_SHARED_MEMORY: boolean = SharedMemory !== undefined;

/** Whether `buffer` is shared memory (false wherever the host has none). */
export function isSharedMemory(buffer: ArrayBufferLike): boolean {
  return SharedMemory !== undefined && buffer instanceof SharedMemory;
}

/** `bytes` of shared memory where the host has it, else of ordinary memory. */
export function sharedOrPlainBuffer(bytes: number): ArrayBufferLike {
  return SharedMemory !== undefined ? new SharedMemory(bytes) : new ArrayBuffer(bytes);
}

/** Whether the host stores multi-byte numbers little end first (typed arrays use its order). */
export const HOST_LITTLE_ENDIAN: boolean = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** `length` random bytes from the host's cryptographic generator (Web Crypto, in Node ≥ 20 too). */
export function randomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** Resolves after the event loop ran once: `setImmediate` where the host has it, a 0 ms timer otherwise. */
export function yieldToHost(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise<void>((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/**
 * The longest buffer the host allocates, reported as the limit when a result cannot be allocated:
 * Node's `buffer.constants.MAX_LENGTH` (through `process.getBuiltinModule`, Node ≥ 20.16), or
 * V8's own typed-array limit since V8 12 (2^53 - 1) in a browser or an older Node.
 */
export function maxBufferLength(): number {
  const node = (globalThis as { process?: { getBuiltinModule?: (name: string) => { constants?: { MAX_LENGTH?: number } } | undefined } }).process;
  return node?.getBuiltinModule?.('buffer')?.constants?.MAX_LENGTH ?? Number.MAX_SAFE_INTEGER;
}

/** An environment variable of the host's process (Node); undefined where there is none (a browser). */
export function hostEnv(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}

/** The host's runtime, for messages: `Node v20.20.2`, or `this runtime`. */
export function runtimeName(): string {
  const version = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  return version === undefined ? 'this runtime' : `Node v${version}`;
}
