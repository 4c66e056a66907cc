// Worker entry for DecodePool. Floe ships TypeScript sources, so the worker registers tsx first.
import { register } from 'tsx/esm/api';

register();
await import('./decode-worker-main.ts');
