// The shape every `floe` subcommand has: its help text (with an example), its options, and a
// `run` that gets parsed arguments and an output helper. main.ts owns parsing and error handling,
// so a command only does its job.
import type { ParseArgsConfig } from 'node:util';
import path from 'node:path';
import { systemClock, type Clock } from '../engine/storage/clock.ts';
import type { AbortOptions } from '../engine/storage/types.ts';
import type { CliIo } from './io.ts';
import { toJsonText } from './json-output.ts';

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
export type FlagValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/** A command's help and behaviour; its name and one-line summary live in commands/index.ts. */
export interface CommandSpec {
  /** Arguments after the command name, e.g. `[ref] [path]`. */
  readonly usage: string;
  /** More lines of help: what it does, option descriptions. */
  readonly details?: string;
  readonly examples: readonly string[];
  readonly options?: OptionSpecs;
  run(ctx: CommandContext): Promise<number | void>;
}

/** Wrong arguments: exit code 2 and a pointer to `--help`. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export class CommandContext {
  /** What the command opened (repositories, storages), closed when it ends: see `closingAfter`. */
  private readonly opened: AsyncDisposable[] = [];

  constructor(
    readonly io: CliIo,
    readonly command: string,
    readonly positionals: readonly string[],
    readonly flags: FlagValues,
  ) {}

  /** Registers something the command opened, to be closed when the command ends (a SQLite file is left as one file). */
  closeWhenDone<T extends AsyncDisposable>(resource: T): T {
    this.opened.push(resource);
    return resource;
  }

  /**
   * Runs the command, then closes what it opened, newest first, whether it succeeded or not. When
   * the command failed, its error is the one reported; a failure to close is then a note on stderr.
   */
  async closingAfter<T>(task: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await task();
    } catch (err) {
      await this.closeOpened().catch((closeErr: unknown) => this.note(`floe ${this.command}: also failed to close: ${closeErr instanceof Error ? closeErr.message : String(closeErr)}`));
      throw err;
    }
    await this.closeOpened();
    return result;
  }

  /** Closes every registered resource, all of them even when one fails (the first failure is thrown). */
  private async closeOpened(): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (const resource of this.opened.splice(0).reverse()) {
      try {
        await resource[Symbol.asyncDispose]();
      } catch (err) {
        failure ??= { error: err };
      }
    }
    if (failure) throw failure.error;
  }

  /** `--repo`, default `./floe-demo.icechunk`, resolved against the working directory (s3:// kept). */
  get repoPath(): string {
    const given = this.string('repo') ?? this.io.env.FLOE_REPO ?? './floe-demo.icechunk';
    return given.includes('://') ? given : path.resolve(this.io.cwd, given);
  }
  get json(): boolean {
    return this.flags.json === true;
  }
  /**
   * The run's signal (SIGINT/SIGTERM in the real CLI) as options for every repository, store and
   * query call a command makes, so Ctrl-C stops a long read, commit or query cleanly (ABORTED).
   */
  get request(): AbortOptions {
    return { signal: this.io.signal };
  }
  now(): number {
    return this.io.now ? this.io.now() : performance.now();
  }
  get clock(): Clock {
    return this.io.clock ?? systemClock;
  }
  resolvePath(p: string): string {
    return path.resolve(this.io.cwd, p);
  }

  string(name: string): string | undefined {
    const v = this.flags[name];
    return typeof v === 'string' ? v : undefined;
  }
  /** A numeric option; UsageError when it is not a number. */
  number(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number, got ${JSON.stringify(v)}`);
    return n;
  }
  positional(index: number, name: string): string {
    const v = this.positionals[index];
    if (v === undefined) throw new UsageError(`missing ${name}`);
    return v;
  }
  /** Rejects positionals beyond `count`. */
  atMost(count: number): void {
    if (this.positionals.length > count) throw new UsageError(`unexpected argument ${JSON.stringify(this.positionals[count])}`);
  }

  print(text = ''): void {
    this.io.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }
  printJson(value: unknown): void {
    this.io.stdout.write(toJsonText(value) + '\n');
  }
  /** Notes for a human (progress, hints) go to stderr so stdout stays parseable. */
  note(text: string): void {
    this.io.stderr.write(text + '\n');
  }
}
