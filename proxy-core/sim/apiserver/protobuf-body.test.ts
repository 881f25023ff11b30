// Protobuf request bodies as a Kubernetes client writes them, encoded here field by field with
// protobufjs' Writer (numbers from k8s.io/api's generated.proto), read by the simulator: the
// envelope, maps of strings and bytes, Time, refusals of unknown kinds and fields, and a create over HTTP.
import protobuf from 'protobufjs/minimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRelease } from '../../engine/releases/index.js';
import { startSimCluster, type SimCluster } from '../cluster.js';
import { callServer } from '../../test/sim-client.js';
import { ApiError } from './errors.js';
import { decodeProtobufDeleteOptions, decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf-body.js';

const { Writer } = protobuf;
const LEN = 2;
const VARINT = 0;

type Part = (w: protobuf.Writer) => void;
const str =
  (id: number, value: string): Part =>
  (w) =>
    w.uint32((id << 3) | LEN).string(value);
const bytes =
  (id: number, value: Uint8Array): Part =>
  (w) =>
    w.uint32((id << 3) | LEN).bytes(value);
const varint =
  (id: number, value: number): Part =>
  (w) =>
    w.uint32((id << 3) | VARINT).int64(value);
const msg =
  (id: number, ...parts: Part[]): Part =>
  (w) =>
    w.uint32((id << 3) | LEN).bytes(encode(...parts));
const entry = (id: number, key: string, value: Part): Part => msg(id, str(1, key), value);

function encode(...parts: Part[]): Uint8Array {
  const w = Writer.create();
  for (const p of parts) p(w);
  return w.finish();
}

/** "k8s\0" + runtime.Unknown{typeMeta, raw}. */
function envelope(apiVersion: string, kind: string, ...object: Part[]): Buffer {
  const unknown = encode(msg(1, str(1, apiVersion), str(2, kind)), bytes(2, encode(...object)), str(3, ''), str(4, ''));
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

// ObjectMeta as Go writes it: every non-pointer field present, empty or zero.
const objectMeta = (name: string, namespace: string, ...more: Part[]) =>
  msg(1, str(1, name), str(2, ''), str(3, namespace), str(4, ''), str(5, ''), str(6, ''), varint(7, 0), msg(8), ...more);

function refusal(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.status.code ?? 0, message: err.status.message ?? '' };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('protobuf request bodies', () => {
  it('a ConfigMap: metadata, labels, data and binaryData as JSON, empty Go fields left out', () => {
    const body = envelope(
      'v1',
      'ConfigMap',
      objectMeta('settings', 'demo', entry(11, 'app', str(2, 'web'))),
      entry(2, 'color', str(2, 'blue')),
      entry(3, 'blob', bytes(2, Uint8Array.from([0, 255]))),
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'demo', labels: { app: 'web' } },
      data: { color: 'blue' },
      binaryData: { blob: 'AP8=' },
    });
  });

  it('a Secret keeps its bytes as base64; a set creationTimestamp reads as RFC 3339', () => {
    const created = msg(8, varint(1, Date.UTC(2026, 0, 2, 3, 4, 5) / 1000));
    const body = envelope('v1', 'Secret', msg(1, str(1, 'creds'), created), entry(2, 'user', bytes(2, Buffer.from('admin'))), str(3, ''));
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', creationTimestamp: '2026-01-02T03:04:05Z' },
      data: { user: Buffer.from('admin').toString('base64') },
    });
  });

  it('a PriorityClass from scheduling.k8s.io/v1 and DeleteOptions with preconditions', () => {
    expect(decodeProtobufObject(envelope('scheduling.k8s.io/v1', 'PriorityClass', msg(1, str(1, 'high')), varint(2, 1000)))).toEqual({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'high' },
      value: 1000,
    });
    expect(decodeProtobufDeleteOptions(envelope('v1', 'DeleteOptions', msg(2, str(1, 'u-1'))))).toEqual({ preconditions: { uid: 'u-1' } });
  });

  it('a kind the simulator declares no message for is refused with 415, naming it and what it reads', () => {
    const r = refusal(() => decodeProtobufObject(envelope('policy/v1', 'PodDisruptionBudget', msg(1, str(1, 'pdb')))));
    expect(r.code).toBe(415);
    expect(r.message).toContain('not policy/v1 PodDisruptionBudget; send it as JSON');
    expect(r.message).toContain('v1 ConfigMap');
  });

  it('a value in a field the schema does not declare is refused, not dropped; an empty one passes', () => {
    const r = refusal(() => decodeProtobufObject(envelope('v1', 'ConfigMap', msg(1, str(1, 'x'), str(99, 'surprise')))));
    expect(r.code).toBe(415);
    expect(r.message).toBe('the simulated apiserver does not read ObjectMeta field 99 of a protobuf v1 ConfigMap; send it as JSON');
    // Go writes zero values of fields the schema leaves out (here ConfigMap 9 and ObjectMeta 15).
    expect(decodeProtobufObject(envelope('v1', 'ConfigMap', msg(1, str(1, 'x'), varint(15, 0)), str(9, '')))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x' },
    });
  });

  it('a Deployment as kubectl create deployment writes it: selector, template, quantities, int-or-string', () => {
    const container = msg(2, str(1, 'web'), str(2, 'nginx'), msg(8, entry(1, 'cpu', msg(2, str(1, '100m')))), str(15, ''));
    const template = msg(3, msg(1, entry(11, 'app', str(2, 'web'))), msg(2, container, str(3, ''), varint(11, 0)));
    const strategy = msg(4, str(1, 'RollingUpdate'), msg(2, msg(1, varint(1, 0), varint(2, 0)), msg(2, varint(1, 1), str(3, '25%'))));
    const spec = msg(2, varint(1, 2), msg(2, entry(1, 'app', str(2, 'web'))), template, strategy);
    expect(decodeProtobufObject(envelope('apps/v1', 'Deployment', msg(1, str(1, 'web')), spec, msg(3)))).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx', resources: { limits: { cpu: '100m' } } }] },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } },
      },
    });
  });

  it('a body without the k8s\\0 prefix is a 400', () => {
    expect(refusal(() => decodeProtobufObject(Buffer.from('{"kind":"ConfigMap"}'))).code).toBe(400);
  });
});

describe('protobuf bodies over HTTP', () => {
  let cluster: SimCluster;
  beforeAll(async () => {
    cluster = await startSimCluster({ releases: [loadRelease('v1.37-dev')] });
  });
  afterAll(() => cluster?.close());

  it('POST of a protobuf Namespace creates it Active; a JSON GET reads it back', async () => {
    const url = cluster.servers[0]?.info().url as string;
    const created = await callServer(cluster, url, '/api/v1/namespaces', {
      method: 'POST',
      headers: { 'content-type': PROTOBUF_MEDIA_TYPE, accept: `${PROTOBUF_MEDIA_TYPE}, application/json` },
      body: envelope('v1', 'Namespace', objectMeta('proto', ''), msg(2), msg(3)),
    });
    expect(created.status, created.body).toBe(201);
    expect(created.headers['content-type']).toBe('application/json');
    const read = await callServer(cluster, url, '/api/v1/namespaces/proto');
    expect(read.json()).toMatchObject({
      kind: 'Namespace',
      metadata: { name: 'proto', labels: { 'kubernetes.io/metadata.name': 'proto' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  });
});
