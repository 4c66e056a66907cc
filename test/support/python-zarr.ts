// zarr-python 2.13 (Debian's python3-zarr, with numcodecs 0.11) as a test peer, run through
// /usr/bin/python3 and test/support/zarr2-peer.py. scripts/install-python-peers.sh installs it (CI
// runs it from .ci/run). Without it the peer tests fail with the reason: they are never skipped.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import type { JsonValue } from '../../src/format/json.ts';
import type { NdArray } from '../../src/format/zarr/ndarray.ts';
import type { TypedArray } from '../../src/format/zarr/data-types.ts';

/** The interpreter Debian's python3-zarr installs for (not a pyenv `python3` earlier on PATH). */
export const PYTHON = process.env.FLOE_PYTHON ?? '/usr/bin/python3';
const PEER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'zarr2-peer.py');
/** Seconds one peer run may take (importing zarr alone takes ~0.5 s). */
const PEER_SECONDS = Number(process.env.FLOE_PYTHON_PEER_SECONDS ?? 120);

/** A Zarr v2 array case both sides write and read (see zarr2-peer.py). */
export interface PeerCase {
  readonly name: string;
  readonly dtype: string | readonly (readonly [string, string] | readonly [string, string, readonly number[]])[];
  readonly shape: readonly number[];
  readonly chunks: readonly number[];
  readonly order: 'C' | 'F';
  readonly separator: '.' | '/';
  readonly compressor: { readonly id: string; readonly [key: string]: JsonValue } | null;
  readonly filters: readonly { readonly id: string; readonly [key: string]: JsonValue }[] | null;
  /** The fill value as `.zarray` holds it ("NaT" for datetimes too). */
  readonly fill: JsonValue;
  /** Leave the last chunk row unwritten, so it reads as the fill value. */
  readonly partial: boolean;
}

/** Element values in the one form both sides print. */
export type Canonical = { hex: string } | { strings: string[] } | { binary: string[] };

/** Runs the peer; its stdout. Throws with stderr when it fails. */
export function runPeer(args: readonly string[]): string {
  return execFileSync(PYTHON, [PEER, ...args], { encoding: 'utf8', timeout: PEER_SECONDS * 1000, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Writes `cases` to a JSON file in `dir` for the peer; its path. */
export function casesFile(dir: string, cases: readonly PeerCase[]): string {
  const file = path.join(dir, 'cases.json');
  writeFileSync(file, JSON.stringify(cases));
  return file;
}

/** Versions of zarr, numcodecs and numpy, or why the peer cannot run. */
export function peerVersions(): { versions: Record<string, string> } | { unavailable: string } {
  try {
    return { versions: JSON.parse(runPeer(['versions'])) as Record<string, string> };
  } catch (err) {
    const why = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message;
    return { unavailable: `${PYTHON} cannot run zarr 2 (${why}); install it with scripts/install-python-peers.sh (apt-get install python3-zarr python3-numcodecs)` };
  }
}

/**
 * A suite that needs the peer. Without it the suite is one failing test saying why: in CI
 * (FLOE_REQUIRE_PYTHON_PEERS=1) and locally alike, a missing peer is a failure, not a skip.
 */
export function describeWithPythonZarr(name: string, body: (versions: Record<string, string>) => void): void {
  const peer = peerVersions();
  if ('unavailable' in peer) {
    const required = process.env.FLOE_REQUIRE_PYTHON_PEERS === '1' ? ' (FLOE_REQUIRE_PYTHON_PEERS=1)' : '';
    describe(name, () => {
      it('needs zarr-python 2 under /usr/bin/python3', () => {
        throw new Error(`zarr-python 2 peer tests cannot run${required}: ${peer.unavailable}`);
      });
    });
    return;
  }
  describe(`${name} (zarr ${peer.versions.zarr}, numcodecs ${peer.versions.numcodecs})`, () => body(peer.versions));
}

/** Floe's result in the peer's canonical form (memory is little-endian, C order). */
export function canonical(result: NdArray): Canonical {
  const data = result.data;
  if (Array.isArray(data)) {
    if (data.every((v) => typeof v === 'string')) return { strings: data as string[] };
    // Binary elements as they are; vlen-array's typed elements by their memory (little-endian) bytes.
    return { binary: (data as TypedArray[]).map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')) };
  }
  return { hex: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('hex') };
}
