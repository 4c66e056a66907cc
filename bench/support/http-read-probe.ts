// One reader of bench/http-read.ts in a fresh process: reads the box twice (cold, then warm: the
// same repository or store object, a new session, the array opened again), marking each phase at
// the proxy (`GET <proxy>/__phase/<name>`) so the proxy counts its requests and bytes. Prints one
// JSON line: each phase's wall and CPU ms, and whether the values match the demo's generator.
//   node --import tsx bench/support/http-read-probe.ts <reader> <proxy> <url> <grid> <box JSON>
// Readers: floe-session, reference-session, floe-plain, zarrita-plain, floe-query, and
// floe-query-c32 (the query with `concurrency: 32`, the HTTP storage's request limit, not its default 8).
import * as zarr from 'zarrita';
import { boxSize, DEMO_GRIDS, fillBox, type Box } from '../../src/cli/demo-dataset.ts';
import { openStore } from '../../src/engine/api.ts';
import { ZarrArray } from '../../src/engine/array.ts';
import { slice } from '../../src/engine/selection.ts';
import { ReadCaches, query } from '../../src/query/index.ts';
import { Repository } from '../../src/txn/index.ts';

const [reader, proxy, url, gridName, boxJson] = process.argv.slice(2) as [string, string, string, keyof typeof DEMO_GRIDS, string];
const grid = DEMO_GRIDS[gridName];
const { ranges: box, labels } = JSON.parse(boxJson) as { ranges: Box; labels: { lat: [number, number]; lon: [number, number] } };
const ARRAY = '/climate/temperature';
const expected = new Float32Array(boxSize(box));
fillBox(grid, box, expected);

const timings: Record<string, number> = {};
/** CPU time of this process (user + system) per phase: on a loaded machine wall time swings far more. */
const cpuMs: Record<string, number> = {};
const extra: Record<string, unknown> = {};
let correct = true;

async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  await fetch(`${proxy}/__phase/${name}`).then((r) => r.arrayBuffer());
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await work();
  timings[name] = performance.now() - started;
  const used = process.cpuUsage(cpu);
  cpuMs[name] = (used.user + used.system) / 1000;
  return value;
}

function check(values: ArrayLike<number>): void {
  if (values.length !== expected.length) correct = false;
  else for (let i = 0; i < values.length; i++) if (Math.fround(values[i]!) !== expected[i]) correct = false;
}

const floeSelection = () => [slice(box[0][0], box[0][1]), slice(box[1][0], box[1][1]), slice(box[2][0], box[2][1])];
const zarritaSelection = () => [zarr.slice(box[0][0], box[0][1]), zarr.slice(box[1][0], box[1][1]), zarr.slice(box[2][0], box[2][1])];

/** zarrita passes keys with a leading '/'; the reference's store wants them without. */
function referenceStore(store: { get(k: string): Promise<Uint8Array | undefined>; getRange(k: string, r: unknown): Promise<Uint8Array | undefined> }) {
  return {
    get: async (key: string) => (await store.get(key.replace(/^\//, ''))) ?? undefined,
    getRange: async (key: string, range: unknown) => (await store.getRange(key.replace(/^\//, ''), range)) ?? undefined,
  };
}

async function run(): Promise<void> {
  switch (reader) {
    case 'floe-session': {
      let repo: Repository | undefined;
      for (const when of ['cold', 'warm']) {
        let session: Awaited<ReturnType<Repository['readonlySession']>> | undefined;
        const array = await phase(`${when}-meta`, async () => {
          repo ??= await Repository.open(url);
          session = await repo.readonlySession({ tag: 'v1.0' });
          return ZarrArray.open(session.store, ARRAY);
        });
        // The session's own metadata round trip (its manifest), apart from the chunk phase, as the
        // issue asks: the chunk phase is then the same work as the plain store's.
        await phase(`${when}-manifest`, () => session!.locateChunk(ARRAY, [0, 0, 0]));
        check((await phase(`${when}-chunks`, () => array.get(floeSelection()))).data as Float32Array);
      }
      break;
    }
    case 'reference-session': {
      const { Repository: Reference } = await import('@earthmover/icechunk');
      const { createFetchStorage } = await import('@earthmover/icechunk/fetch-storage');
      let repo: Awaited<ReturnType<typeof Reference.open>> | undefined;
      for (const when of ['cold', 'warm']) {
        const array = await phase(`${when}-meta`, async () => {
          repo ??= await Reference.open(createFetchStorage(url));
          const session = await repo.readonlySession({ tag: 'v1.0' });
          return zarr.open(zarr.root(referenceStore(session.store as never)).resolve(ARRAY.slice(1)), { kind: 'array' });
        });
        check((await phase(`${when}-chunks`, () => zarr.get(array, zarritaSelection()))).data as Float32Array);
      }
      break;
    }
    case 'floe-plain': {
      const store = openStore(url);
      for (const when of ['cold', 'warm']) {
        const array = await phase(`${when}-meta`, () => ZarrArray.open(store, '/temperature'));
        check((await phase(`${when}-chunks`, () => array.get(floeSelection()))).data as Float32Array);
      }
      break;
    }
    case 'zarrita-plain': {
      const store = new zarr.FetchStore(url);
      for (const when of ['cold', 'warm']) {
        const array = await phase(`${when}-meta`, () => zarr.open(zarr.root(store).resolve('temperature'), { kind: 'array' }));
        check((await phase(`${when}-chunks`, () => zarr.get(array, zarritaSelection()))).data as Float32Array);
      }
      break;
    }
    case 'floe-query':
    case 'floe-query-c32': {
      const caches = new ReadCaches();
      let repo: Repository | undefined;
      for (const when of ['cold', 'warm']) {
        const result = await phase(`${when}-query`, async () => {
          repo ??= await Repository.open(url);
          const session = await repo.readonlySession({ tag: 'v1.0' });
          return query(session, { caches, ...(reader === 'floe-query-c32' ? { concurrency: 32 } : {}) }).from(ARRAY, 'float32')
            .where('time', 'between', [new Date(Date.UTC(2024, 0, 1) + box[0][0] * 86_400_000), new Date(Date.UTC(2024, 0, 1) + (box[0][1] - 1) * 86_400_000)])
            .where('lat', 'between', labels.lat)
            .where('lon', 'between', labels.lon)
            .execute();
        });
        check(result.data);
        if (result.shape.join() !== box.map(([a, b]) => b - a).join()) correct = false;
        extra[`${when}-fetched`] = Object.fromEntries(Object.entries(result.report.fetched).filter(([, c]) => c.requests > 0));
      }
      break;
    }
    default:
      throw new Error(`unknown reader ${reader}`);
  }
}

run().then(
  () => {
    process.stdout.write(JSON.stringify({ timings, cpuMs, correct, extra }) + '\n');
    process.exit(0);
  },
  (err) => {
    process.stdout.write(JSON.stringify({ error: String((err as Error)?.stack ?? err) }) + '\n');
    process.exit(1);
  },
);
