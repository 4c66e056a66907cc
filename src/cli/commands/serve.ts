// `floe serve`: serves the repository over HTTP until interrupted (Ctrl-C).
import type { CommandSpec } from '../command.ts';
import { openRepository } from '../repository-location.ts';
import { createRepositoryServer } from '../serve/repository-server.ts';

export const serveCommand: CommandSpec = {
  usage: '[--port 8080] [--host 127.0.0.1]',
  details: [
    'GET /<ref>/<key>          a Zarr key of a branch, tag or snapshot (Range, ETag, CORS); GET / lists the refs',
    'POST /<ref>/query         a JSON query; GET /<ref>/explain?q=<JSON> its plan',
    'Read it with zarrita: zarr.open(zarr.root(new FetchStore("http://127.0.0.1:8080/main")))',
    '--port 0 picks a free port. Stops on Ctrl-C.',
  ].join('\n'),
  examples: ['floe serve --port 8080', "curl -r 0-99 http://127.0.0.1:8080/v1.0/climate/temperature/zarr.json"],
  options: { port: { type: 'string' }, host: { type: 'string' } },
  async run(ctx) {
    ctx.atMost(0);
    const repo = await openRepository(ctx);
    const server = createRepositoryServer(repo, { onError: (err) => ctx.note(`floe serve: ${err instanceof Error ? err.message : String(err)}`) });
    const url = await server.listen(ctx.number('port') ?? 8080, ctx.string('host') ?? '127.0.0.1');
    ctx.print(`serving ${ctx.repoPath} at ${url}  (GET ${url}/main/zarr.json; Ctrl-C stops)`);
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
