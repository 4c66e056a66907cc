// The page's repository: the served repository's raw route opened as an HTTP storage (the same
// way any published copy opens), with the token the page was given. The token comes from the
// `#token=` link `floe serve` prints, or from the prompt; it is kept in sessionStorage (this tab
// only) and taken out of the address bar at once.
/// <reference lib="dom" />
import { Repository, Storage } from '../../browser.ts';
import type { Session } from '../../txn/index.ts';

const TOKEN_KEY = 'floe-viewer-token';

export function storedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function keepToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export const rawRoute = (): string => new URL('/.icechunk', location.origin).href;

/** 'ok', or 'token' when the server wants a token this tab does not have (or has wrong). */
export async function probe(): Promise<'ok' | 'token'> {
  const token = storedToken();
  const answer = await fetch(`${rawRoute()}/repo`, { method: 'HEAD', headers: token ? { authorization: `Bearer ${token}` } : {}, cache: 'no-store' });
  return answer.status === 401 ? 'token' : 'ok';
}

export class Connection {
  private readonly sessions = new Map<string, Promise<Session>>();
  private constructor(readonly repo: Repository) {}

  static async open(): Promise<Connection> {
    const token = storedToken();
    const storage = Storage.newHttp(rawRoute(), token ? { headers: { authorization: `Bearer ${token}` } } : {});
    return new Connection(await Repository.open(storage));
  }

  /** A read-only session of the snapshot `ref` names now (kept per snapshot: snapshots never change). */
  async session(ref: string): Promise<{ session: Session; snapshotId: string }> {
    const { snapshotId } = await this.repo.resolve(ref);
    let session = this.sessions.get(snapshotId);
    if (!session) {
      session = this.repo.readonlySession({ snapshotId });
      this.sessions.set(snapshotId, session);
      session.catch(() => this.sessions.delete(snapshotId));
    }
    return { session: await session, snapshotId };
  }
}
