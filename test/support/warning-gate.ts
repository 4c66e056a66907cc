// Issue 28: no warnings a user did not cause. What the warning gate (test/setup/warning-gate.ts)
// fails on: a process warning whose stack passes through Floe's own code (src/ or dist/, or an
// installed copy's dist/) always; any other warning too, unless ALLOWED names it. Node 22+ is
// silent on some patterns Node 20 warns about (and warns on others), so this gate is a net, not
// the only test: causes get tests of their own (abort-listeners.test.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The preload every child process gets through NODE_OPTIONS. */
export const CHILD_PRELOAD = new URL('../setup/child-warning-gate.mjs', import.meta.url).href;
/** The environment variable naming the file children append their warnings to. */
export const WARNING_LOG_ENV = 'FLOE_WARNING_LOG';

export interface WarningRecord {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
  /** For a child's warning: its script and first argument, to say which child. */
  readonly argv?: string;
}

interface Allowance {
  readonly name: string;
  /** Why it is not Floe's to fix. */
  readonly why: string;
  readonly matches: (w: WarningRecord) => boolean;
  /** Allowed with Floe's frames on its stack too: a notice about the user's own setup. */
  readonly throughFloe?: boolean;
}

/** Warnings from other code that the suite tolerates, each by name. */
export const ALLOWED: readonly Allowance[] = [
  {
    name: "NodeVersionSupportWarning (the AWS SDK's notice that it is leaving this Node line)",
    why: 'the SDK tells every user of an end-of-life Node (20) once, when Floe first loads it for S3: about their Node, which only they can change',
    matches: (w) => /NodeVersionSupportWarning/.test(w.message) && /[/\\]@aws-sdk[/\\]/.test(w.stack),
    throughFloe: true,
  },
  {
    name: 'ExperimentalWarning: WASI (the reference Icechunk)',
    why: "@earthmover/icechunk's wasm32-wasi build, which the conformance tests run as the reference, starts Node's WASI",
    matches: (w) => w.name === 'ExperimentalWarning' && /^WASI is an experimental feature/.test(w.message) && /icechunk-wasm32-wasi/.test(w.stack + (w.argv ?? '')),
  },
  {
    name: "npm's own install messages",
    why: 'npm (and the node-gyp it runs) warns about its own dependencies while the consumer tests install the packed tarball',
    matches: (w) => framesOf(w.stack).length > 0 && framesOf(w.stack).every((f) => /[/\\]node_modules[/\\](npm|node-gyp)[/\\]|[/\\]lib[/\\]node_modules[/\\]npm[/\\]/.test(f)),
  },
];

/** The stack's frame lines ("    at ..."), not its message. */
function framesOf(stack: string): string[] {
  return stack.split('\n').filter((line) => /^\s+at /.test(line));
}

const floeDirs = ['src', 'dist'].map((dir) => path.join(ROOT, dir) + path.sep);

/** Whether a stack frame is in Floe's own code: this checkout's src/ or dist/, or an installed floe. */
export function isFloeFrame(frame: string): boolean {
  const plain = frame.replace(/file:\/\//g, '');
  return floeDirs.some((dir) => plain.includes(dir)) || /[/\\]node_modules[/\\]floe[/\\]dist[/\\]/.test(plain);
}

/** Why `w` fails the suite, or null when it is allowed. */
export function verdict(w: WarningRecord): string | null {
  const allowance = ALLOWED.find((a) => a.matches(w));
  const floeFrame = framesOf(w.stack).find(isFloeFrame);
  if (floeFrame && !allowance?.throughFloe) return `Floe emitted it (${floeFrame.trim()})`;
  if (allowance) return null;
  return 'not Floe\'s, but not allowed either: fix its cause, or list it by name in ALLOWED (test/support/warning-gate.ts) with why';
}

/** The failures among `warnings`, one paragraph each, or '' when there are none. */
export function gateReport(warnings: readonly WarningRecord[]): string {
  const failures = warnings.flatMap((w) => {
    const why = verdict(w);
    return why === null ? [] : [`${w.name}: ${w.message}${w.argv ? ` [in child: ${w.argv}]` : ''}\n  ${why}\n${quoted(w.stack)}`];
  });
  return failures.length === 0 ? '' : `warning gate: ${failures.length} warning(s) a user did not cause\n\n${failures.join('\n\n')}`;
}

/**
 * The warning's frames, each prefixed so that vitest does not take them for frames of the error
 * that reports them (it would try to source-map files of other processes).
 */
function quoted(stack: string): string {
  return framesOf(stack).map((frame) => `    | ${frame.trim()}`).join('\n');
}

/** The records in a child warning log (JSON lines); a missing file holds none. */
export function parseWarningLog(text: string): WarningRecord[] {
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as WarningRecord);
}
