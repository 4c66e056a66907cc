// `floe serve`: serves the repository over HTTP until interrupted (Ctrl-C). Loopback only unless
// --host says otherwise; a token (--token or FLOE_SERVE_TOKEN) and TLS (--tls-cert/--tls-key)
// protect a server others can reach. Every server limit is a flag (SERVER_LIMITS, kebab-cased).
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { SERVER_LIMITS, type ServerLimitName, type ServerLimitOptions } from '../../query/http-limits.ts';
import { UsageError, type CommandContext, type CommandSpec, type OptionSpecs } from '../command.ts';
import { openRepository } from '../repository-location.ts';
import { createRepositoryServer } from '../serve/repository-server.ts';

const LIMIT_NAMES = Object.keys(SERVER_LIMITS) as ServerLimitName[];

/** maxResultBytes -> max-result-bytes */
export const limitFlag = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const LIMIT_OPTIONS: OptionSpecs = Object.fromEntries(LIMIT_NAMES.map((n) => [limitFlag(n), { type: 'string' }]));

export const serveCommand: CommandSpec = {
  usage: '[--port 8080] [--host 127.0.0.1] [--token T] [--tls-cert F --tls-key F] [--raw] [--<limit> N ...]',
  details: [
    'GET /<ref>/<key>          a Zarr key of a branch, tag or snapshot (Range, ETag, CORS); GET / lists the refs',
    'POST /<ref>/query         a JSON query; GET /<ref>/explain?q=<JSON> its plan',
    '  answers CF-decoded values (docs/cf.md): ?decode=none gives stored values, ?stored=1 both',
    'GET /ui/                  the viewer page (branches, history, tree, plots); with a token, open the printed link',
    '--raw: queries answer stored values unless a request asks ?decode=cf.',
    'Read it with zarrita: zarr.open(zarr.root(new FetchStore("http://127.0.0.1:8080/main")))',
    '--port 0 picks a free port. Stops on Ctrl-C.',
    '--host binds another address than 127.0.0.1 (e.g. 0.0.0.0): then use --token and TLS.',
    '--token T (or env FLOE_SERVE_TOKEN): requests need "Authorization: Bearer T" (401 otherwise).',
    '--tls-cert F --tls-key F: serve HTTPS with this PEM certificate and key.',
    'Limits (defaults in docs/serving.md):',
    ...LIMIT_NAMES.map((n) => `  --${limitFlag(n)} N  ${SERVER_LIMITS[n].doc} (default ${SERVER_LIMITS[n].default})`),
  ].join('\n'),
  examples: ['floe serve --port 8080', "curl -r 0-99 http://127.0.0.1:8080/v1.0/climate/temperature/zarr.json", 'FLOE_SERVE_TOKEN=s3cret floe serve --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem'],
  options: { port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, 'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' }, raw: { type: 'boolean' }, ...LIMIT_OPTIONS },
  async run(ctx) {
    ctx.atMost(0);
    const host = ctx.string('host') ?? '127.0.0.1';
    const token = ctx.string('token') ?? ctx.io.env.FLOE_SERVE_TOKEN;
    const tls = tlsFiles(ctx);
    const repo = await openRepository(ctx, ctx.repoPath, {}); // the signal ends serving, after it started
    const server = createRepositoryServer(repo, {
      ...limitOptions(ctx), token, tls, decode: ctx.flags.raw ? 'none' : 'cf',
      onError: (err) => ctx.note(`floe serve: ${err instanceof Error ? err.message : String(err)}`),
    });
    const url = await server.listen(ctx.number('port') ?? 8080, host);
    warnIfExposed(ctx, host, token !== undefined, tls !== undefined);
    ctx.print(`serving ${ctx.repoPath} at ${url}  (GET ${url}/main/zarr.json; Ctrl-C stops)`);
    // The token rides in the fragment, which browsers never send: it stays out of server and proxy logs.
    ctx.print(`viewer: ${url}/ui/${token === undefined ? '' : `#token=${encodeURIComponent(token)}`}`);
    const signal = ctx.io.signal;
    await new Promise<void>((resolve) => {
      if (!signal) return; // no way to be stopped but killing the process
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    ctx.note('floe serve: stopped');
  },
};

function limitOptions(ctx: CommandContext): ServerLimitOptions {
  const out: Partial<Record<ServerLimitName, number>> = {};
  for (const name of LIMIT_NAMES) {
    const value = ctx.number(limitFlag(name));
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) throw new UsageError(`--${limitFlag(name)} takes a whole number, got ${value}`);
    out[name] = value;
  }
  return out;
}

function tlsFiles(ctx: CommandContext): { cert: Buffer; key: Buffer } | undefined {
  const [cert, key] = [ctx.string('tls-cert'), ctx.string('tls-key')];
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) throw new UsageError('--tls-cert and --tls-key go together');
  return { cert: readPem(ctx, 'tls-cert', cert), key: readPem(ctx, 'tls-key', key) };
}

function readPem(ctx: CommandContext, flag: string, file: string): Buffer {
  try {
    return readFileSync(ctx.resolvePath(file));
  } catch (err) {
    throw new UsageError(`--${flag}: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** 127.0.0.0/8, ::1 and localhost reach only this machine. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

function warnIfExposed(ctx: CommandContext, host: string, hasToken: boolean, hasTls: boolean): void {
  if (isLoopback(host)) return;
  if (!hasToken) {
    ctx.note(
      `floe serve: WARNING: listening on ${host} WITHOUT A TOKEN: anyone who can reach this address can read every branch, tag and snapshot of ${ctx.repoPath}. ` +
        'Pass --token (or set FLOE_SERVE_TOKEN), with --tls-cert/--tls-key, or bind 127.0.0.1.',
    );
  } else if (!hasTls) {
    ctx.note(`floe serve: WARNING: listening on ${host} without TLS: the token and the data travel in clear text. Pass --tls-cert and --tls-key.`);
  }
}
