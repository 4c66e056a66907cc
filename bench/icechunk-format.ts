// Encode/decode speed of manifests with N native chunk refs for one array, each with its own
// random chunk id (as real manifests have), at realistic offsets and lengths.
// Run: npx tsx bench/icechunk-format.ts [100000 1000000]
// The reference writes ~52 bytes/ref of flatbuffers and ~18.9 bytes/ref after zstd (issue 3).
import { encodeFile } from '../src/format/icechunk/framing.ts';
import { randomBytes } from 'node:crypto';
import { asChunkId, newManifestId, newNodeId } from '../src/format/icechunk/ids.ts';
import { chunkRefCount, decodeManifest, encodeManifestPayload, findChunkRef, type Manifest, type NativeChunkRef } from '../src/format/icechunk/manifest.ts';

const REFERENCE_BYTES_PER_REF = 18.9;

function build(n: number): Manifest {
  const side = Math.ceil(Math.sqrt(n));
  const ids = randomBytes(n * 12);
  const refs: NativeChunkRef[] = [];
  for (let i = 0; i < n; i++) {
    // Every chunk id distinct and random, lengths varying like compressed chunks.
    const chunkId = asChunkId(ids.subarray(i * 12, i * 12 + 12));
    refs.push({ kind: 'native', index: [Math.floor(i / side), i % side], chunkId, offset: 0, length: 3000 + ((i * 7919) % 2000) });
  }
  return { specVersion: 2, id: newManifestId(), arrays: [{ nodeId: newNodeId(), refs }] };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const time = <T>(fn: () => T): [T, number] => {
  const t = performance.now();
  const r = fn();
  return [r, performance.now() - t];
};
const ms = (x: number) => `${x.toFixed(0)} ms`;

const RUNS = 3;
for (const n of (process.argv.slice(2).length ? process.argv.slice(2) : ['100000', '1000000']).map(Number)) {
  const encodeRuns: [number, number][] = [];
  let bytes: Uint8Array = new Uint8Array();
  let rawLength = 0;
  let probe: number[] = [];
  {
    // The source refs are dropped before decoding so their heap does not slow the decoder's GC.
    const m = build(n);
    probe = m.arrays[0]!.refs[Math.floor(n / 2)]!.index;
    for (let run = 0; run < RUNS; run++) {
      const [payload, fb] = time(() => encodeManifestPayload(m));
      const [file, zstd] = time(() => encodeFile('manifest', 2, payload));
      encodeRuns.push([fb, zstd]);
      bytes = file;
      rawLength = payload.length;
    }
  }
  const decodeRuns: number[] = [];
  let decoded!: Manifest;
  for (let run = 0; run < RUNS; run++) {
    const [d, dec] = time(() => decodeManifest(bytes));
    decodeRuns.push(dec);
    decoded = d;
  }
  const array = decoded.arrays[0]!;
  if (chunkRefCount(array) !== n) throw new Error('ref count mismatch');
  const [, look] = time(() => { for (let i = 0; i < 100_000; i++) findChunkRef(array, probe); });
  const [, all] = time(() => array.refs.length);
  const fb = median(encodeRuns.map((r) => r[0]));
  const zstd = median(encodeRuns.map((r) => r[1]));
  console.log(
    `${n} refs (median of ${RUNS}): encode ${ms(fb + zstd)} (flatbuffers ${ms(fb)} + zstd ${ms(zstd)}), decode ${ms(median(decodeRuns))}, ` +
      `then all ref objects +${ms(all)}, lookup ${(look / 100).toFixed(3)} µs; ` +
      `${(rawLength / n).toFixed(1)} B/ref raw, ${(bytes.length / n).toFixed(1)} B/ref zstd (reference ~${REFERENCE_BYTES_PER_REF})`,
  );
}
