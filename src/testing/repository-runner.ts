// Runs a repository history against adapters with the model as the oracle. The model decides which
// ops apply (ops whose preconditions fail are skipped by everyone) and what each must observe; every
// adapter replays the same concrete actions, mapping the model's snapshot numbers to its own ids.
import { describeHistoryOp, type HistoryOp } from './arbitraries/repository-history.ts';
import type { RepositoryAdapter, RepositoryHandle } from './adapters/types.ts';
import { RepositoryModel, type Action, type ErrorClass, type ReadSource, type RepositoryModelOptions, type TreeListing } from './model/repository-model.ts';

/** Where an adapter disagreed with the model: the step, what was checked, and both values. */
export interface Mismatch {
  readonly adapter: string;
  /** Index of the history op, or -1 for the final reads of every branch and tag. */
  readonly step: number;
  readonly what: string;
  readonly expected: unknown;
  readonly actual: unknown;
}

type Outcome = { ok: true } | { error: ErrorClass; message: string };

/** One adapter's replay: the first way it departs from the model, if any. */
class Replay {
  private readonly ids = new Map<number, string>();
  private constructor(readonly name: string, private readonly repo: RepositoryHandle) {}

  static async start(adapter: RepositoryAdapter, slots: number): Promise<Replay> {
    const repo = await adapter.createRepository();
    const replay = new Replay(adapter.name, repo);
    replay.ids.set(0, await repo.lookupBranch('main'));
    for (let s = 0; s < slots; s++) await repo.openSession(s, 'main');
    return replay;
  }

  private async perform(a: Action): Promise<void> {
    const r = this.repo;
    switch (a.do) {
      case 'open': return r.openSession(a.slot, a.branch);
      case 'createGroup': return r.createGroup(a.slot, a.path);
      case 'createArray': return r.createArray(a.slot, a.path);
      case 'deleteNode': return r.deleteNode(a.slot, a.path);
      case 'setAttribute': return r.setAttribute(a.slot, a.path, a.value);
      case 'writeChunk': return r.writeChunk(a.slot, a.path, a.chunk, a.value);
      case 'eraseChunk': return r.eraseChunk(a.slot, a.path, a.chunk);
      case 'commit': this.ids.set(a.snapshot, await r.commit(a.slot, `snapshot ${a.snapshot}`)); return;
      case 'rebase': return r.rebase(a.slot);
      case 'move': this.ids.set(a.snapshot, await r.moveNode(a.branch, a.from, a.to, `move ${a.from} to ${a.to}`)); return;
      case 'createBranch': return r.createBranch(a.name, await r.lookupBranch(a.at));
      case 'createTag': return r.createTag(a.name, await r.lookupBranch(a.at));
      case 'reset': return r.resetBranch(a.branch, this.ids.get(a.to)!);
      default: {
        const unknown: never = a;
        throw new Error(`unknown action ${JSON.stringify(unknown)}`);
      }
    }
  }

  async act(a: Action): Promise<Outcome> {
    try {
      await this.perform(a);
      return { ok: true };
    } catch (err) {
      return { error: this.repo.classifyError(err), message: err instanceof Error ? firstLine(err.message) : String(err) };
    }
  }

  read(source: ReadSource): Promise<TreeListing> {
    return this.repo.readTree(source);
  }

  close(): Promise<void> {
    return this.repo.close();
  }
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const describeSource = (s: ReadSource): string => ('slot' in s ? `session s${s.slot}` : 'branch' in s ? `branch ${s.branch}` : `tag ${s.tag}`);

/** Replays `history` on each adapter; returns the first mismatch with the model (undefined: none). */
export async function checkHistory(adapters: readonly RepositoryAdapter[], history: readonly HistoryOp[], options: RepositoryModelOptions = {}): Promise<Mismatch | undefined> {
  const model = new RepositoryModel(2, options);
  const replays: Replay[] = [];
  try {
    for (const a of adapters) replays.push(await Replay.start(a, 2));
    for (const [step, op] of history.entries()) {
      const expectation = model.step(op);
      if (!expectation) continue;
      for (const replay of replays) {
        const outcome = await replay.act(expectation.action);
        const wanted = expectation.error ?? 'ok';
        const got = 'ok' in outcome ? 'ok' : outcome.error;
        if (got !== wanted) {
          const why = expectation.conflicts?.map((c) => `${c.kind} at ${c.path}`).join(', ');
          return { adapter: replay.name, step, what: describeHistoryOp(op), expected: why ? `${wanted} (${why})` : wanted, actual: 'ok' in outcome ? 'ok' : `${outcome.error}: ${outcome.message}` };
        }
        for (const { source, tree } of expectation.reads) {
          const actual = await replay.read(source);
          if (!same(actual, tree)) return { adapter: replay.name, step, what: `${describeHistoryOp(op)}, then read ${describeSource(source)}`, expected: tree, actual };
        }
      }
    }
    for (const { source, tree } of model.finalReads()) {
      for (const replay of replays) {
        const actual = await replay.read(source);
        if (!same(actual, tree)) return { adapter: replay.name, step: -1, what: `final read of ${describeSource(source)}`, expected: tree, actual };
      }
    }
    return undefined;
  } finally {
    for (const r of replays) await r.close();
  }
}

/** A history as numbered lines, for reports. */
export function describeHistory(history: readonly HistoryOp[]): string {
  return history.map((op, i) => `${String(i).padStart(3)}  ${describeHistoryOp(op)}`).join('\n');
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}
