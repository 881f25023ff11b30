import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { impactJsonSchemaText } from './json-schema.js';

describe('docs/impact-report.schema.json', () => {
  it('is the JSON Schema generated from the zod schema (run npm run schema:snapshot after a change)', () => {
    const committed = readFileSync(new URL('../../../docs/impact-report.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(impactJsonSchemaText());
    const schema = JSON.parse(committed) as { required: string[]; properties: Record<string, { const?: string }> };
    expect(schema.required).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'target', 'findings']));
    expect(schema.properties.kind?.const).toBe('ImpactReport');
  });
});
