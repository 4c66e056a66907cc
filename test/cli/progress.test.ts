// Progress output: a bar redrawn in place on a terminal, periodic plain lines otherwise; both
// with rate and ETA from an injected clock.
import { describe, expect, it } from 'vitest';
import { BufferStream } from '../../src/cli/io.ts';
import { formatDuration, Progress } from '../../src/cli/progress.ts';

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('Progress', () => {
  it('redraws one bar with percentage, rate and ETA on a TTY', () => {
    const stream = new BufferStream(true);
    const c = clock();
    const p = new Progress({ label: 'writing', total: 4 * 2 ** 20, unit: 'bytes', stream, now: c.now });
    c.advance(1000);
    p.add(2 ** 20);
    c.advance(1000);
    p.add(2 ** 20);
    p.finish();
    const frames = stream.text.split('\r').filter(Boolean);
    expect(frames[0]).toBe('writing [######------------------]  25%  1.0 MiB of 4.0 MiB  1.0 MiB/s  ETA 3s\x1b[K');
    expect(frames[1]).toContain(' 50%  2.0 MiB of 4.0 MiB  1.0 MiB/s  ETA 2s');
    expect(frames[2]).toBe('writing: 2.0 MiB in 2.0 s (1.0 MiB/s)\x1b[K\n');
    expect(stream.text.split('\n')).toHaveLength(2); // only the final line ends a line
  });

  it('prints plain lines at most every interval when not a TTY', () => {
    const stream = new BufferStream(false);
    const c = clock();
    const p = new Progress({ label: 'importing', total: 100, unit: 'items', stream, now: c.now, intervalMs: 2000 });
    for (let i = 0; i < 100; i++) {
      c.advance(100);
      p.add(1);
    }
    p.finish();
    const lines = stream.text.trimEnd().split('\n');
    expect(lines[0]).toBe('importing:   1%, 1 item of 100 items, 10/s, ETA 10s');
    expect(lines).toHaveLength(1 + 4 + 1); // the first add, one every 2 s of 10 s, the summary
    expect(stream.text).not.toContain('\r');
    expect(lines.at(-1)).toBe('importing: 100 items in 10.0 s (10/s)');
  });

  it('works without a total (no percentage or ETA)', () => {
    const stream = new BufferStream(false);
    const c = clock();
    const p = new Progress({ label: 'gc', unit: 'items', stream, now: c.now });
    c.advance(500);
    p.add(50);
    expect(stream.text).toBe('gc: 50 items, 100/s\n');
    expect(formatDuration(75)).toBe('1m15s');
    expect(formatDuration(7300)).toBe('2h01m');
  });
});
