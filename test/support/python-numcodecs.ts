// numcodecs 0.11 (Debian's python3-numcodecs) as a test peer, run through /usr/bin/python3 and
// test/support/numcodecs-peer.py: it makes each case's input, encodes and decodes it, and decodes
// streams Floe wrote. Without it the suite is one failing test saying why, never a skip.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import type { JsonValue } from '../../src/format/json.ts';
import { PYTHON, type Canonical } from './python-zarr.ts';

const PEER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'numcodecs-peer.py');
const PEER_SECONDS = Number(process.env.FLOE_PYTHON_PEER_SECONDS ?? 120);

/** One codec on one input (see numcodecs-peer.py). */
export interface CodecCase {
  readonly name: string;
  readonly config: { readonly id: string; readonly [key: string]: JsonValue };
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly data: 'ramp' | 'walk' | 'noise' | 'floats' | 'special' | 'bytes' | 'text';
}

export interface PeerResult {
  readonly input: Canonical;
  /** numcodecs' encoding of the input, hex. */
  readonly encoded: string;
  /** numcodecs' decoding of its own encoding. */
  readonly decoded: Canonical;
}

export function runNumcodecs(args: readonly string[]): string {
  return execFileSync(PYTHON, [PEER, ...args], { encoding: 'utf8', timeout: PEER_SECONDS * 1000, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Writes `value` as JSON to `name` in `dir`; its path. */
export function jsonFile(dir: string, name: string, value: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/** A suite that needs numcodecs; without it, one failing test saying why (never a skip). */
export function describeWithNumcodecs(name: string, body: (versions: Record<string, string>) => void): void {
  let versions: Record<string, string> | undefined;
  let why = '';
  try {
    versions = JSON.parse(runNumcodecs(['versions'])) as Record<string, string>;
  } catch (err) {
    why = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message;
  }
  if (!versions) {
    const required = process.env.FLOE_REQUIRE_PYTHON_PEERS === '1' ? ' (FLOE_REQUIRE_PYTHON_PEERS=1)' : '';
    describe(name, () => {
      it('needs numcodecs under /usr/bin/python3', () => {
        throw new Error(`numcodecs peer tests cannot run${required}: ${PYTHON} cannot import numcodecs (${why}); install it with scripts/install-python-peers.sh`);
      });
    });
    return;
  }
  const found = versions;
  describe(`${name} (numcodecs ${found.numcodecs}, numpy ${found.numpy})`, () => body(found));
}
