// The page's repository: the served repository's raw route opened as an HTTP storage (the same
// way any published copy opens), with the token the page was given. The token comes from the
// `#token=` link `floe serve` prints, or from the prompt; it is kept in sessionStorage (this tab
// only) and taken out of the address bar at once.
/// <reference lib="dom" />
import { Repository, Storage } from '../../browser.ts';
import type { Session } from '../../txn/index.ts';

const TOKEN_KEY = 'floe-viewer-token';
/** Snapshots kept open while browsing (as `floe serve` keeps 16). */
const KEPT_SESSIONS = 16;

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
    if (session) this.sessions.delete(snapshotId); // kept in least-recently-used order
    else {
      session = this.repo.readonlySession({ snapshotId });
      session.catch(() => this.sessions.delete(snapshotId));
    }
    this.sessions.set(snapshotId, session);
    const [oldest] = this.sessions.keys();
    if (this.sessions.size > KEPT_SESSIONS && oldest !== undefined) this.sessions.delete(oldest);
    return { session: await session, snapshotId };
  }
}
