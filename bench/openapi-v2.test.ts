// Smoke test of the /openapi/v2 bench (bench/openapi-v2.ts): its figures are produced and finite,
// and the port's answer is the merged one. The ≤ 1.2× target is judged by `npm run bench` only.
import { describe, expect, it } from 'vitest';
import { openApiV2Figures } from './openapi-v2.js';

describe('bench: the merged /openapi/v2 (quick smoke)', () => {
  it('produces the ratio (with its target), the times it is made of and the control, for JSON and protobuf', async () => {
    const figures = await openApiV2Figures({ quick: true });
    expect(figures).toHaveLength(10);
    const ratios = figures.filter((f) => f.target !== undefined);
    const controls = figures.filter((f) => f.name.includes('control'));
    expect(controls.map((f) => [f.name.split(':')[0], f.unit, f.target])).toEqual([
      ['/openapi/v2 JSON', '×', undefined],
      ['/openapi/v2 protobuf', '×', undefined],
    ]);
    expect(ratios.map((f) => f.name.split(',')[0])).toEqual(['/openapi/v2 JSON', '/openapi/v2 protobuf']);
    for (const f of ratios) expect(f.target).toBe(1.2);
    for (const f of figures) expect(Number.isFinite(f.value) && f.value > 0, f.name).toBe(true);
    // The merged document holds every server's paths: larger than one server's own.
    for (const f of ratios) {
      const [merged, own] = (/\(([\d.]+) vs ([\d.]+) MiB\)/.exec(f.name) ?? []).slice(1).map(Number);
      expect(merged).toBeGreaterThan(own as number);
    }
  });
});
