// `--older-than` for expire and gc: an age (`30d`, `12h`, `15m`, `45s`, `0`) counted back from
// now, or a strict ISO 8601 date (src/format/iso-date.ts: `2026-02-30` or a time without a zone
// is refused, not rolled over). A cutoff in the future is refused: "older than next year" would
// take every snapshot and object, which no one means.
import { isFloeError } from '../errors.ts';
import { parseIsoDate } from '../format/iso-date.ts';
import { UsageError } from './command.ts';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseCutoff(text: string, nowMs: number, option = '--older-than'): Date {
  const age = /^(\d+(?:\.\d+)?)([smhdw]?)$/.exec(text.trim());
  if (age) {
    if (age[2] === '' && Number(age[1]) !== 0) throw new UsageError(`${option} ${text}: give a unit (s, m, h, d, w), e.g. 7d`);
    return new Date(nowMs - Number(age[1]) * (UNIT_MS[age[2] || 's'] ?? 0));
  }
  const date = isoDate(text, option);
  if (date.getTime() > nowMs) {
    throw new UsageError(`${option} ${text} is in the future (now is ${new Date(nowMs).toISOString()}); give a past date or an age such as 30d`);
  }
  return date;
}

function isoDate(text: string, option: string): Date {
  try {
    return parseIsoDate(text, option);
  } catch (err) {
    if (!isFloeError(err, 'INVALID_ARGUMENT')) throw err;
    throw new UsageError(`${err.message}, or give an age such as 7d`);
  }
}
