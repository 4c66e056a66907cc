// Runs inside a decode worker: rebuild the codec chain (cached per configuration) and decode.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { floeError, isFloeError } from '../errors.ts';
import { copyTypedArray, ownsWholeBuffer } from '../format/bytes.ts';
import { configureLimits, limitExceeded, resourceLimits } from '../format/limits.ts';
import { buildCodecChain, ScratchBuffer, type CodecChain } from '../format/codecs/pipeline.ts';
import { loadCodecsMentionedIn } from '../format/codecs/registry.ts';
import { parseDataType } from '../format/zarr/data-types.ts';
import { parseFillValue, type FillValueInput } from '../format/zarr/fill-value.ts';
import type { CodecMetadata } from '../format/codecs/types.ts';
import type { DecodeRequest, DecodeResponse } from './decode-pool.ts';
import type { LocalFileSpan } from './store.ts';

const chains = new Map<string, CodecChain>();

function chainFor(req: DecodeRequest): CodecChain {
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
let fileBuffer = new Uint8Array(0);

/**
 * Reads a local file, or `length` bytes of it at `offset`, into a reused buffer; undefined when
 * the file does not exist. A file too short for its span is damaged, not empty.
 */
function readLocalFile(span: LocalFileSpan, maxBytes: number): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(span.path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const offset = span.offset ?? 0;
    const size = span.length ?? fstatSync(fd).size - offset;
    // No encoding of this chunk is that large: refuse before reading it into memory.
    if (size > maxBytes) {
      throw limitExceeded('encoded-bytes', maxBytes, `${span.path} holds ${size} bytes for one chunk, more than any encoding of it can take; the object is damaged or hostile`, { actual: size });
    }
    if (fileBuffer.length < size) fileBuffer = new Uint8Array(size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, fileBuffer, done, size - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    if (span.length !== undefined && done < span.length) {
      throw floeError('CORRUPT_OBJECT', `${span.path} ends ${span.length - done} bytes before the chunk it holds (bytes ${offset}-${offset + span.length - 1})`);
    }
    return fileBuffer.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

// The chain's codecs may load on first use (registry.ts): handling waits for them, then runs to
// completion synchronously, so two requests never share the scratch buffers at once.
parentPort!.on('message', (req: DecodeRequest) => {
  loadCodecsMentionedIn(req.codecs).then(
    () => handle(req),
    (err: unknown) => parentPort!.postMessage({ id: req.id, ok: false, code: 'CORRUPT_OBJECT', message: err instanceof Error ? err.message : String(err), details: {} } satisfies DecodeResponse),
  );
});

function handle(req: DecodeRequest): void {
  let reply: DecodeResponse;
  const transfer: ArrayBuffer[] = [];
  try {
    const chain = chainFor(req);
    const bytes = req.file === undefined ? req.bytes! : readLocalFile(req.file, chain.encodedSizeBound());
    if (bytes === undefined) {
      parentPort!.postMessage({ id: req.id, ok: true, missing: true } satisfies DecodeResponse);
      return;
    }
    if (req.target) {
      // Shared output: decode into reused scratch, copy the selection out, reply empty.
      chain.decodeRegion(bytes, req.target.projections, req.target.view, scratch);
      parentPort!.postMessage({ id: req.id, ok: true } satisfies DecodeResponse);
      return;
    }
    const out = chain.decode(bytes);
    reply = { id: req.id, ok: true, data: out.data, shape: out.shape, stride: out.stride };
    if (!Array.isArray(out.data)) {
      // Transfer only a buffer the result owns whole: Buffer.allocUnsafe may hand out slices of
      // a shared pool, and a codec may keep internal buffers; those are copied instead.
      const d = out.data;
      const data = ownsWholeBuffer(d) && d.buffer !== bytes.buffer && d.buffer !== fileBuffer.buffer ? d : copyTypedArray(d);
      reply = { id: req.id, ok: true, data, shape: out.shape, stride: out.stride };
      transfer.push(data.buffer as ArrayBuffer);
    }
  } catch (err) {
    // Details are plain data (structured-clone safe), so a worker's error keeps them.
    const { code, details } = isFloeError(err) ? err : { code: 'CORRUPT_OBJECT' as const, details: {} };
    reply = { id: req.id, ok: false, code, message: err instanceof Error ? err.message : String(err), details };
  }
  parentPort!.postMessage(reply, transfer);
}
