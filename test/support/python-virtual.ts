// The virtual-dataset peer (test/support/virtual-peer.py): Debian's python3-netcdf4 (netCDF-C
// 4.9) and python3-h5py write the files and print what they read back. Installed by
// scripts/install-python-peers.sh; without them the suites fail saying why (never skipped).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { PYTHON } from './python-zarr.ts';

const PEER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'virtual-peer.py');
/** The HDF5 / NetCDF-4 peer (h5py with every libver and filter plugin, netCDF4). */
export const HDF5_PEER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'hdf5-peer.py');

/** Runs the peer (or another peer script); its stdout as JSON. */
export function runVirtualPeer<T>(args: readonly string[], script = PEER): T {
  const out = execFileSync(PYTHON, [script, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out) as T;
}

/** A suite that needs netCDF4 and h5py under /usr/bin/python3: one failing test saying why when they are missing. */
export function describeWithVirtualPeer(name: string, body: (versions: Record<string, string>) => void): void {
  let versions: Record<string, string> | undefined;
  let why = '';
  try {
    versions = runVirtualPeer<Record<string, string>>(['versions']);
  } catch (err) {
    why = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message;
  }
  if (!versions) {
    describe(name, () => {
      it('needs python3-netcdf4 and python3-h5py under /usr/bin/python3', () => {
        throw new Error(`virtual-dataset peer tests cannot run: ${why}; install them with scripts/install-python-peers.sh`);
      });
    });
    return;
  }
  const v = versions;
  describe(`${name} (netCDF4 ${v.netCDF4}, netCDF-C ${v['netcdf-c']}, h5py ${v.h5py})`, () => body(v));
}

/** Little-endian bytes of a typed array as hex (the peer's form). */
export function hexOf(data: ArrayBufferView): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('hex');
}
