// Runs inside a pool worker: rebuild the codec chain (cached per configuration) and decode, or
// encode a whole chunk (writes).
import { isFloeError } from '../errors.ts';
import { copyBytes, copyTypedArray, ownsWholeBuffer, transferable } from '../format/bytes.ts';
import { configureLimits, resourceLimits } from '../format/limits.ts';
import { buildCodecChain, ScratchBuffer, type CodecChain } from '../format/codecs/pipeline.ts';
import { loadCodecsMentionedIn } from '../format/codecs/registry.ts';
import { selectZstdBackend } from '../format/codecs/zstd-backend.ts';
import { parseDataType } from '../format/zarr/data-types.ts';
import { parseFillValue, type FillValueInput } from '../format/zarr/fill-value.ts';
import type { CodecMetadata } from '../format/codecs/types.ts';
import type { ChainRequest, DecodeRequest, DecodeResponse, EncodeRequest, WorkerResponse } from './decode-pool.ts';
import { onRequest, reply as send, started } from './worker-port.ts';
import { encodeOwnedChunk, encodeOwnedChunkInto } from './raw-chunk.ts';
import { cStrides } from '../format/zarr/ndarray.ts';
import { inFileBuffer, readFileIntoViews, readLocalFile } from './local-file.ts';
import { plainRuns } from './plain-runs.ts';
import { decodeCfRegion } from '../format/cf/region.ts';
import { fromWire } from './shared-view.ts';

const chains = new Map<string, CodecChain>();

function chainFor(req: ChainRequest): CodecChain {
  // Configured limits are per process: take the sender's (chains follow a change by themselves).
  if (req.variableChunkBytes !== resourceLimits().variableChunkBytes) configureLimits({ variableChunkBytes: req.variableChunkBytes });
  const key = JSON.stringify([req.codecs, req.shape, req.dataType, req.fillValue]);
  let chain = chains.get(key);
  if (!chain) {
    const dataType = parseDataType(req.dataType);
    chain = buildCodecChain(req.codecs as unknown as CodecMetadata[], {
      shape: req.shape,
      dataType,
      fillValue: parseFillValue(dataType, req.fillValue as FillValueInput),
    });
    if (chains.size > 64) chains.clear();
    chains.set(key, chain);
  }
  return chain;
}

const scratch = new ScratchBuffer();

// The chain's codecs may load on first use (registry.ts): handling waits for them (and for an
// async decode step, gzip/zlib in a browser), then runs to completion synchronously, so two
// requests never share the scratch buffers at once.
onRequest((req) => {
  loadCodecsMentionedIn(req.codecs).then(
    () => (req.op === 'encode' ? handleEncode(req) : handle(req)),
    (err: unknown) => send({ id: req.id, ok: false, code: 'CORRUPT_OBJECT', message: err instanceof Error ? err.message : String(err), details: {} } satisfies DecodeResponse),
  );
});

async function handle(req: DecodeRequest): Promise<void> {
  let reply: DecodeResponse;
  const transfer: ArrayBuffer[] = [];
  try {
    let chain = chainFor(req);
    // Bytes sent (not a local file in this thread's reused buffer) whose codec decodes on the
    // runtime's native streams (gzip, zlib in a browser): awaited first, the rest runs at once.
    const step = req.file === undefined ? chain.asyncBytes : undefined;
    const input = step ? await step.decode(req.bytes!) : undefined;
    if (step) chain = step.rest;
    // An uncompressed chunk stored as the shared result holds it: read straight into the result.
    const target = req.target && { ...req.target, view: fromWire(req.target.view) };
    const runs = req.file && target && !target.cf ? plainRuns(chain, target.projections, target.view) : undefined;
    const direct = req.file && runs ? readFileIntoViews(req.file, runs.chunkBytes, runs.fileOffset, runs.views) : 'fallback';
    if (direct === 'done') {
      send({ id: req.id, ok: true } satisfies DecodeResponse);
      return;
    }
    const bytes = input ?? (req.file === undefined ? req.bytes! : direct === 'missing' ? undefined : readLocalFile(req.file, chain.encodedSizeBound()));
    if (bytes === undefined) {
      send({ id: req.id, ok: true, missing: true } satisfies DecodeResponse);
      return;
    }
    if (target) {
      // Shared output: decode into reused scratch, copy the selection out, reply empty.
      const { projections, view, cf } = target;
      if (cf) decodeCfRegion(chain, bytes, projections, view, cf, scratch); // values decoded as they are copied
      else chain.decodeRegion(bytes, projections, view, scratch);
      send({ id: req.id, ok: true } satisfies DecodeResponse);
      return;
    }
    const out = chain.decode(bytes);
    reply = { id: req.id, ok: true, data: out.data, shape: out.shape, stride: out.stride };
    if (!Array.isArray(out.data)) {
      // Transfer only a buffer the result owns whole: Buffer.allocUnsafe may hand out slices of
      // a shared pool, and a codec may keep internal buffers; those are copied instead.
      const d = out.data;
      const data = ownsWholeBuffer(d) && d.buffer !== req.bytes?.buffer && !inFileBuffer(d) ? d : copyTypedArray(d);
      reply = { id: req.id, ok: true, data, shape: out.shape, stride: out.stride };
      transfer.push(data.buffer as ArrayBuffer);
    }
  } catch (err) {
    reply = failure(req.id, err);
  }
  send(reply, transfer);
}

/**
 * Encodes with the code the calling thread would run (encodeOwnedChunk), so the bytes are the
 * same: into the sender's memory when it sent some and the chain can, else into memory of this
 * thread's, which travels back by transfer when nothing else here uses its buffer (a native zstd
 * result is a view into fresh memory of its worst-case size) and is copied otherwise.
 */
function handleEncode(req: EncodeRequest): void {
  let reply: WorkerResponse;
  const transfer: ArrayBuffer[] = [];
  try {
    const chain = chainFor(req);
    const chunk = { data: req.data, shape: [...req.shape], stride: cStrides(req.shape) };
    const into = req.out && encodeOwnedChunkInto(chain, chunk, req.out);
    const own = into ?? encodeOwnedChunk(chain, chunk);
    const encoded = into || (transferable(own) && own.buffer !== req.data.buffer && !inFileBuffer(own)) ? own : copyBytes(own);
    reply = { id: req.id, ok: true, encoded };
    transfer.push(encoded.buffer as ArrayBuffer);
  } catch (err) {
    reply = failure(req.id, err);
  }
  send(reply, transfer);
}

/** An error as a reply. Details are plain data (structured-clone safe), so a worker's error keeps them. */
function failure(id: number, err: unknown): DecodeResponse {
  const { code, details } = isFloeError(err) ? err : { code: 'CORRUPT_OBJECT' as const, details: {} };
  return { id, ok: false, code, message: err instanceof Error ? err.message : String(err), details };
}

// The starting thread's zstd backend (it loaded there: same code, same packages).
started((data) => {
  if (data?.zstd) selectZstdBackend(data.zstd);
});
