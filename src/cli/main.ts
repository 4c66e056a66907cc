// `floe <command>`: the command-line entry point. Each command lives in its own module.
import { runDemo } from './demo.ts';

const USAGE = `usage: floe <command> [options]

commands:
  demo [--dir DIR]   create a local store, write and read an array, print what happened
  help               this text`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo':
      await runDemo(rest);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(`floe: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`floe: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
