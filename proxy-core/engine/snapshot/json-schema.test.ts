import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { snapshotJsonSchemaText } from './json-schema.js';

describe('docs/snapshot.schema.json', () => {
  it('is the JSON Schema generated from the zod schema (run npm run schema:snapshot after a change)', () => {
    const committed = readFileSync(new URL('../../../docs/snapshot.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(snapshotJsonSchemaText());
    const schema = JSON.parse(committed) as { required: string[]; properties: Record<string, { const?: string }> };
    expect(schema.required).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'servers', 'routeTable', 'counters', 'events']));
    expect(schema.properties.apiVersion?.const).toBe('peerscope.dev/v1');
  });
});
