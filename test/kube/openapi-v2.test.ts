// The merged /openapi/v2 (rule P8) against real kube-apiservers of two releases, their own MVP off,
// the older pinned as the handling server: kubectl explain --output=plaintext-openapiv2 (client-go's
// OpenAPISchema(), the protobuf form) of a kind only the newer serves prints its fields through the
// port; with --faithful it fails, as straight against the older server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProtobufDocument } from '../../proxy-core/test/openapi-v2-documents.js';
import { kubeBinaries, skipKube } from './binaries.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { kubectl, startServe, type Serve } from './peerscope-cli.js';
import { parseRouteHeader } from '../../proxy-core/engine/proxy/route-header.js';

const NEW_ONLY = 'storageversionmigrations';
const NEW_ONLY_DEFINITION = 'io.k8s.api.storagemigration.v1.StorageVersionMigration';
const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe.skipIf(skipKube())('the merged /openapi/v2 on real kube-apiservers of two releases, the older pinned', () => {
  let cp: ControlPlane;
  let dir: string;
  let names: Map<string, string>;
  let serve: Serve;
  let faithful: Serve;

  beforeAll(async () => {
    cp = await startControlPlane({
      servers: [
        { host: 'kube-old', release: kubeBinaries?.older ?? '', mvp: 'no-peer-ca' },
        { host: 'kube-new', release: kubeBinaries?.newer ?? '', mvp: 'gate-off' },
      ],
    });
    names = await cp.leaseNames();
    dir = mkdtempSync(join(tmpdir(), 'kube-openapi-v2-'));
    const pinOld = ['--kubeconfig', cp.kubeconfig('kube-old'), '--policy', `pin:${names.get('kube-old')}`];
    serve = await startServe(pinOld);
    faithful = await startServe([...pinOld, '--faithful']);
  });
  afterAll(async () => {
    await serve?.stop();
    await faithful?.stop();
    await cp?.close();
  });

  it(`kubectl explain --output=plaintext-openapiv2 of ${NEW_ONLY} prints its fields through the port (protobuf read by client-go)`, async () => {
    const k = kubectl({ server: serve.url }, join(dir, 'cache-default'));
    const r = await k(['explain', '--output=plaintext-openapiv2', NEW_ONLY], 60_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^KIND:\s+StorageVersionMigration\nVERSION:\s+storagemigration\.k8s\.io\/v1\n/);
    expect(r.stdout).toContain('FIELDS:');
    expect(r.stdout).toMatch(/^\s+spec\s+<Object>\n\s+Specification of the migration\./m);
    // A kind both releases serve reads as before: the older server's own paths are in the union.
    const pods = await k(['explain', '--output=plaintext-openapiv2', 'pods.spec.containers.image'], 60_000);
    expect(pods.code, pods.stderr).toBe(0);
    expect(pods.stdout).toMatch(/^FIELD:\s+image\s+<string>/m);
  });

  it(`with --faithful it fails, as straight against the older server (which has no ${NEW_ONLY} in its OpenAPI)`, async () => {
    const through = await kubectl(
      { server: faithful.url },
      join(dir, 'cache-faithful'),
    )(['explain', '--output=plaintext-openapiv2', NEW_ONLY]);
    const straight = await kubectl(
      { kubeconfig: cp.kubeconfig('kube-old') },
      join(dir, 'cache-straight'),
    )(['explain', '--output=plaintext-openapiv2', NEW_ONLY]);
    console.log(
      `--faithful: exit ${through.code}: ${through.stderr.trim()}\nstraight to the older: exit ${straight.code}: ${straight.stderr.trim()}`,
    );
    expect(through.code).not.toBe(0);
    expect(straight.code).not.toBe(0);
    // The port's aggregated /apis stays merged in both modes (P6), so kubectl finds the resource and
    // then not its schema in the older server's OpenAPI; straight, it does not find the resource at all.
    expect(through.stderr).toContain('couldn\'t find resource for "storagemigration.k8s.io/v1, Kind=StorageVersionMigration"');
    expect(straight.stderr).toContain(`the server doesn't have a resource type "${NEW_ONLY}"`);
    const own = await request(`${faithful.url}/openapi/v2`, { headers: { accept: PROTOBUF } });
    await own.body.arrayBuffer();
    expect(parseRouteHeader(String(own.headers['x-peerscope-route']))).toEqual({
      handling: names.get('kube-old'),
      answering: names.get('kube-old'),
      outcome: 'non-resource',
    });
  });

  it("the JSON and protobuf forms hold both releases' definitions, with the servers' caching headers, ETag and 304", async () => {
    const handling = names.get('kube-old');
    const json = await request(`${serve.url}/openapi/v2`, { headers: { accept: 'application/json' } });
    const doc = (await json.body.json()) as {
      info: { version: string };
      paths: Record<string, unknown>;
      definitions: Record<string, unknown>;
    };
    expect(json.statusCode).toBe(200);
    expect(parseRouteHeader(String(json.headers['x-peerscope-route']))).toEqual({ handling, answering: null, outcome: 'discovery-merged' });
    expect(json.headers['content-type']).toBe('application/json');
    expect(json.headers['cache-control']).toBe('no-cache, private');
    const own = { old: (await cp.call('kube-old', '/openapi/v2')).json(), new: (await cp.call('kube-new', '/openapi/v2')).json() } as {
      old: typeof doc;
      new: typeof doc;
    };
    // The union: every path and definition of either server, the newer release's where both define one.
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set([...Object.keys(own.old.paths), ...Object.keys(own.new.paths)])].sort());
    expect(Object.keys(doc.definitions).sort()).toEqual(
      [...new Set([...Object.keys(own.old.definitions), ...Object.keys(own.new.definitions)])].sort(),
    );
    expect(doc.definitions[NEW_ONLY_DEFINITION]).toEqual(own.new.definitions[NEW_ONLY_DEFINITION]);
    expect(doc.info).toEqual(own.new.info);
    const olderOnly = Object.keys(own.old.definitions).filter((d) => !(d in own.new.definitions));
    console.log(
      `merged: ${Object.keys(doc.paths).length} paths (older ${Object.keys(own.old.paths).length}, newer ${Object.keys(own.new.paths).length}), ` +
        `${Object.keys(doc.definitions).length} definitions; only the older's: ${olderOnly.join(', ') || 'none'}`,
    );
    for (const name of olderOnly) expect(doc.definitions[name]).toEqual(own.old.definitions[name]);

    const etag = json.headers.etag as string;
    const again = await request(`${serve.url}/openapi/v2`, { headers: { accept: 'application/json', 'if-none-match': etag } });
    await again.body.arrayBuffer();
    expect(again.statusCode).toBe(304);

    const proto = await request(`${serve.url}/openapi/v2`, { headers: { accept: PROTOBUF } });
    const bytes = Buffer.from(await proto.body.arrayBuffer());
    expect(proto.statusCode).toBe(200);
    expect(proto.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(parseRouteHeader(String(proto.headers['x-peerscope-route']))).toEqual({
      handling,
      answering: null,
      outcome: 'discovery-merged',
    });
    // Read back with the test's subset of gnostic's schema: the same names as the JSON form, in the same order.
    const fromProto = readProtobufDocument(bytes);
    expect(fromProto.pathOrder).toEqual(Object.keys(doc.paths));
    expect(fromProto.definitionOrder).toEqual(Object.keys(doc.definitions));
    expect(fromProto.definitions[NEW_ONLY_DEFINITION]).toBe((doc.definitions[NEW_ONLY_DEFINITION] as { description: string }).description);
    expect(fromProto.version).toBe(own.new.info.version);
    const protoAgain = await request(`${serve.url}/openapi/v2`, {
      headers: { accept: PROTOBUF, 'if-none-match': proto.headers.etag as string },
    });
    await protoAgain.body.arrayBuffer();
    expect(protoAgain.statusCode).toBe(304);

    // For information (not judged: the machine is shared): one real server's own answer (TLS,
    // authentication, its filters) against the port's merged one, protobuf, medians of 9.
    const times = { own: [] as number[], port: [] as number[] };
    for (let i = 0; i < 9; i++) {
      let start = performance.now();
      await cp.call('kube-old', '/openapi/v2', { headers: { accept: PROTOBUF } });
      times.own.push(performance.now() - start);
      start = performance.now();
      const r = await request(`${serve.url}/openapi/v2`, { headers: { accept: PROTOBUF } });
      await r.body.arrayBuffer();
      times.port.push(performance.now() - start);
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[4] as number;
    console.log(
      `/openapi/v2 protobuf: the older server's own ${median(times.own).toFixed(1)} ms, the port's merged ${median(times.port).toFixed(1)} ms (medians of 9; ${bytes.length} bytes merged)`,
    );
  });
});
