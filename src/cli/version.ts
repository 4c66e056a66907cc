// `floe --version [--verbose]`. The plain form reads only package.json, so it starts as fast as
// Node does; --verbose also loads each optional package to say whether, and which, is usable.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const requireHere = createRequire(import.meta.url);

/** Floe's version from its package.json (two levels up from both src/cli and dist/cli). */
export function floeVersion(): string {
  return (requireHere('../../package.json') as { version: string }).version;
}

export async function versionText(verbose: boolean): Promise<string> {
  const version = `floe ${floeVersion()}`;
  if (!verbose) return version;
  const { zstdImplementation } = await import('../format/codecs/zstd-backend.ts');
  const { crc32cImplementation } = await import('../format/codecs/crc32c.ts');
  const { lz4Implementation } = await import('../format/codecs/lz4-backend.ts');
  const zstd = zstdImplementation();
  const lz4 = lz4Implementation();
  const lines = [
    version,
    `node ${process.version} (${process.platform}-${process.arch})`,
    `zstd: ${zstd.name}${zstd.version ? ' ' + zstd.version : ''} (${zstd.reason})`,
    ...(zstd.dictionaries ? [`zstd dictionaries: ${zstd.dictionaries}`] : []),
    `lz4: ${lz4.name} (${lz4.reason})`,
    `crc32c: ${crc32cImplementation === 'native' ? '@node-rs/crc32 (native)' : 'plain JS (@node-rs/crc32 has no binary here)'}`,
    'optional packages:',
  ];
  for (const probe of PROBES) lines.push(`  ${probe.name.padEnd(22)} ${await describe(probe)}`);
  return lines.join('\n');
}

interface Probe {
  readonly name: string;
  /** What a user gets from it. */
  readonly role: string;
  /** Loads the package and exercises what could fail after install (a native binding). */
  check(): Promise<void> | void;
}

const PROBES: readonly Probe[] = [
  {
    name: 'better-sqlite3',
    role: 'SQLite storage',
    check: () => {
      const Database = requireHere('better-sqlite3') as new (file: string) => { close(): void };
      new Database(':memory:').close();
    },
  },
  { name: '@aws-sdk/client-s3', role: 'S3 storage', check: async () => void (await import('@aws-sdk/client-s3')) },
  { name: 'fast-check', role: 'floe/testing', check: async () => void (await import('fast-check')) },
  { name: 'zarrita', role: 'floe conformance --against zarrita', check: async () => void (await import('zarrita')) },
  { name: '@earthmover/icechunk', role: 'floe conformance --against icechunk', check: () => void requireHere.resolve('@earthmover/icechunk') },
];

async function describe(probe: Probe): Promise<string> {
  try {
    await probe.check();
    return `ok (${packageVersion(probe.name)}): ${probe.role}`;
  } catch (err) {
    const reason = (err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' || (err as { code?: unknown }).code === 'MODULE_NOT_FOUND' ? 'not installed' : 'does not load';
    return `${reason}: ${probe.role} unavailable (npm install ${probe.name})`;
  }
}

/** Read from node_modules/<name>/package.json in Floe's directory or above (not every package exports it). */
function packageVersion(name: string): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      if (path.dirname(dir) === dir) return 'version unknown';
    }
  }
}
