// Hand-written codecs vs maintained packages (issue 21 item 4): speed, correctness and safety on
// the same data, for each codec Floe implemented by hand (LZ4, Snappy, BloscLZ and the Blosc
// container, the bzip2 encoder, the raw LZMA1 encoder). Snappy has been snappy-wasm since: its
// "Floe" rows measure Floe's wrapper around the package.
//
//   npx tsx bench/codec-libraries.ts [--pkgs /tmp/codeclib-pkgs] [--rounds 7] [--min-ms 150]
//        [--only lz4,snappy,blosc,bz2,lzma1] [--blosc-cnames lz4,blosclz,snappy,lz4hc] [--mib 4]
//
// The packages are not Floe's dependencies: install them elsewhere and point --pkgs there, e.g.
//   mkdir -p /tmp/codeclib-pkgs && cd /tmp/codeclib-pkgs && npm init -y >/dev/null &&
//   npm install --no-save lz4-napi lz4js lz4-wasm-nodejs snappy snappyjs snappy-wasm compressjs \
//     lzma-native libbzip2-wasm
// A missing package is reported and skipped. numcodecs (npm, zarrita's WASM codecs) comes from
// Floe's devDependencies; numcodecs 0.11 (Python, Debian's python3-numcodecs under /usr/bin/python3)
// makes the reference streams and checks the candidates' streams; without it those columns say "–".
//
// Speed: --rounds rounds; in each, every candidate runs each direction for --min-ms (order rotated
// per round so load drift falls on all). Reported: median MB/s of wall time and of CPU time
// (process.cpuUsage; all single-threaded here). MB = 10^6 bytes of uncompressed data.
// Correctness: round trip of the datasets and of edge inputs (empty, 1 byte, 100 random bytes,
// 64 KiB random, 1 MiB of zeros); decoding numcodecs 0.11's streams of the same inputs; numcodecs
// 0.11 decoding the candidate's streams.
// Safety ("bomb"): the decoder is given a stream of 64 MiB of zeros and told to expect 1 MiB —
// (a) with the stream's size field honest (64 MiB): the wrapper must refuse before inflating;
// (b) with the size field rewritten to 1 MiB: the library itself must stop at 1 MiB.
// Reported: refused (error, nothing past 1 MiB produced) or what it produced.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import NumcodecsBlosc from 'numcodecs/blosc';
import NumcodecsLZ4 from 'numcodecs/lz4';
import { bloscCompress } from '../src/format/codecs/blosc/compress.ts';
import { bloscDecompress, readHeader, streamsPerBlock, FLAG_MEMCPYED, HEADER_BYTES } from '../src/format/codecs/blosc/container.ts';
import { lz4Decompress } from '../src/format/codecs/blosc/lz4.ts';
import { byteShuffle } from '../src/format/codecs/blosc/shuffle.ts';
import { snappyCompress, snappyDecompress } from '../src/format/codecs/blosc/snappy.ts';
import type { BloscCname } from '../src/format/codecs/blosc/block-codecs.ts';
import { bz2Compressor } from '../src/format/codecs/bz2.ts';
import { bz2Compress } from '../src/format/codecs/bz2-encoder.ts';
import { encodeLzma1Literals } from '../src/format/codecs/lzma1-encoder.ts';
import { decodeRaw, FILTER_LZMA1 } from '../src/format/codecs/lzma-raw.ts';
import { lz4NapiAvailable, selectLz4Backend } from '../src/format/codecs/lz4-backend.ts';
import { lz4Decode, lz4Encode } from '../src/format/codecs/numcodecs/lz4.ts';
import { median } from './support/probe-runner.ts';

const { values: opts } = parseArgs({
  options: {
    pkgs: { type: 'string', default: '/tmp/codeclib-pkgs' },
    rounds: { type: 'string', default: '7' },
    'min-ms': { type: 'string', default: '150' },
    only: { type: 'string', default: 'lz4,snappy,blosc,bz2,lzma1' },
    'blosc-cnames': { type: 'string', default: 'lz4,blosclz,snappy,lz4hc' },
    mib: { type: 'string', default: '4' },
    python: { type: 'string', default: '/usr/bin/python3' },
  },
});
const ROUNDS = Math.max(1, Number(opts.rounds));
const MIN_MS = Number(opts['min-ms']);
const ONLY = new Set(opts.only!.split(','));
const BLOSC_CNAMES = new Set(opts['blosc-cnames']!.split(','));
const SIZE = Number(opts.mib) * 2 ** 20;
const BOMB = 64 * 2 ** 20;
const EXPECT = 2 ** 20;
const MB = 1e6;
const requirePkg = createRequire(path.join(path.resolve(opts.pkgs!), 'package.json'));
// "Floe (hand-written)" rows run Floe's TypeScript LZ4; Floe with lz4-napi has rows of its own.
selectLz4Backend('js');
const work = mkdtempSync(path.join(os.tmpdir(), 'codec-libraries-'));

type Bytes = Uint8Array;
type MaybeAsync<T> = T | Promise<T>;

/** One implementation of one codec. `decode` gets the caller's expected size, as Floe's codecs do. */
interface Candidate {
  name: string;
  license: string;
  encode?: (data: Bytes) => MaybeAsync<Bytes>;
  decode?: (stream: Bytes, expected: number) => MaybeAsync<Bytes>;
  /** How the decoder learns the size it may produce. */
  bound: string;
}

interface Dataset {
  name: string;
  data: Bytes;
  /** numpy dtype for numcodecs' Blosc (typesize). */
  dtype: string;
}

// ---- data -------------------------------------------------------------------------------------
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** bench/zarr-read.ts's field: smooth float32 plus noise in the low mantissa bits. */
function field(n: number): Float32Array {
  const v = new Float32Array(n);
  const next = lcg(12345);
  for (let i = 0; i < n; i++) v[i] = 100 * Math.sin(Math.floor(i / 1024) / 300) * Math.cos((i % 1024) / 400) + 20 + 0.1 * (next() - 0.5);
  return v;
}

/** Small non-negative counts with runs of zeros: compresses well. */
function counts(n: number): Int32Array {
  const v = new Int32Array(n);
  const next = lcg(777);
  for (let i = 0; i < n; i++) v[i] = next() < 0.4 ? 0 : Math.floor(next() ** 3 * 1000);
  return v;
}

const NC_LZ4 = "numcodecs.js 0.3.2 (liblz4, WASM; zarrita's)";
const NC_BLOSC = "numcodecs.js 0.3.2 (c-blosc 1.x, WASM; zarrita's)";
const u8 = (a: ArrayBufferView): Bytes => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const fieldBytes = u8(field(SIZE / 4));
const countBytes = u8(counts(SIZE / 4));
const shuffled = new Uint8Array(SIZE);
byteShuffle(fieldBytes, shuffled, 4);
/** Streams feed LZ4 and Snappy what Blosc feeds them: byte-shuffled blocks. */
const STREAM_DATA: Dataset[] = [
  { name: `float32 field, byte-shuffled (${opts.mib} MiB)`, data: shuffled, dtype: '|u1' },
  { name: `int32 counts (${opts.mib} MiB)`, data: countBytes, dtype: '|u1' },
];
const TYPED_DATA: Dataset[] = [
  { name: `float32 field (${opts.mib} MiB)`, data: fieldBytes, dtype: '<f4' },
  { name: `int32 counts (${opts.mib} MiB)`, data: countBytes, dtype: '<i4' },
];
const rand = lcg(99);
const EDGES: Bytes[] = [
  new Uint8Array(0),
  Uint8Array.of(7),
  Uint8Array.from({ length: 100 }, () => Math.floor(rand() * 256)),
  Uint8Array.from({ length: 65536 }, () => Math.floor(rand() * 256)),
  new Uint8Array(2 ** 20),
];

// ---- packages -----------------------------------------------------------------------------------
function load<T>(pkg: string): T | undefined {
  try {
    return requirePkg(pkg) as T;
  } catch (err) {
    console.error(`# ${pkg} not loaded from ${opts.pkgs}: ${String(err).split('\n')[0]}`);
    return undefined;
  }
}
function version(pkg: string): string {
  let dir: string;
  try {
    dir = path.dirname(requirePkg.resolve(pkg));
  } catch {
    return '?';
  }
  // Walks up from the entry point: some packages do not export their package.json.
  for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const meta = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (meta.name === pkg) return meta.version ?? '?';
    } catch {}
  }
  return '?';
}

interface Lz4Napi { compressSync(d: Bytes): Buffer; uncompressSync(d: Bytes): Buffer }
interface Lz4Wasm { compress(d: Bytes): Bytes; decompress(d: Bytes): Bytes }
interface Lz4Js {
  compressBound(n: number): number;
  compressBlock(src: Bytes, dst: Bytes, sIndex: number, sLength: number, table: Uint32Array): number;
  decompressBlock(src: Bytes, dst: Bytes, sIndex: number, sLength: number, dIndex: number): number;
}
interface SnappyNapi { compressSync(d: Bytes): Buffer; uncompressSync(d: Bytes, o: { asBuffer: true }): Buffer }
interface SnappyJs { compress(d: Bytes): Bytes; uncompress(d: Bytes, maxLength?: number): Bytes }
interface SnappyWasm { compress_raw(d: Bytes): Bytes; decompress_raw(d: Bytes): Bytes }
interface CompressJs { Bzip2: { compressFile(d: Bytes, out: null, level: number): number[]; decompressFile(d: Bytes): number[] } }
interface LibBzip2 { compressBZ2(d: Bytes, block: number, work: number): { error: number; output: Bytes }; decompressBZ2(d: Bytes, small: number): { error: number; output: Bytes } }
interface LzmaNative {
  FILTER_LZMA1: unknown;
  MODE_FAST: number;
  MF_HC4: number;
  createStream(kind: 'rawEncoder', o: { filters: object[]; synchronous: boolean }): NodeJS.ReadWriteStream;
}

// ---- helpers -------------------------------------------------------------------------------------
const u32le = (b: Bytes): number => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0, true);
function withU32(size: number, block: Bytes): Bytes {
  const out = new Uint8Array(4 + block.length);
  new DataView(out.buffer).setUint32(0, size, true);
  out.set(block, 4);
  return out;
}
function tooLarge(size: number, expected: number): Error {
  return new Error(`refused: stream states ${size} bytes, ${expected} expected`);
}
function snappyLength(s: Bytes): number {
  let n = 0;
  for (let i = 0, shift = 0; i < 5; i++, shift += 7) {
    const b = s[i] ?? 0;
    n += (b & 127) * 2 ** shift;
    if (b < 128) break;
  }
  return n;
}
function snappyWithLength(size: number, s: Bytes): Bytes {
  let p = 0;
  while ((s[p] ?? 0) >= 128) p++;
  const head: number[] = [];
  for (let n = size; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      head.push(n);
      break;
    }
    head.push((n % 128) | 128);
  }
  const out = new Uint8Array(head.length + s.length - p - 1);
  out.set(head);
  out.set(s.subarray(p + 1), head.length);
  return out;
}
const same = (a: Bytes, b: Bytes): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

// ---- numcodecs 0.11 (Python) as the reference ------------------------------------------------------
interface PyJob {
  encode: { codec: object; input: string; output: string; dtype: string }[];
  decode: { codec: object; stream: string; expect: string; dtype: string }[];
}
const PY = String.raw`
import json, sys, numpy as np
import lzma
from numcodecs import get_codec as plain_get_codec
def get_codec(c):
    # JSON doubles cannot hold LZMA1's id 0x4000000000000001; it arrives as 2**62.
    for f in c.get('filters') or []:
        if f.get('id', 0) > 2**61: f['id'] = lzma.FILTER_LZMA1
    return plain_get_codec(c)
job = json.load(open(sys.argv[1]))
for e in job['encode']:
    c = get_codec(dict(e['codec']))
    open(e['output'], 'wb').write(bytes(c.encode(np.frombuffer(open(e['input'], 'rb').read(), dtype=e['dtype']))))
res = {}
for d in job['decode']:
    try:
        got = bytes(get_codec(dict(d['codec'])).decode(open(d['stream'], 'rb').read()))
        res[d['stream']] = got == open(d['expect'], 'rb').read()
    except Exception as ex:
        res[d['stream']] = 'error: ' + str(ex).splitlines()[0]
print(json.dumps(res))
`;
let pythonOk = true;
function runPython(job: PyJob): Record<string, boolean | string> {
  if (!pythonOk) return {};
  const file = path.join(work, `job-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(job));
  try {
    return JSON.parse(execFileSync(opts.python!, ['-c', PY, file], { encoding: 'utf8', maxBuffer: 1 << 24 })) as Record<string, boolean | string>;
  } catch (err) {
    pythonOk = false;
    console.error(`# numcodecs 0.11 (Python) unavailable: ${String(err).split('\n')[0]}`);
    return {};
  }
}
let fileSeq = 0;
function tmpFile(bytes: Bytes): string {
  const f = path.join(work, `f${fileSeq++}`);
  writeFileSync(f, bytes);
  return f;
}

// ---- measurement ------------------------------------------------------------------------------------
async function rate(run: () => MaybeAsync<unknown>, bytes: number): Promise<{ wall: number; cpu: number }> {
  await run();
  let n = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < MIN_MS) {
    await run();
    n++;
  }
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(cpu0);
  return { wall: (n * bytes) / MB / wallS, cpu: (n * bytes) / MB / ((c.user + c.system) / 1e6) };
}

interface Speed { encWall: number[]; encCpu: number[]; decWall: number[]; decCpu: number[]; ratio: number; decodeFails?: boolean; encodeFails?: string }

async function speeds(cands: Candidate[], ds: Dataset, decodeFrom: string | undefined): Promise<Map<string, Speed>> {
  const out = new Map<string, Speed>();
  const streams = new Map<string, Bytes>();
  for (const c of cands) {
    const s = c.encode ? await c.encode(ds.data) : undefined;
    if (s) streams.set(c.name, s);
    out.set(c.name, { encWall: [], encCpu: [], decWall: [], decCpu: [], ratio: s ? ds.data.length / s.length : NaN });
  }
  // Every decoder reads the reference encoder's stream when one is named (decode speed depends on
  // the stream: a weak encoder's mostly-literal stream decodes fast); else its own, or the first.
  const anyStream = (decodeFrom === undefined ? undefined : streams.get(decodeFrom)) ?? [...streams.values()][0];
  for (let r = 0; r < ROUNDS; r++) {
    const order = cands.map((_, i) => cands[(i + r) % cands.length]!);
    for (const c of order) {
      const s = out.get(c.name)!;
      if (c.encode && !s.encodeFails) {
        const e = await attempt(() => rate(() => c.encode!(ds.data), ds.data.length));
        if (e.ok) {
          s.encWall.push(e.value.wall);
          s.encCpu.push(e.value.cpu);
        } else {
          s.encodeFails = e.error;
        }
      }
      const stream = decodeFrom === undefined ? (streams.get(c.name) ?? anyStream) : anyStream;
      if (c.decode && stream && !s.decodeFails) {
        // A decoder that cannot read its own stream gets no speed (the correctness table says why).
        const ok = await attempt(() => c.decode!(stream, ds.data.length));
        if (!ok.ok || !same(ok.value, ds.data)) {
          s.decodeFails = true;
          continue;
        }
        // Some decoders fail only on a later call (libbzip2-wasm's fixed-size output): that is a failure too.
        const d = await attempt(() => rate(() => c.decode!(stream, ds.data.length), ds.data.length));
        if (d.ok) {
          s.decWall.push(d.value.wall);
          s.decCpu.push(d.value.cpu);
        } else {
          s.decodeFails = true;
          console.error(`#   ${c.name}: decode failed during the timed loop: ${d.error}`);
        }
      }
    }
  }
  return out;
}

interface Check { roundTrip: string; readsNumcodecs: string; numcodecsReads: string; bombHonest: string; bombTampered: string }

async function attempt<T>(f: () => MaybeAsync<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  try {
    return { ok: true, value: await f() };
  } catch (err) {
    return { ok: false, error: String(err instanceof Error ? err.message : err).split('\n')[0]!.slice(0, 60) };
  }
}

/** (a) honest size field, (b) size field rewritten to `EXPECT`; `rewrite` undefined = no size field. */
async function bomb(c: Candidate, stream: Bytes, rewrite: ((s: Bytes) => Bytes) | undefined): Promise<[string, string]> {
  if (!c.decode) return ['–', '–'];
  const judge = async (s: Bytes): Promise<string> => {
    const t = performance.now();
    const r = await attempt(() => c.decode!(s, EXPECT));
    const ms = (performance.now() - t).toFixed(0);
    if (!r.ok) return `refused (${ms} ms)`;
    return r.value.length > EXPECT ? `**inflated ${(r.value.length / 2 ** 20).toFixed(0)} MiB** (${ms} ms)` : `stopped at ${r.value.length} B, no error`;
  };
  return [await judge(stream), rewrite ? await judge(rewrite(stream)) : 'n/a (no size field)'];
}

function fmt(xs: number[]): string {
  return xs.length === 0 ? '–' : median(xs).toFixed(0);
}

/** Prints each table as soon as it is complete (a long run that fails later keeps what it measured). */
function table(title: string, rows: string[][], head: string[]): void {
  const lines = [`#### ${title}\n`, `| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`), ''];
  console.log(lines.join('\n'));
}

/**
 * Runs one codec's comparison: speed per dataset, then correctness and safety per candidate.
 * `ncCodec` is numcodecs' configuration for the same stream format (undefined: none exists);
 * `bombStream` is a stream of BOMB zero bytes, `rewrite` sets its size field to EXPECT.
 */
async function compare(
  codec: string, cands: Candidate[], datasets: Dataset[], ncCodec: ((ds: Dataset) => object) | undefined,
  bombStream: Bytes, rewrite: ((s: Bytes) => Bytes) | undefined, decodeFrom?: string,
): Promise<void> {
  console.error(`# ${codec}: ${cands.map((c) => c.name).join(', ')}`);
  const speedRows: string[][] = [];
  for (const ds of datasets) {
    console.error(`#   ${codec}: speed on ${ds.name}`);
    const sp = await speeds(cands, ds, decodeFrom);
    for (const c of cands) {
      const s = sp.get(c.name)!;
      const dec = s.decodeFails ? ['fails', 'fails'] : [fmt(s.decWall), fmt(s.decCpu)];
      const enc = s.encodeFails ? ['fails', 'fails'] : [fmt(s.encWall), fmt(s.encCpu)];
      speedRows.push([ds.name, c.name, Number.isNaN(s.ratio) ? '–' : s.ratio.toFixed(2), ...enc, ...dec]);
    }
  }
  const from = decodeFrom === undefined ? 'each its own encoder\'s stream' : `the stream ${decodeFrom} wrote`;
  table(`${codec}: speed (median of ${ROUNDS} rounds, MB/s of uncompressed data; decoders read ${from})`, speedRows, ['data', 'implementation', 'ratio', 'encode wall', 'encode CPU', 'decode wall', 'decode CPU']);

  // Correctness: inputs = datasets + edges; numcodecs encodes them; candidates decode those and encode their own.
  const inputs = [...datasets.map((d) => ({ data: d.data, dtype: d.dtype })), ...EDGES.map((e) => ({ data: e, dtype: datasets[0]!.dtype.startsWith('|') ? '|u1' : datasets[0]!.dtype }))]
    .filter((x) => x.data.length % Number(x.dtype.slice(2)) === 0);
  const inFiles = inputs.map((x) => tmpFile(x.data));
  const ncStreams: (string | undefined)[] = inputs.map(() => undefined);
  if (ncCodec) {
    const job: PyJob = { encode: [], decode: [] };
    inputs.forEach((x, i) => {
      const output = `${inFiles[i]}.nc`;
      job.encode.push({ codec: ncCodec(datasets[0]!), input: inFiles[i]!, output, dtype: x.dtype });
      ncStreams[i] = output;
    });
    runPython(job);
  }
  const checkRows: string[][] = [];
  const pyDecode: PyJob = { encode: [], decode: [] };
  // Inputs numcodecs cannot round-trip itself (0.11 refuses its own LZ4 stream of 0 bytes) are left out of its column.
  inputs.forEach((x, i) => {
    const f = ncStreams[i];
    if (f) pyDecode.decode.push({ codec: ncCodec!(datasets[0]!), stream: f, expect: inFiles[i]!, dtype: x.dtype });
  });
  const pending: { cand: string; files: string[] }[] = [];
  const checks = new Map<string, Check>();
  for (const c of cands) {
    let rt = 0;
    let rtFail = '';
    const mine: string[] = [];
    for (const [i, x] of inputs.entries()) {
      if (!c.encode || !c.decode) break;
      const r = await attempt(async () => c.decode!(await c.encode!(x.data), x.data.length));
      if (r.ok && same(r.value, x.data)) rt++;
      else rtFail ||= r.ok ? `input ${i}: wrong bytes` : `input ${i}: ${r.error}`;
    }
    if (c.encode && ncCodec) {
      for (const [i, x] of inputs.entries()) {
        const enc = await attempt(() => c.encode!(x.data));
        if (!enc.ok) continue;
        const f = tmpFile(enc.value);
        mine.push(f);
        pyDecode.decode.push({ codec: ncCodec(datasets[0]!), stream: f, expect: inFiles[i]!, dtype: x.dtype });
      }
      pending.push({ cand: c.name, files: mine });
    }
    let reads = 0;
    let readFail = '';
    let readTotal = 0;
    if (c.decode && ncCodec && pythonOk) {
      for (const [i, x] of inputs.entries()) {
        const f = ncStreams[i];
        if (!f) continue;
        readTotal++;
        const r = await attempt(() => c.decode!(new Uint8Array(readFileSync(f)), x.data.length));
        if (r.ok && same(r.value, x.data)) reads++;
        else readFail ||= r.ok ? `input ${i}: wrong bytes` : `input ${i}: ${r.error}`;
      }
    }
    console.error(`#   ${codec} / ${c.name}: checks done, bomb next`);
    const [bombHonest, bombTampered] = await bomb(c, bombStream, rewrite);
    checks.set(c.name, {
      roundTrip: c.encode && c.decode ? `${rt}/${inputs.length}${rtFail ? ` (${rtFail})` : ''}` : '–',
      readsNumcodecs: readTotal ? `${reads}/${readTotal}${readFail ? ` (${readFail})` : ''}` : '–',
      numcodecsReads: '–',
      bombHonest,
      bombTampered,
    });
  }
  const verdicts = pyDecode.decode.length ? runPython(pyDecode) : {};
  const selfFails = inputs.map((_, i) => { const f = ncStreams[i]; return f !== undefined && verdicts[f] !== true; });
  for (const p of pending) {
    const kept = p.files.filter((_, i) => !selfFails[i]);
    const ok = kept.filter((f) => verdicts[f] === true).length;
    const bad = kept.map((f) => verdicts[f]).find((v) => v !== true && v !== undefined);
    const skipped = p.files.length - kept.length;
    if (Object.keys(verdicts).length) {
      checks.get(p.cand)!.numcodecsReads = `${ok}/${kept.length}${bad ? ` (${String(bad).slice(0, 50)})` : ''}${skipped ? ` (${skipped} input(s) numcodecs cannot round-trip itself left out)` : ''}`;
    }
  }
  for (const c of cands) {
    const k = checks.get(c.name)!;
    checkRows.push([c.name, c.license, k.roundTrip, k.readsNumcodecs, k.numcodecsReads, c.bound, k.bombHonest, k.bombTampered]);
  }
  table(`${codec}: correctness and safety`, checkRows, [
    'implementation', 'license', 'round trip', 'decodes numcodecs 0.11 streams', 'numcodecs 0.11 decodes its streams', 'told the expected size by',
    'bomb, honest size field', 'bomb, size field says 1 MiB',
  ]);
}

// ---- LZ4 (numcodecs.lz4 framing: u32le size + one block) ---------------------------------------------
async function lz4(): Promise<void> {
  const cands: Candidate[] = [{
    name: 'Floe (hand-written)', license: 'Apache-2.0', bound: 'maxBytes, checked against the header before allocating',
    encode: lz4Encode, decode: (s, e) => lz4Decode(s, { maxBytes: e }),
  }];
  const napi = load<Lz4Napi>('lz4-napi');
  if (napi) {
    cands.push({
      name: `lz4-napi ${version('lz4-napi')} (lz4_flex, native)`, license: 'MIT', bound: 'header only: wrapper checks it, library allocates it',
      encode: (d) => napi.compressSync(Buffer.from(d.buffer, d.byteOffset, d.byteLength)),
      decode: (s, e) => {
        if (u32le(s) > e) throw tooLarge(u32le(s), e);
        return napi.uncompressSync(s);
      },
    });
  }
  const wasm = load<Lz4Wasm>('lz4-wasm-nodejs');
  if (wasm) {
    cands.push({
      name: `lz4-wasm-nodejs ${version('lz4-wasm-nodejs')} (lz4_flex, WASM)`, license: 'MIT', bound: 'header only: wrapper checks it',
      encode: (d) => wasm.compress(d),
      decode: (s, e) => {
        if (u32le(s) > e) throw tooLarge(u32le(s), e);
        return wasm.decompress(s);
      },
    });
  }
  const js = load<Lz4Js>('lz4js');
  if (js) {
    const table32 = new Uint32Array(1 << 16);
    cands.push({
      name: `lz4js ${version('lz4js')} (pure JS)`, license: 'ISC', bound: 'output buffer of the expected size',
      encode: (d) => {
        const out = new Uint8Array(4 + js.compressBound(d.length));
        table32.fill(0);
        const n = d.length === 0 ? 0 : js.compressBlock(d, out, 0, d.length, table32);
        new DataView(out.buffer).setUint32(0, d.length, true);
        if (n === 0 && d.length > 0) return withU32(d.length, Uint8Array.of(d.length >= 15 ? 0xf0 : d.length << 4, ...(d.length >= 15 ? lenBytes(d.length - 15) : []), ...d));
        out.set(out.subarray(0, n), 4);
        return out.slice(0, 4 + n);
      },
      decode: (s, e) => {
        const size = u32le(s);
        if (size > e) throw tooLarge(size, e);
        const out = new Uint8Array(size);
        const end = js.decompressBlock(s, out, 4, s.length - 4, 0);
        if (end !== size) throw new Error(`block decoded to ${end} bytes, header says ${size}`);
        return out;
      },
    });
  }
  const nc = NumcodecsLZ4.fromConfig({ acceleration: 1 });
  cands.push({
    name: NC_LZ4, license: 'MIT', bound: 'header only: wrapper checks it',
    encode: (d) => nc.encode(d),
    decode: async (s, e) => {
      if (u32le(s) > e) throw tooLarge(u32le(s), e);
      return nc.decode(s);
    },
  });
  await compare('LZ4', cands, STREAM_DATA, () => ({ id: 'lz4', acceleration: 1 }), lz4Encode(new Uint8Array(BOMB)), (s) => withU32(EXPECT, s.subarray(4)), NC_LZ4);
  await bloscStreams('LZ4', 'lz4', cands);
}

function lenBytes(n: number): number[] {
  const out: number[] = [];
  while (n >= 255) {
    out.push(255);
    n -= 255;
  }
  out.push(n);
  return out;
}

// ---- Snappy (raw format: varint size + elements), as Blosc stores it ---------------------------------
async function snappy(): Promise<void> {
  const cands: Candidate[] = [{
    // Floe's snappy is snappy-wasm since issue 21 stage 3: this row is its wrapper (size check, copy out).
    name: 'Floe (snappy-wasm, stated size checked first)', license: 'Apache-2.0 / MIT', bound: 'stated size must equal the expected one before the library runs',
    encode: (d) => {
      const out = new Uint8Array(32 + d.length + Math.ceil(d.length / 6));
      const n = snappyCompress(d, out);
      if (n <= 0) throw new Error('snappyCompress: no room');
      return out.slice(0, n);
    },
    decode: (s, e) => {
      const size = snappyLength(s);
      if (size > e) throw tooLarge(size, e);
      const out = new Uint8Array(size);
      if (snappyDecompress(s, out) !== size) throw new Error('malformed');
      return out;
    },
  }];
  const napi = load<SnappyNapi>('snappy');
  if (napi) {
    cands.push({
      name: `snappy ${version('snappy')} (snap crate, native)`, license: 'MIT', bound: 'size field only: wrapper checks it',
      encode: (d) => napi.compressSync(d),
      decode: (s, e) => {
        if (snappyLength(s) > e) throw tooLarge(snappyLength(s), e);
        return napi.uncompressSync(s, { asBuffer: true });
      },
    });
  }
  const js = load<SnappyJs>('snappyjs');
  if (js) {
    cands.push({
      name: `snappyjs ${version('snappyjs')} (pure JS)`, license: 'MIT', bound: 'uncompress(data, maxLength)',
      encode: (d) => js.compress(d),
      decode: (s, e) => js.uncompress(s, e),
    });
  }
  const wasm = load<SnappyWasm>('snappy-wasm');
  if (wasm) {
    cands.push({
      name: `snappy-wasm ${version('snappy-wasm')} (snap crate, WASM)`, license: 'MIT', bound: 'size field only: wrapper checks it',
      encode: (d) => wasm.compress_raw(d),
      decode: (s, e) => {
        if (snappyLength(s) > e) throw tooLarge(snappyLength(s), e);
        return wasm.decompress_raw(s);
      },
    });
  }
  // numcodecs has no stand-alone Snappy; c-blosc's Snappy streams are read below.
  await compare('Snappy', cands, STREAM_DATA, undefined, cands[0]!.encode!(new Uint8Array(BOMB)) as Bytes, (s) => snappyWithLength(EXPECT, s), napi ? cands[1]!.name : undefined);
  await bloscStreams('Snappy', 'snappy', cands);
}

/**
 * The compressed streams inside c-blosc buffers (noshuffle, typesize 1: one stream per block), each
 * with its decoded size: what Floe's Blosc decoder hands its stream codec. They come from
 * numcodecs.js's c-blosc 1.x (WASM): Debian's numcodecs 0.11 has no Snappy (it stores such
 * buffers uncompressed).
 */
async function bloscStreams(codec: string, cname: string, cands: Candidate[]): Promise<void> {
  const inputs = [...STREAM_DATA.map((d) => d.data), ...EDGES];
  const nc = NumcodecsBlosc.fromConfig({ cname, clevel: 5, shuffle: 0, blocksize: 0 });
  const streams: { stream: Bytes; expected: Bytes }[] = [];
  for (const input of inputs) {
    const buf = await nc.encode(input);
    const h = readHeader(buf);
    if (h.flags & FLAG_MEMCPYED || h.nbytes === 0) continue;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const nblocks = Math.ceil(h.nbytes / h.blocksize);
    for (let b = 0; b < nblocks; b++) {
      const size = Math.min(h.blocksize, h.nbytes - b * h.blocksize);
      const nstreams = streamsPerBlock(h.flags, h.typesize, h.blocksize, size < h.blocksize);
      let ip = view.getInt32(HEADER_BYTES + 4 * b, true);
      for (let s = 0; s < nstreams; s++) {
        const csize = view.getInt32(ip, true);
        const len = size / nstreams;
        const start = b * h.blocksize + s * len;
        if (csize !== len) streams.push({ stream: buf.slice(ip + 4, ip + 4 + csize), expected: input.subarray(start, start + len) });
        ip += 4 + csize;
      }
    }
  }
  const rows: string[][] = [];
  console.error(`#   ${codec}: ${streams.length} streams extracted`);
  for (const c of cands) {
    if (!c.decode) continue;
    let ok = 0;
    let fail = '';
    for (const { stream, expected } of streams) {
      const r = await attempt(() => c.decode!(cname === 'lz4' ? withU32(expected.length, stream) : stream, expected.length));
      if (r.ok && same(r.value, expected)) ok++;
      else fail ||= r.ok ? 'wrong bytes' : r.error;
    }
    rows.push([c.name, `${ok}/${streams.length}${fail ? ` (${fail})` : ''}`]);
    console.error(`#   ${codec} / ${c.name}: c-blosc streams done`);
  }
  table(`${codec}: decoding the ${streams.length} compressed ${cname} streams inside c-blosc 1.x buffers (numcodecs.js)`, rows, ['implementation', 'decoded exactly']);
}

// ---- Blosc (whole container, incl. BloscLZ) ---------------------------------------------------------
async function blosc(): Promise<void> {
  const configs: { cname: BloscCname; shuffle: 0 | 1 | 2 }[] = [
    { cname: 'lz4', shuffle: 1 }, { cname: 'lz4', shuffle: 2 }, { cname: 'blosclz', shuffle: 1 }, { cname: 'snappy', shuffle: 1 }, { cname: 'lz4hc', shuffle: 1 },
  ];
  const chosen = configs.filter(({ cname }) => BLOSC_CNAMES.has(cname));
  for (const { cname, shuffle } of chosen) {
    const cands: Candidate[] = [
      {
        name: cname === 'snappy' ? 'Floe container + snappy-wasm streams' : 'Floe (hand-written)', license: 'Apache-2.0', bound: 'maxBytes, checked against the header before allocating',
        encode: (d) => bloscCompress(d, { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 }),
        decode: (s, e) => bloscDecompress(s, e),
      },
    ];
    if (cname === 'lz4' && lz4NapiAvailable()) {
      // What Floe runs when lz4-napi is installed: its container and shuffle, the package's LZ4.
      const napi = <T>(f: () => T): T => {
        selectLz4Backend('napi');
        try {
          return f();
        } finally {
          selectLz4Backend('js');
        }
      };
      cands.push({
        name: 'Floe container + lz4-napi streams', license: 'Apache-2.0 / MIT', bound: 'maxBytes, checked against the header before allocating',
        encode: (d) => napi(() => bloscCompress(d, { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 })),
        decode: (s, e) => napi(() => bloscDecompress(s, e)),
      });
    }
    const nc = NumcodecsBlosc.fromConfig({ cname, clevel: 5, shuffle, blocksize: 0 });
    cands.push({
      name: NC_BLOSC, license: 'MIT', bound: 'header only: wrapper checks it',
      // numcodecs.js's build writes typesize 4 whatever it is given (its binding takes bytes only).
      encode: (d) => nc.encode(d),
      decode: async (s, e) => {
        const n = readHeader(s).nbytes;
        if (n > e) throw tooLarge(n, e);
        return nc.decode(s);
      },
    });
    const shuffleName = ['noshuffle', 'shuffle', 'bitshuffle'][shuffle];
    const bombStream = bloscCompress(new Uint8Array(BOMB), { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 });
    await compare(`Blosc ${cname} ${shuffleName}`, cands, TYPED_DATA, () => ({ id: 'blosc', cname, clevel: 5, shuffle, blocksize: 0 }), bombStream, (s) => {
      const t = s.slice();
      new DataView(t.buffer).setUint32(4, EXPECT, true);
      return t;
    }, NC_BLOSC);
  }
}

// ---- bzip2 encoder (decoded by seek-bzip, Floe's bounded decoder, and by numcodecs) --------------------
async function bz2(): Promise<void> {
  const floeBz2 = bz2Compressor(9);
  const decodeFloe = (s: Bytes, e: number): Bytes => floeBz2.decode(s, { maxBytes: e });
  const cands: Candidate[] = [{
    name: 'Floe encoder (hand-written) + seek-bzip 2.0.0 decoder', license: 'Apache-2.0 / MIT', bound: 'maxBytes: an output sink that refuses the byte past it',
    encode: (d) => bz2Compress(d, 9), decode: decodeFloe,
  }];
  const lib = await loadLibBzip2();
  if (lib) {
    cands.push({
      name: `libbzip2-wasm ${version('libbzip2-wasm')} (libbzip2 1.0, WASM)`, license: 'ISC (libbzip2: BSD-style)', bound: 'none (inflates fully)',
      encode: (d) => {
        const r = lib.compressBZ2(d, 9, 30);
        if (r.error !== 0) throw new Error(`compressBZ2 error ${r.error}`);
        return r.output;
      },
      decode: (s) => {
        const r = lib.decompressBZ2(s, 0);
        if (r.error !== 0) throw new Error(`decompressBZ2 error ${r.error}`);
        return r.output;
      },
    });
    cands.push({
      name: 'libbzip2-wasm encoder + seek-bzip decoder', license: 'ISC / MIT', bound: 'maxBytes (seek-bzip sink)',
      encode: (d) => lib.compressBZ2(d, 9, 30).output, decode: decodeFloe,
    });
  }
  const cjs = load<CompressJs>('compressjs');
  if (cjs) {
    cands.push({
      name: `compressjs ${version('compressjs')} (pure JS)`, license: '**GPL-2.0**', bound: 'none (inflates fully)',
      encode: (d) => Uint8Array.from(cjs.Bzip2.compressFile(d, null, 9)),
      decode: (s) => Uint8Array.from(cjs.Bzip2.decompressFile(s)),
    });
  }
  const data = TYPED_DATA.map((d) => ({ ...d, data: d.data.subarray(0, 2 ** 20), name: d.name.replace(/\(\d+ MiB\)/, '(1 MiB)') }));
  await compare('bzip2 (level 9)', cands, data, () => ({ id: 'bz2', level: 9 }), bz2Compress(new Uint8Array(BOMB), 9), undefined);
}

async function loadLibBzip2(): Promise<LibBzip2 | undefined> {
  const factory = load<() => { then(f: (m: LibBzip2 & { then?: unknown }) => void): void }>('libbzip2-wasm');
  if (!factory) return undefined;
  // An Emscripten module is itself a thenable resolving to itself: awaiting it directly never ends.
  return new Promise((resolve) => factory().then((m) => {
    delete m.then;
    resolve(m);
  }));
}

// ---- raw LZMA1 encoder (lc/lp/pb other than liblzma-rs's fixed 3/0/2) ---------------------------------
async function lzma1(): Promise<void> {
  const props = { lc: 1, lp: 2, pb: 0 };
  const chain = [{ id: FILTER_LZMA1, options: { id: FILTER_LZMA1, ...props, dict_size: 1 << 20 } }];
  const cands: Candidate[] = [{
    name: 'Floe literal-only encoder (hand-written) + @napi-rs/lzma decoder', license: 'Apache-2.0 / MIT', bound: 'maxBytes (probe of the native decoder)',
    encode: (d) => encodeLzma1Literals(d, props), decode: (s, e) => decodeRaw(chain, s, e),
  }];
  const native = load<LzmaNative>('lzma-native');
  if (native) {
    const raw = (d: Bytes, extra: object): Promise<Bytes> => new Promise((resolve, reject) => {
      const s = native.createStream('rawEncoder', { filters: [{ id: native.FILTER_LZMA1, options: { ...props, dict_size: 1 << 20, ...extra } }], synchronous: true });
      const parts: Buffer[] = [];
      s.on('data', (b: Buffer) => parts.push(b));
      s.on('end', () => resolve(Buffer.concat(parts)));
      s.on('error', reject);
      s.end(Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    });
    cands.push({
      name: `lzma-native ${version('lzma-native')} (liblzma, native), normal mode`, license: 'MIT', bound: '(decoder: @napi-rs/lzma as Floe)',
      encode: (d) => raw(d, {}), decode: (s, e) => decodeRaw(chain, s, e),
    });
    cands.push({
      name: `lzma-native ${version('lzma-native')}, fast mode (hc4, nice_len 32)`, license: 'MIT', bound: '(decoder: @napi-rs/lzma as Floe)',
      encode: (d) => raw(d, { mode: native.MODE_FAST, mf: native.MF_HC4, nice_len: 32, depth: 0 }), decode: (s, e) => decodeRaw(chain, s, e),
    });
  }
  const data = TYPED_DATA.map((d) => ({ ...d, data: d.data.subarray(0, 2 ** 20), name: d.name.replace(/\(\d+ MiB\)/, '(1 MiB)') }));
  // numcodecs: LZMA format 3 (raw) with the same filter; Python wants LZMA1's real id.
  const nc = (): object => ({ id: 'lzma', format: 3, filters: [{ id: 0x4000000000000001, ...props, dict_size: 1 << 20 }] });
  await compare(`raw LZMA1 (lc=${props.lc}, lp=${props.lp}, pb=${props.pb})`, cands, data, nc, encodeLzma1Literals(new Uint8Array(BOMB), props), undefined);
}

// ---- run ---------------------------------------------------------------------------------------------
const loadBefore = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
console.log(`${os.cpus()[0]?.model ?? '?'}, ${os.cpus().length} cores, Node ${process.version}; load average (1/5/15 min) ${loadBefore} at the start; ${ROUNDS} rounds of ${MIN_MS} ms per candidate and direction.\n`);
if (ONLY.has('lz4')) await lz4();
if (ONLY.has('snappy')) await snappy();
if (ONLY.has('blosc')) await blosc();
if (ONLY.has('bz2')) await bz2();
if (ONLY.has('lzma1')) await lzma1();
console.log(`Load average (1/5/15 min) at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}.`);
rmSync(work, { recursive: true, force: true });
process.exit(0);
