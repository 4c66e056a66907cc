#!/usr/bin/env node
// The `floe` command. Floe ships TypeScript sources; tsx compiles them on the fly.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/cli/main.ts');
const { processIo } = await import('../src/cli/io.ts');
const code = await run(process.argv.slice(2), processIo());
// Exit explicitly: worker pools and idle sockets must not keep a finished command alive.
process.exit(code);
