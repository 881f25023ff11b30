import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapSettings } from './heap-growth.js';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..', '..', '..');
/** Whether this V8 has the flag, so that the port's settings and V8's own differ on Buffer memory. */
const flagHere = heapSettings({}, process.versions.v8).flags.length > 1;

/**
 * A process of its own applies the settings (or V8's own, with 0), then allocates 1 GiB of 16 KiB
 * Buffers that die within their turn, as a relayed watch does, and counts V8's full collections.
 */
async function fullCollections(percent: string): Promise<{ majors: number; output: string }> {
  const script = `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { fixHeapGrowth } from './proxy-core/engine/util/heap-growth.ts';
    fixHeapGrowth();
    let majors = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
    }).observe({ entryTypes: ['gc'] });
    let kept = 0;
    for (let turn = 0; turn < 1024; turn++) {
      for (let i = 0; i < 64; i++) kept += Buffer.allocUnsafeSlow(16_384).length;
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 50));
    console.log(JSON.stringify({ majors, kept }));`;
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { ...process.env, PEERSCOPE_HEAP_GROWING_PERCENT: percent },
  });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return { majors: (JSON.parse(last) as { majors: number }).majors, output: stdout + stderr };
}

describe('heapSettings', () => {
  const growth = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  it('sets the port’s growth factor unless the environment overrides it', () => {
    expect(heapSettings({}, '13.6.233.17-node.53')).toEqual({
      growingPercent: HEAP_GROWING_PERCENT,
      externalInHeapLimit: true,
      flags: [growth, '--external-memory-accounted-in-global-limit'],
    });
    expect(heapSettings({ PEERSCOPE_HEAP_GROWING_PERCENT: '0' }, '13.6.233')).toEqual({
      growingPercent: 0,
      externalInHeapLimit: false,
      flags: ['--heap-growing-percent=0', '--no-external-memory-accounted-in-global-limit'],
    });
    expect(heapSettings({ PEERSCOPE_HEAP_GROWING_PERCENT: '150' }, '13.6.233').growingPercent).toBe(150);
  });

  it('sets the Buffer-memory flag only on the V8 releases that have it', () => {
    // V8 12 (Node 22) has no such setting: only the growth factor is set.
    expect(heapSettings({}, '12.4.254.21-node.21')).toEqual({
      growingPercent: HEAP_GROWING_PERCENT,
      externalInHeapLimit: false,
      flags: [growth],
    });
    expect(heapSettings({}, '14.7.1').flags).toContain('--external-memory-accounted-in-global-limit');
    // From 14.8 it is how V8 works, and the flag is gone (Electron 45's V8 is later).
    for (const v8 of ['14.8.0', '14.10.2', '15.4.113.9-electron.0'])
      expect(heapSettings({ PEERSCOPE_HEAP_GROWING_PERCENT: '0' }, v8)).toEqual({
        growingPercent: 0,
        externalInHeapLimit: true,
        flags: ['--heap-growing-percent=0'],
      });
  });

  it('names the variable and the value it cannot use', () => {
    for (const bad of ['abc', '-1', '2.5', '5000'])
      expect(() => heapSettings({ PEERSCOPE_HEAP_GROWING_PERCENT: bad }, process.versions.v8)).toThrow(
        `PEERSCOPE_HEAP_GROWING_PERCENT: "${bad}" is not a whole number from 0 to 1000`,
      );
  });

  it(`keeps short-lived Buffers from starting full collections where V8 can (V8 ${process.versions.v8}), and prints nothing`, async () => {
    const port = await fullCollections('');
    const own = await fullCollections('0');
    console.log(`full collections: ${port.majors} with the port’s settings, ${own.majors} with V8’s own`);
    expect(port.output).not.toMatch(/unrecognized flag|Error/);
    if (flagHere) {
      // 1 GiB against a 64 MiB limit of their own: V8’s own settings collect a dozen times or more.
      expect(own.majors).toBeGreaterThanOrEqual(4);
      expect(port.majors).toBeLessThanOrEqual(1);
    } else {
      // V8 12 answers Buffer memory with young-generation collections, and from 14.8 V8 counts it in
      // the heap's limit itself: either way both settings collect alike.
      expect(port.majors).toBeLessThanOrEqual(own.majors + 1);
    }
  });
});
