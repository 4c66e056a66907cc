// Floe as an adopter gets it: `npm pack`, then install the tarball into fresh projects from the
// local npm cache and use it there. One project installs it whole (with fast-check, and
// TypeScript to compile a strict consumer); one installs with --omit=optional, as on a machine
// without a compiler: no zstd-napi, no native binaries from optional platform packages.
// Everything runs on the Node that runs this test (the CI matrix runs it on each supported line):
// npm and the native builds use that Node and its headers, the strict consumer compiles against
// that line's @types/node, and the whole install gets the better-sqlite3 major of that line.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.join(root, 'test/package/consumer');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const DEV_TOOLS = ['tsx', 'esbuild', 'typescript', 'vitest'];
const INSTALL_MS = 600_000;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** Both ends of the better-sqlite3 peer range: 13 needs Node >= 22, so Node 20 gets 12. */
const SQLITE_MAJOR = NODE_MAJOR >= 22 ? 13 : 12;

interface PackedFile { path: string; size: number }
interface Packed { filename: string; size: number; unpackedSize: number; files: PackedFile[] }

let work: string;
let packed: Packed;
let full: string;
let lean: string;

/** Runs a command in `cwd`; resolves to stdout, rejects with stdout+stderr in the message. */
async function run(cwd: string, file: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await exec(file, args, { cwd, env: { ...process.env, ...thisNode(), ...env }, maxBuffer: 64 << 20, timeout: INSTALL_MS });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/**
 * The environment that makes `npm`, `npx` and their install scripts run on this test's Node, and
 * node-gyp compile against its headers (Node's own builds and distro packages carry them under
 * <prefix>/include/node); otherwise a machine's npmrc `nodedir` or another `node` on PATH would
 * build native modules for a different ABI.
 */
function thisNode(): Record<string, string> {
  const bin = path.dirname(process.execPath);
  const prefix = path.dirname(bin);
  const env: Record<string, string> = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  if (existsSync(path.join(prefix, 'include/node/node.h'))) env.npm_config_nodedir = prefix;
  return env;
}

const npm = (cwd: string, ...args: string[]) => run(cwd, 'npm', args, { npm_config_build_from_source: 'true', npm_config_update_notifier: 'false' });
const node = (cwd: string, ...args: string[]) => run(cwd, process.execPath, args);

/** A new project that depends on `dependencies`, with the consumer scripts copied in. */
function project(name: string, dependencies: Record<string, string>, devDependencies: Record<string, string> = {}): string {
  const dir = path.join(work, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module', dependencies, devDependencies }, null, 2));
  for (const file of readdirSync(fixtures)) copyFileSync(path.join(fixtures, file), path.join(dir, file));
  return dir;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'floe-package-'));
  // dist/ is fresh (npm test builds; test/setup/build.ts rebuilds a stale one), so pack as it is:
  // running prepack here would rebuild dist/ under the other test files that spawn bin/floe.mjs.
  const [info] = JSON.parse(await npm(root, 'pack', '--json', '--ignore-scripts', '--pack-destination', work)) as Packed[];
  packed = info!;
  const tarball = `file:${path.join(work, packed.filename)}`;
  full = project('full-consumer', { floe: tarball, 'fast-check': manifest.devDependencies['fast-check']!, 'better-sqlite3': `^${SQLITE_MAJOR}.0.0` }, {
    typescript: manifest.devDependencies.typescript!,
    '@types/node': `^${NODE_MAJOR}`,
  });
  lean = project('lean-consumer', { floe: tarball });
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund'];
  await Promise.all([npm(full, ...install), npm(lean, ...install, '--omit=optional')]);
}, INSTALL_MS * 2);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('ships built JS, declarations, the CLI and docs, and no sources, tests or benches', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of ['dist/index.js', 'dist/index.d.ts', 'dist/testing/index.js', 'dist/testing/index.d.ts', 'dist/distributed/index.js', 'dist/distributed/index.d.ts', 'dist/browser.d.ts', 'dist/browser/floe.js', 'dist/cli/process-main.js', 'bin/floe.mjs', 'README.md', 'LICENSE', 'CHANGELOG.md', 'docs/ARCHITECTURE.md', 'package.json', 'dist/viewer/index.html', 'dist/viewer/viewer.js', 'dist/viewer/viewer.css']) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((p) => /^(src|test|bench|scripts|\.ci)\//.test(p) || p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
    expect(manifest.scripts.prepack).toBe('npm run build');
    console.log(`[package] ${packed.filename}: ${packed.files.length} files, ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked`);
  });
});

describe('a full install', () => {
  it('round-trips a repository from plain Node ESM, importing floe and floe/testing', async () => {
    const out = JSON.parse(await node(full, 'round-trip.mjs', path.join(work, 'full-repo'))) as Record<string, unknown>;
    expect(out).toEqual({ equal: true, snapshots: 2, codec: 'zstd', testingArbitrary: true, browserEqual: true });
  });

  it("runs the README's quick start as written, as plain JavaScript", async () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const quickStart = /## Quick start\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(quickStart).toBeDefined();
    writeFileSync(path.join(full, 'quick-start.mjs'), quickStart!);
    const out = await node(full, 'quick-start.mjs');
    expect(out).toContain('[ 2, 3 ]');
    expect(out).toMatch(/Float64Array\(6\) \[ 1\.5, 1\.5, 1\.5, 1\.5, 1\.5, 1\.5 \]/);
  });

  it('compiles a strict TypeScript consumer (nodenext, skipLibCheck off) with 0 errors', async () => {
    const tsc = path.join(full, 'node_modules/typescript/bin/tsc');
    expect(await node(full, tsc, '-p', 'tsconfig.json')).toBe('');
  });

  it('runs `npx floe --version` and `floe demo` from the consumer', async () => {
    expect((await run(full, 'npx', ['--no-install', 'floe', '--version'])).trim()).toBe(`floe ${manifest.version}`);
    expect(await run(full, 'npx', ['--no-install', 'floe', '--version', '--verbose'])).toMatch(/^zstd: zstd-napi .*\(the first of zstd-napi, node:zlib, @bokuweb\/zstd-wasm that loads\)/m);
    const demo = await run(full, 'npx', ['--no-install', 'floe', 'demo', '--small', '--repo', path.join(work, 'demo.icechunk')]);
    expect(demo).toMatch(/done: .* on disk/);
  });

  it(`stores a repository in SQLite through better-sqlite3 ${SQLITE_MAJOR}, built for Node ${NODE_MAJOR}`, async () => {
    const out = JSON.parse(await node(full, 'sqlite-round-trip.mjs', path.join(work, 'full-repo.db'))) as Record<string, unknown>;
    expect(out).toEqual({ equal: true, snapshots: 3, betterSqlite3Major: SQLITE_MAJOR });
    // npm only warns when an optional peer's range excludes the installed version; `ls` fails.
    await npm(full, 'ls', 'better-sqlite3');
    expect(await run(full, 'npx', ['--no-install', 'floe', '--version', '--verbose'])).toMatch(new RegExp(`^  better-sqlite3 +ok \\(${SQLITE_MAJOR}\\.`, 'm'));
  });

  it('type-checks against the @types/node of the Node line it runs on', () => {
    const installed = JSON.parse(readFileSync(path.join(full, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string };
    expect(Number(installed.version.split('.')[0])).toBe(NODE_MAJOR);
  });

  it("keeps floe's runtime tree free of build and test tools", async () => {
    const tree = JSON.parse(await npm(full, 'ls', '--omit=dev', '--all', '--json')) as LsNode;
    const floe = tree.dependencies?.floe;
    expect(floe).toBeDefined();
    const names = packageNames(floe!);
    expect(names.filter((n) => DEV_TOOLS.includes(n))).toEqual([]);
    expect(names).toContain('zstd-napi'); // the optional fast path is there when it builds
    console.log(`[package] floe's installed runtime tree: ${names.length} packages (${names.join(', ')})`);
  });
});

describe('an install with --omit=optional', () => {
  it('has no zstd-napi and still round-trips zstd-compressed chunks', async () => {
    const out = JSON.parse(await node(lean, 'round-trip.mjs', path.join(work, 'lean-repo'))) as Record<string, unknown>;
    expect(out).toEqual({ equal: true, snapshots: 2, codec: 'zstd', testingArbitrary: false, browserEqual: true });
    const tree = JSON.parse(await npm(lean, 'ls', '--all', '--json')) as LsNode;
    const names = packageNames(tree);
    expect(names).not.toContain('zstd-napi');
    console.log(`[package] --omit=optional install: ${names.length} packages (${names.join(', ')})`);
    const verbose = await run(lean, 'npx', ['--no-install', 'floe', '--version', '--verbose']);
    // Without zstd-napi: Node's own zstd where this Node has one (22.15+), else the WASM build.
    expect(verbose).toMatch(/^zstd: (node:zlib|zstd-wasm) .*\(zstd-napi: Cannot find module.*; using (node:zlib|@bokuweb\/zstd-wasm)\)/m);
    expect(verbose).toMatch(/^crc32c: plain JS/m);
    expect(verbose).toMatch(/better-sqlite3 +not installed/);
  });

  it('names the package to install when an optional one is missing', async () => {
    const out = JSON.parse(await node(lean, 'lean-checks.mjs')) as Record<string, { code: string; message: string }>;
    expect(out.testing).toMatchObject({ code: 'MISSING_DEPENDENCY' });
    expect(out.testing!.message).toContain('npm install fast-check');
    expect(out.sqlite).toMatchObject({ code: 'MISSING_DEPENDENCY' });
    expect(out.sqlite!.message).toContain('npm install better-sqlite3');
    expect(out.s3).toMatchObject({ code: 'MISSING_DEPENDENCY' });
    expect(out.s3!.message).toContain('npm install @aws-sdk/client-s3');
    expect(out.distributed).toMatchObject({ code: 'MISSING_DEPENDENCY' });
    expect(out.distributed!.message).toContain('npm install ioredis');
  });
});

interface LsNode { version?: string; dependencies?: Record<string, LsNode> }

/** Installed packages under `node`; npm ls also lists absent optional ones, without a version. */
function packageNames(node: LsNode): string[] {
  const names = new Set<string>();
  const visit = (n: LsNode) => {
    for (const [name, child] of Object.entries(n.dependencies ?? {})) {
      if (child.version === undefined) continue;
      names.add(name);
      visit(child);
    }
  };
  visit(node);
  return [...names].sort();
}
