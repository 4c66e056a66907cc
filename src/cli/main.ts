// `floe <command>`: parses arguments, runs one command module, and turns failures into one line
// on stderr with a non-zero exit code (1: the operation failed, 2: the command line was wrong).
// `run` takes its streams and environment as arguments so tests drive it in-process.
import { parseArgs } from 'node:util';
import { isFloeError } from '../errors.ts';
import { closestNames, didYouMean } from '../format/did-you-mean.ts';
import { CommandContext, UsageError, type CommandSpec, type OptionSpecs } from './command.ts';
import { COMMANDS, type CommandEntry } from './commands/index.ts';
import type { CliIo } from './io.ts';

const GLOBAL_OPTIONS: OptionSpecs = {
  repo: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  'allow-virtual': { type: 'string', multiple: true },
};

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: floe <command> [options]   (floe <command> --help for details and an example)',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'global options (before or after the command):',
    '  --repo PATH   the repository: a directory, a SQLite file or s3://bucket/prefix (default ./floe-demo.icechunk, or $FLOE_REPO)',
    '  --json        machine-readable output (read commands)',
    '  --allow-virtual PREFIX  read virtual chunks from this container (repeatable; "all": every one configured; or $FLOE_ALLOW_VIRTUAL)',
    '  --version     the version (with --verbose: Node, platform and which optional packages load)',
    '',
    'refs: a branch, a tag, a snapshot id or a unique prefix of 4+ characters, then ~N, ^ or @{DATE}: main~3, v1^, 3KJ9, main@{2026-11-01}',
  ].join('\n');
}

export function commandHelp(entry: CommandEntry, spec: CommandSpec): string {
  const lines = [`usage: floe ${entry.name}${spec.usage ? ' ' + spec.usage : ''}`, '', entry.summary];
  if (spec.details) lines.push('', spec.details);
  lines.push('', 'examples:', ...spec.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const split = splitCommand(argv);
  if ('misplaced' in split) {
    io.stderr.write(`floe: ${split.misplaced} is not a global option; put a command's options after the command (floe <command> ${split.misplaced} ...)\n`);
    return 2;
  }
  const { name, rest } = split;
  if (name === undefined || name === 'help') {
    if (rest.includes('--version') || rest.includes('-V')) {
      const { versionText } = await import('./version.ts');
      io.stdout.write((await versionText(rest.includes('--verbose'))) + '\n');
      return 0;
    }
    const topicName = name === 'help' ? rest.find((a) => !a.startsWith('-')) : undefined;
    const topic = topicName === undefined ? undefined : COMMANDS.find((c) => c.name === topicName);
    if (topicName !== undefined && !topic) return unknownCommand(io, topicName);
    io.stdout.write((topic ? commandHelp(topic, await topic.load()) : usage()) + '\n');
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) return unknownCommand(io, name);
  try {
    const spec = await entry.load();
    const options = { ...GLOBAL_OPTIONS, ...spec.options };
    checkOptionNames(rest, options);
    const parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
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

function unknownCommand(io: CliIo, name: string): number {
  const hint = didYouMean(closestNames(name, COMMANDS.map((c) => c.name)));
  io.stderr.write(`floe: unknown command ${JSON.stringify(name)}${hint ? `; ${hint}` : ''}; run \`floe help\` for the list\n`);
  return 2;
}

/**
 * The command name and every other argument, in order. Global options may come before the
 * command (`floe --repo r.db log`) as well as after it, as git's do; a value of `--repo` is never
 * taken for the command. Other options before the command are refused (`misplaced`).
 */
export function splitCommand(argv: readonly string[]): { name: string | undefined; rest: string[] } | { misplaced: string } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') return { name: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
    const option = arg.startsWith('--') ? arg.slice(2).split('=')[0] ?? '' : arg.slice(1);
    const spec = Object.entries(GLOBAL_OPTIONS).find(([long, o]) => long === option || o.short === option)?.[1];
    if (spec?.type === 'string' && !arg.includes('=')) i++; // its value
    else if (!spec && !BEFORE_COMMAND.has(arg)) return { misplaced: arg };
  }
  return { name: undefined, rest: [...argv] };
}

/** Flags `floe` reads with no command: `floe --version [--verbose]`. */
const BEFORE_COMMAND = new Set(['--version', '-V', '--verbose']);

/** Throws a UsageError naming an unknown option with the closest known ones ("did you mean"). */
function checkOptionNames(args: readonly string[], options: OptionSpecs): void {
  const { tokens } = parseArgs({ args: [...args], options, allowPositionals: true, strict: false, tokens: true });
  const long = Object.keys(options);
  const short = new Set(Object.values(options).flatMap((o) => (o.short ? [o.short] : [])));
  for (const token of tokens) {
    if (token.kind !== 'option' || long.includes(token.name) || short.has(token.name)) continue;
    const hint = didYouMean(closestNames(token.name, long), (n) => `--${n}`);
    throw new UsageError(`unknown option ${token.rawName}${hint ? `; ${hint}` : ''}`);
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
