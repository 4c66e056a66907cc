// Planted warnings for test/unit/warning-gate.test.ts, which runs this file under the warning
// gate and expects exactly the two "planted" tests to fail. Each warning is emitted from inside
// Floe's own code (ByteLru calls sizeOf synchronously), as a Floe bug would emit it.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ByteLru } from '../../src/cache/lru.ts';

const plant = `process.emitWarning('planted by the warning-gate test', 'PlantedWarning'); return 1;`;

it('planted in this process', async () => {
  new ByteLru<string, object>({ maxBytes: 10, sizeOf: new Function(plant) as () => number }).set('k', {});
  await new Promise((resolve) => setImmediate(resolve));
  expect(true).toBe(true);
});

it('planted in a child process running the built package', () => {
  const script = `import { ByteLru } from './dist/cache/lru.js';
    new ByteLru({ maxBytes: 10, sizeOf: () => { ${plant} } }).set('k', {});`;
  const out = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(out).toBe('');
});

it('clean: no warning, passes', () => {
  new ByteLru<string, object>({ maxBytes: 10, sizeOf: () => 1 }).set('k', {});
  expect(true).toBe(true);
});

it('a foreign warning nobody listed: fails', async () => {
  process.emitWarning('from somewhere else', 'UnlistedWarning');
  await new Promise((resolve) => setImmediate(resolve));
  expect(true).toBe(true);
});
