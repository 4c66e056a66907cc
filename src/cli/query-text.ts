// `floe query` / `floe explain` take a query as text (src/query/query-text.ts: builder calls or
// JSON); a text that does not parse is a usage error.
import { isFloeError } from '../errors.ts';
import { parseQueryText as parseText } from '../query/query-text.ts';
import { UsageError } from './command.ts';

export type { JsonQuery } from '../query/query-text.ts';

export function parseQueryText(text: string): unknown {
  try {
    return parseText(text);
  } catch (err) {
    if (isFloeError(err, 'INVALID_ARGUMENT')) throw new UsageError(err.message);
    throw err;
  }
}
