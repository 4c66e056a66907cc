// floe/testing's one door to fast-check, an optional peer dependency: the library itself never
// needs it, so it is loaded here (top-level await) and importing floe/testing without it fails
// with a MISSING_DEPENDENCY error naming the package instead of a bare module-not-found.
import type FastCheck from 'fast-check';
import { importOptional } from '../optional-dependency.ts';

const fastCheck = await importOptional('fast-check', 'floe/testing', () => import('fast-check'));

export const fc: typeof FastCheck = fastCheck.default;
export default fc;
