// Encode/decode speed of manifests with N native chunk refs for one array.
// Run: npx tsx bench/icechunk-format.ts [100000 1000000]
import { decodeManifest, encodeManifest, findChunkRef, type Manifest, type NativeChunkRef } from '../src/format/icechunk/manifest.ts';
import { newChunkId, newManifestId, newNodeId } from '../src/format/icechunk/ids.ts';

function build(n: number): Manifest {
  const side = Math.ceil(Math.sqrt(n));
  const chunkId = newChunkId();
  const refs: NativeChunkRef[] = [];
  for (let i = 0; i < n; i++) refs.push({ kind: 'native', index: [Math.floor(i / side), i % side], chunkId, offset: i * 4096, length: 4096 });
  return { specVersion: 2, id: newManifestId(), arrays: [{ nodeId: newNodeId(), refs }] };
}

const time = <T>(fn: () => T): [T, number] => {
  const t = performance.now();
  const r = fn();
  return [r, performance.now() - t];
};

for (const n of (process.argv.slice(2).length ? process.argv.slice(2) : ['100000', '1000000']).map(Number)) {
  const m = build(n);
  const [bytes, enc] = time(() => encodeManifest(m));
  const [decoded, dec] = time(() => decodeManifest(bytes));
  const probe = m.arrays[0]!.refs[Math.floor(n / 2)]!.index;
  const [, look] = time(() => { for (let i = 0; i < 100_000; i++) findChunkRef(decoded.arrays[0]!, probe); });
  console.log(`${n} refs: encode+zstd ${enc.toFixed(0)} ms, decode ${dec.toFixed(0)} ms, ${(bytes.length / n).toFixed(1)} bytes/ref compressed, lookup ${(look / 100).toFixed(3)} µs (one chunk id reused, so bytes/ref is lower than with real ids)`);
}
