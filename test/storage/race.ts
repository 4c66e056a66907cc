// Runs the multi-process CAS race: `writers` OS processes advance one counter object by
// conditional updates until it reaches `rounds`. Checks: exactly one winner per round, and the
// stored history lists the winners in order (no lost update).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ObjectStorage } from '../../src/engine/storage/types.ts';
import type { RaceBackend } from './race-backends.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = path.resolve(here, '../../node_modules/.bin/tsx');

/** What one writer reports: the rounds it won and how many of its attempts lost. */
export interface WriterReport {
  id: string;
  won: number[];
  lost: number;
}

function runChild(config: object, timeoutMs: number): Promise<WriterReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [path.join(here, 'race-child.ts'), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out.trim()) as WriterReport);
      else reject(new Error(`race child exited with ${code}: ${err.slice(0, 2000)}`));
    });
  });
}

export interface RaceResult {
  writers: number;
  rounds: number;
  lostAttempts: number;
  winnersPerRound: number[];
  seconds: number;
}

export const RACE_KEY = 'race/counter';

/** Writes the counter object every race starts from. */
export async function resetRaceCounter(storage: ObjectStorage): Promise<void> {
  await storage.put(RACE_KEY, new TextEncoder().encode(JSON.stringify({ round: 0, writers: [] })));
}

/** A race test's timeout: the deadline above, the children's start and the checks. */
export const RACE_TEST_TIMEOUT_MS = 180_000;

export async function runCasRace(storage: ObjectStorage, backend: RaceBackend, writers: number, rounds: number): Promise<RaceResult> {
  const key = RACE_KEY;
  await resetRaceCounter(storage);
  const started = Date.now();
  // Children start together after every tsx process has had time to boot.
  const startAt = started + 3000;
  // Generous for a loaded 2-core machine (a quiet one finishes in seconds); tests allow RACE_TEST_TIMEOUT_MS.
  const deadline = startAt + 120_000;
  const reports = await Promise.all(
    Array.from({ length: writers }, (_, i) =>
      runChild({ backend, key, id: `w${i}`, target: rounds, startAt, deadline }, deadline - started + 10_000),
    ),
  );
  return checkRace(storage, reports, rounds, (Date.now() - startAt) / 1000, 'OS processes');
}

/**
 * The race's verdict: the counter reached `rounds`, every round had exactly one acknowledged
 * winner, and the history in the object lists those winners in order (no lost update).
 */
export async function checkRace(storage: ObjectStorage, reports: readonly WriterReport[], rounds: number, seconds: number, writersAre: string): Promise<RaceResult> {
  const writers = reports.length;
  const final = await storage.get(RACE_KEY);
  const counter = JSON.parse(new TextDecoder().decode(final!.bytes)) as { round: number; writers: string[] };
  const winnersPerRound = Array.from({ length: rounds }, () => 0);
  const winnerOf: string[] = [];
  for (const report of reports) {
    for (const round of report.won) {
      winnersPerRound[round - 1] = (winnersPerRound[round - 1] ?? 0) + 1;
      winnerOf[round - 1] = report.id;
    }
  }
  expect(counter.round).toBe(rounds);
  expect(winnersPerRound).toEqual(Array.from({ length: rounds }, () => 1));
  expect(counter.writers).toEqual(winnerOf); // every acknowledged win is in the history: no lost update
  const result: RaceResult = {
    writers,
    rounds,
    lostAttempts: reports.reduce((sum, r) => sum + r.lost, 0),
    winnersPerRound,
    seconds,
  };
  console.log(`CAS race on ${storage.kind} (${writersAre}): ${JSON.stringify({ ...result, winnersPerRound: `all ${rounds} rounds had exactly 1` })}`);
  return result;
}
