// The port's /.peerscope/impact takes the target as operators name it: a patch release a server runs
// (v1.37.2), a bare minor (1.37), the catalog's own name — and says what it judged against.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { impactReportSchema } from '../contract/impact.js';
import { loadRelease } from '../engine/releases/index.js';
import { eventually, startBed, type Bed } from './harness.js';

describe('/.peerscope/impact?to= a release as operators name it', () => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed({
      old: { ...loadRelease('v1.36-dev'), release: 'v1.36.3', gitVersion: 'v1.36.3' },
      new: { ...loadRelease('v1.37-dev'), release: 'v1.37.2', gitVersion: 'v1.37.2' },
    });
    await eventually(() => bed.core.servers.statuses().every((s) => s.gitVersion !== undefined), 'both releases probed');
  }, 30_000);
  afterAll(() => bed?.close());

  it('a patch release a server runs is the catalog release of its minor, and the report says which server runs it', async () => {
    const reply = await bed.get('/.peerscope/impact?to=v1.37.2');
    expect(reply.status, reply.body).toBe(200);
    const report = impactReportSchema.parse(reply.json());
    expect(report.target).toMatchObject({ release: 'v1.37-dev', asked: 'v1.37.2' });
    expect(report.target.note).toBe("v1.37.2 (run by new) judged against the catalog's v1.37-dev, its minor's release");
  });

  it('a bare minor and the catalog name alike', async () => {
    for (const to of ['1.37', 'v1.37', 'v1.37.0-dev', 'v1.37-dev']) {
      const reply = await bed.get(`/.peerscope/impact?to=${to}`);
      expect(reply.status, `${to}: ${reply.body}`).toBe(200);
      expect(impactReportSchema.parse(reply.json()).target.release).toBe('v1.37-dev');
    }
  });

  it('an unknown release is a 400 Status listing the catalog', async () => {
    const reply = await bed.get('/.peerscope/impact?to=v9.99');
    expect(reply.status).toBe(400);
    expect(reply.json<{ kind: string; message: string }>()).toMatchObject({
      kind: 'Status',
      message: 'to=v9.99: unknown release "v9.99"; the catalog has v1.36-dev, v1.37-dev',
    });
  });
});
