#!/usr/bin/env node
// The `floe` command: the compiled CLI in dist/ (`npm run build` makes it; the package ships it).
import { main } from '../dist/cli/process-main.js';

await main(process.argv.slice(2));
