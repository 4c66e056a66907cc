// Issue 33: `floe cat` of a bounds variable (no units of its own) takes its parent's units and
// calendar (CF 7.1). The parent is found by the `bounds` attributes in the siblings' metadata
// documents: only the sibling that names the array is opened, however many the group holds.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundsParent, openTargetArray } from '../../../src/cli/read-target.ts';
import { ZarrArray } from '../../../src/engine/array.ts';
import { Repository, Storage } from '../../../src/txn/index.ts';

const SIBLINGS = 50;

async function repository(): Promise<Repository> {
  const repo = await Repository.create(Storage.newInMemory());
  const session = await repo.writableSession('main');
  const time = { shape: [4], chunkShape: [4], dataType: 'float64' as const };
  await ZarrArray.create(session.store, '/g/time', { ...time, attributes: { units: 'days since 2001-01-01', calendar: 'noleap', bounds: 'time_bnds' } });
  await ZarrArray.create(session.store, '/g/time_bnds', { shape: [4, 2], chunkShape: [4, 2], dataType: 'float64' });
  await ZarrArray.create(session.store, '/g/lonely', { ...time });
  for (let i = 0; i < SIBLINGS; i++) await ZarrArray.create(session.store, `/g/v${i}`, { ...time, attributes: { bounds: `v${i}_bnds`, units: 'K' } });
  await session.commit('bounds');
  return repo;
}

afterEach(() => vi.restoreAllMocks());

describe('boundsParent', () => {
  it("opens only the sibling whose bounds attribute names the array, and none when no sibling does", async () => {
    const repo = await repository();
    const open = async (path: string) => openTargetArray(repo, { ref: 'main', path, selection: undefined });
    const bounds = await open('/g/time_bnds');
    const lonely = await open('/g/lonely');
    const opens = vi.spyOn(ZarrArray, 'open');
    const parent = await boundsParent(bounds);
    expect(parent?.path).toBe('/g/time');
    expect(parent?.attributes).toMatchObject({ units: 'days since 2001-01-01', calendar: 'noleap' });
    expect(opens).toHaveBeenCalledTimes(1);
    expect(await boundsParent(lonely)).toBeUndefined();
    expect(opens).toHaveBeenCalledTimes(1); // 52 siblings judged by their documents alone
  });
});
