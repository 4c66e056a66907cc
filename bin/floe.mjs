#!/usr/bin/env node
// The `floe` command. Floe ships TypeScript sources; tsx compiles them on the fly.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
