// `--older-than` for expire and gc: an age (`30d`, `12h`, `15m`, `45s`, `0`) counted back from
// now, or an ISO date.
import { UsageError } from './command.ts';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseCutoff(text: string, nowMs: number): Date {
  const age = /^(\d+(?:\.\d+)?)([smhdw]?)$/.exec(text.trim());
  if (age) {
    if (age[2] === '' && Number(age[1]) !== 0) throw new UsageError(`--older-than ${text}: give a unit (s, m, h, d, w), e.g. 7d`);
    return new Date(nowMs - Number(age[1]) * (UNIT_MS[age[2] || 's'] ?? 0));
  }
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--older-than takes an age like 7d or 12h, or an ISO date; got ${JSON.stringify(text)}`);
  return date;
}
