// docs/web.md replayed as written against Debian's nginx on loopback: its `replayed` blocks are
// the demo repository, the copy (objects first, `repo` last), the nginx server block (run with
// only its port and root changed), the Node example (through tsx, 'floe' pointing at this
// checkout), the CLI example (a `floe` on PATH running bin/floe.mjs) and `floe serve`'s raw route
// with a token. Shell blocks run in bash with `localhost:8080`, `localhost:8081` and `/srv/floe`
// replaced by the loopback ports and a temp dir.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startNginx, type StaticHost } from '../support/loopback-static-hosts.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(ROOT, 'docs/web.md'), 'utf8');
const blocks = new Map([...doc.matchAll(/<!-- replayed: (\w+) -->\n```(\w+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, { lang: m[2]!, code: m[3]! }]));

function block(name: string): string {
  const found = blocks.get(name);
  if (!found) throw new Error(`docs/web.md has no block marked <!-- replayed: ${name} -->`);
  return found.code;
}

const work = mkdtempSync(path.join(tmpdir(), 'floe-web-doc-'));
const srv = path.join(work, 'srv');
const bin = path.join(work, 'bin');
let nginx: StaticHost | undefined;
let serve: ChildProcess | undefined;
let servePort = 0;

/** The doc's placeholders made real. */
const substitute = (code: string) => code
  .replaceAll('/srv/floe', srv)
  .replaceAll('localhost:8080', `127.0.0.1:${nginx?.port ?? 0}`)
  .replaceAll('localhost:8081', `127.0.0.1:${servePort}`)
  .replaceAll('--port 8081', `--port ${servePort}`);

function sh(code: string): string {
  return execFileSync('/bin/bash', ['-euo', 'pipefail', '-c', substitute(code)], {
    cwd: work, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: `${bin}:${process.env['PATH']}`, FORCE_COLOR: '0' },
  });
}

beforeAll(async () => {
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'floe'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, 'bin/floe.mjs'))} "$@"\n`);
  chmodSync(path.join(bin, 'floe'), 0o755);
  sh(block('demo'));
  sh(block('copy'));
  // The doc's server block, listening on loopback only, at a free port, with the temp root.
  nginx = await startNginx(srv, (root, port) => block('nginx').replace(/listen 8080;/, `listen 127.0.0.1:${port};`).replace('root /srv/floe;', `root ${root};`));
}, 120_000);

afterAll(async () => {
  if (serve?.pid !== undefined && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    process.kill(serve.pid, 'SIGTERM');
    await exited;
  }
  await nginx?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('docs/web.md, replayed against nginx', () => {
  it('has the blocks the test replays, and the nginx one is a complete server block', () => {
    expect([...blocks.keys()].sort()).toEqual(['cli', 'copy', 'demo', 'nginx', 'node', 'serve']);
    expect(block('nginx')).toMatch(/^server \{[\s\S]*\}\s*$/);
  });

  it('copied every object and the repo file', () => {
    const published = path.join(srv, 'demo.icechunk');
    expect(existsSync(path.join(published, 'repo'))).toBe(true);
    expect(readFileSync(path.join(published, 'repo'))).toEqual(readFileSync(path.join(work, 'floe-demo.icechunk', 'repo')));
    const files = (dir: string) => execFileSync('find', ['.', '-type', 'f'], { cwd: dir, encoding: 'utf8' }).split('\n').sort();
    expect(files(published)).toEqual(files(path.join(work, 'floe-demo.icechunk')));
  });

  it('serves with the headers the doc promises', async () => {
    const base = `${nginx!.url}/demo.icechunk`;
    const info = await fetch(`${base}/repo`, { headers: { Origin: 'http://page.example' } });
    expect(info.headers.get('cache-control')).toBe('no-cache');
    expect(info.headers.get('access-control-allow-origin')).toBe('*');
    const etag = info.headers.get('etag')!;
    expect((await fetch(`${base}/repo`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const preflight = await fetch(`${base}/repo`, { method: 'OPTIONS', headers: { Origin: 'http://page.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'range' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Range/);
    const suffix = await fetch(`${base}/repo`, { headers: { Range: 'bytes=-8' } });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('cache-control')).toBe('no-cache');
    expect(suffix.headers.get('access-control-expose-headers')).toMatch(/Content-Range/);
  });

  it('runs the Node example as written', () => {
    const file = path.join(work, 'example.mts');
    const entry = path.join(ROOT, 'src', 'index.ts');
    writeFileSync(file, substitute(block('node')).replaceAll("from 'floe'", `from ${JSON.stringify(entry)}`) + '\nprocess.exit(0);\n');
    const out = execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [file], { cwd: work, encoding: 'utf8', timeout: 60_000 });
    expect(out).toContain("[ 'main', 'qc' ] [ 'v1.0' ]");
    expect(out).toContain('[ 3, 4 ]');
    expect(out).toMatch(/Float32Array\(12\) \[\s+2\d\d\.\d+/);
  }, 60_000);

  it('runs the CLI example as written', () => {
    const out = sh(block('cli'));
    expect(out).toMatch(/\(main, tag: v1\.0\)/);
    expect(out).toMatch(/^[0-9A-Z]{20}/m);
    expect(out).toMatch(/\[\[2\d\d\.\d+/); // the box, NumPy layout
  }, 60_000);

  it('reads floe serve\'s raw route with a token, as the doc shows', async () => {
    const [start, ...rest] = block('serve').trim().split('\n');
    expect(start).toMatch(/ &$/);
    servePort = await freePort();
    const command = substitute(start!.replace(/ &$/, '').replace(/^((?:\w+=\S+ )*)/, '$1exec '));
    serve = spawn('/bin/bash', ['-c', command], { cwd: work, stdio: 'ignore', env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` } });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const ok = await fetch(`http://127.0.0.1:${servePort}/.icechunk/repo`, { method: 'HEAD' }).then((r) => r.status, () => 0);
      if (ok === 401) break; // listening, and wants the token
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const out = sh(rest.join('\n'));
    expect(out).toMatch(/\(main, tag: v1\.0\)/);
    expect(out.trim().split('\n').filter((l) => /^[0-9A-Z]{20}/.test(l))).toHaveLength(1);
  }, 60_000);
});
