// `floe <command>`: parses arguments, runs one command module, and turns failures into one line
// on stderr with a non-zero exit code (1: the operation failed, 2: the command line was wrong).
// `run` takes its streams and environment as arguments so tests drive it in-process.
import { parseArgs } from 'node:util';
import { isFloeError } from '../errors.ts';
import { CommandContext, UsageError, type CommandSpec, type OptionSpecs } from './command.ts';
import { COMMANDS, type CommandEntry } from './commands/index.ts';
import type { CliIo } from './io.ts';

const GLOBAL_OPTIONS: OptionSpecs = {
  repo: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: floe <command> [options]   (floe <command> --help for details and an example)',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'global options:',
    '  --repo PATH   the repository: a directory, a SQLite file or s3://bucket/prefix (default ./floe-demo.icechunk, or $FLOE_REPO)',
    '  --json        machine-readable output (read commands)',
    '  --version     the version (with --verbose: Node, platform and which optional packages load)',
  ].join('\n');
}

export function commandHelp(entry: CommandEntry, spec: CommandSpec): string {
  const lines = [`usage: floe ${entry.name}${spec.usage ? ' ' + spec.usage : ''}`, '', entry.summary];
  if (spec.details) lines.push('', spec.details);
  lines.push('', 'examples:', ...spec.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    const { versionText } = await import('./version.ts');
    io.stdout.write((await versionText(rest.includes('--verbose'))) + '\n');
    return 0;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.stdout.write((topic ? commandHelp(topic, await topic.load()) : usage()) + '\n');
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`floe: unknown command ${JSON.stringify(name)}; run \`floe help\` for the list\n`);
    return 2;
  }
  try {
    const spec = await entry.load();
    const parsed = parseArgs({ args: [...rest], options: { ...GLOBAL_OPTIONS, ...spec.options }, allowPositionals: true, strict: true });
    if (parsed.values.help) {
      io.stdout.write(commandHelp(entry, spec) + '\n');
      return 0;
    }
    const ctx = new CommandContext(io, entry.name, parsed.positionals, parsed.values);
    const code = await ctx.closingAfter(() => spec.run(ctx));
    return code ?? 0;
  } catch (err) {
    return reportFailure(io, entry.name, err);
  }
}

function reportFailure(io: CliIo, command: string, err: unknown): number {
  if (err instanceof UsageError || isParseArgsError(err)) {
    io.stderr.write(`floe ${command}: ${(err as Error).message}; see \`floe ${command} --help\`\n`);
    return 2;
  }
  const message = err instanceof Error ? err.message : String(err);
  // Stopped by SIGINT/SIGTERM (io.signal): the shell's code for an interrupted command.
  const exitCode = isFloeError(err, 'ABORTED') ? 130 : 1;
  // FloeError messages already say where and what to do; other errors get their class name.
  const prefix = isFloeError(err) ? `${err.code}: ` : err instanceof Error && err.name !== 'Error' ? `${err.name}: ` : '';
  io.stderr.write(`floe ${command}: ${prefix}${message.split('\n')[0]}\n`);
  if (io.env.FLOE_DEBUG && err instanceof Error && err.stack) io.stderr.write(err.stack + '\n');
  return exitCode;
}

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
