// Small OpenAPI v2 documents for the tests of the merged /openapi/v2 (rule P8), in both forms
// kube-apiserver serves: JSON, and gnostic's `openapi.v2.Document` protobuf. The protobuf form is
// encoded and decoded with protobufjs from a subset of that schema written here by field number
// (only the fields these documents use), so tests read the merged bytes as a client would.
import protobuf from 'protobufjs';

const root = protobuf.Root.fromJSON({
  nested: {
    openapi: {
      nested: {
        v2: {
          nested: {
            Document: {
              fields: {
                swagger: { type: 'string', id: 1 },
                info: { type: 'Info', id: 2 },
                paths: { type: 'Paths', id: 8 },
                definitions: { type: 'Definitions', id: 9 },
                parameters: { type: 'ParameterDefinitions', id: 10 },
              },
            },
            Info: { fields: { title: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
            Paths: {
              fields: {
                vendorExtension: { rule: 'repeated', type: 'NamedAny', id: 1 },
                path: { rule: 'repeated', type: 'NamedPathItem', id: 2 },
              },
            },
            NamedAny: { fields: { name: { type: 'string', id: 1 }, value: { type: 'Any', id: 2 } } },
            Any: { fields: { yaml: { type: 'string', id: 2 } } },
            NamedPathItem: { fields: { name: { type: 'string', id: 1 }, value: { type: 'PathItem', id: 2 } } },
            PathItem: {
              fields: {
                ref: { type: 'string', id: 1 },
                get: { type: 'Operation', id: 2 },
                put: { type: 'Operation', id: 3 },
                post: { type: 'Operation', id: 4 },
                delete: { type: 'Operation', id: 5 },
                patch: { type: 'Operation', id: 8 },
              },
            },
            Operation: {
              fields: {
                tags: { rule: 'repeated', type: 'string', id: 1 },
                description: { type: 'string', id: 3 },
                operationId: { type: 'string', id: 5 },
                consumes: { rule: 'repeated', type: 'string', id: 7 },
              },
            },
            Definitions: { fields: { additionalProperties: { rule: 'repeated', type: 'NamedSchema', id: 1 } } },
            NamedSchema: { fields: { name: { type: 'string', id: 1 }, value: { type: 'Schema', id: 2 } } },
            Schema: {
              fields: {
                ref: { type: 'string', id: 1 },
                title: { type: 'string', id: 3 },
                description: { type: 'string', id: 4 },
                required: { rule: 'repeated', type: 'string', id: 19 },
                type: { type: 'TypeItem', id: 22 },
                properties: { type: 'Properties', id: 25 },
              },
            },
            TypeItem: { fields: { value: { rule: 'repeated', type: 'string', id: 1 } } },
            Properties: { fields: { additionalProperties: { rule: 'repeated', type: 'NamedSchema', id: 1 } } },
            ParameterDefinitions: { fields: { additionalProperties: { rule: 'repeated', type: 'NamedParameter', id: 1 } } },
            NamedParameter: { fields: { name: { type: 'string', id: 1 } } },
          },
        },
      },
    },
  },
});
const Document = root.lookupType('openapi.v2.Document');

/** A document as the tests describe it: each path and definition by name, with a description that tells whose it is. */
export interface SmallDocument {
  readonly version: string;
  /** Path → the server that wrote it (kept as the path item's `$ref`, so a test can tell whose won). */
  readonly paths: Readonly<Record<string, string>>;
  /** Definition name → its description. */
  readonly definitions: Readonly<Record<string, string>>;
  readonly parameters?: readonly string[];
  /** A vendor extension of `paths` (protobuf only): name → YAML. */
  readonly pathExtensions?: Readonly<Record<string, string>>;
}

export function jsonDocument(d: SmallDocument): string {
  return JSON.stringify({
    swagger: '2.0',
    info: { title: 'Kubernetes', version: d.version },
    paths: Object.fromEntries(Object.entries(d.paths).map(([p, by]) => [p, { $ref: by }])),
    definitions: Object.fromEntries(Object.entries(d.definitions).map(([n, desc]) => [n, { description: desc }])),
    ...(d.parameters ? { parameters: Object.fromEntries(d.parameters.map((p) => [p, { name: p, in: 'query' }])) } : {}),
    security: [{ BearerToken: [] }],
  });
}

export function protobufDocument(d: SmallDocument): Buffer {
  const message = Document.fromObject({
    swagger: '2.0',
    info: { title: 'Kubernetes', version: d.version },
    paths: {
      vendorExtension: Object.entries(d.pathExtensions ?? {}).map(([name, yaml]) => ({ name, value: { yaml } })),
      path: Object.entries(d.paths).map(([name, by]) => ({ name, value: { ref: by } })),
    },
    definitions: { additionalProperties: Object.entries(d.definitions).map(([name, description]) => ({ name, value: { description } })) },
    ...(d.parameters ? { parameters: { additionalProperties: d.parameters.map((name) => ({ name })) } } : {}),
  });
  return Buffer.from(Document.encode(message).finish());
}

/**
 * Any document of the fields above, from its JSON form (`$ref` and `type` as kube-openapi writes
 * them), to the protobuf form a server would serve beside it. For documents the tests and the bench
 * generate; fields outside the subset are left out.
 */
export function protobufOf(json: {
  info: { title: string; version: string };
  paths: Record<string, Record<string, { tags?: string[]; description?: string; operationId?: string; consumes?: string[] }>>;
  definitions: Record<string, JsonSchema>;
}): Buffer {
  const schema = (s: JsonSchema): unknown => ({
    ref: s.$ref,
    description: s.description,
    required: s.required,
    type: s.type ? { value: [s.type] } : undefined,
    properties: s.properties
      ? { additionalProperties: Object.entries(s.properties).map(([name, value]) => ({ name, value: schema(value) })) }
      : undefined,
  });
  const message = Document.fromObject({
    swagger: '2.0',
    info: json.info,
    paths: { path: Object.entries(json.paths).map(([name, value]) => ({ name, value })) },
    definitions: { additionalProperties: Object.entries(json.definitions).map(([name, value]) => ({ name, value: schema(value) })) },
  });
  return Buffer.from(Document.encode(message).finish());
}

export interface JsonSchema {
  readonly $ref?: string;
  readonly description?: string;
  readonly type?: string;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
}

/** What a protobuf document says, back in SmallDocument's terms (entries in the order written). */
export function readProtobufDocument(
  bytes: Uint8Array,
): SmallDocument & { readonly pathOrder: string[]; readonly definitionOrder: string[] } {
  const doc = Document.toObject(Document.decode(bytes), { defaults: false }) as {
    info?: { version?: string };
    paths?: { path?: { name: string; value?: { ref?: string } }[]; vendorExtension?: { name: string; value?: { yaml?: string } }[] };
    definitions?: { additionalProperties?: { name: string; value?: { description?: string } }[] };
    parameters?: { additionalProperties?: { name: string }[] };
  };
  const paths = doc.paths?.path ?? [];
  const definitions = doc.definitions?.additionalProperties ?? [];
  return {
    version: doc.info?.version ?? '',
    paths: Object.fromEntries(paths.map((p) => [p.name, p.value?.ref ?? ''])),
    definitions: Object.fromEntries(definitions.map((s) => [s.name, s.value?.description ?? ''])),
    parameters: (doc.parameters?.additionalProperties ?? []).map((p) => p.name),
    pathExtensions: Object.fromEntries((doc.paths?.vendorExtension ?? []).map((e) => [e.name, e.value?.yaml ?? ''])),
    pathOrder: paths.map((p) => p.name),
    definitionOrder: definitions.map((s) => s.name),
  };
}

/** The same, from the JSON form. */
export function readJsonDocument(text: string): SmallDocument & { readonly pathOrder: string[]; readonly definitionOrder: string[] } {
  const doc = JSON.parse(text) as {
    info: { version: string };
    paths: Record<string, { $ref: string }>;
    definitions: Record<string, { description: string }>;
    parameters?: Record<string, unknown>;
  };
  return {
    version: doc.info.version,
    paths: Object.fromEntries(Object.entries(doc.paths).map(([p, v]) => [p, v.$ref])),
    definitions: Object.fromEntries(Object.entries(doc.definitions).map(([n, v]) => [n, v.description])),
    parameters: Object.keys(doc.parameters ?? {}),
    pathOrder: Object.keys(doc.paths),
    definitionOrder: Object.keys(doc.definitions),
  };
}

/** Two releases as kube-apiserver 1.36 and 1.37 differ: the newer adds a group and changes a shared definition. */
export const OLDER: SmallDocument = {
  version: '1.36',
  paths: { '/api/v1/pods': 'old', '/apis/apps/v1/deployments': 'old', '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas': 'old' },
  definitions: {
    'io.k8s.api.core.v1.Pod': 'Pod (1.36)',
    'io.k8s.api.apps.v1.Deployment': 'Deployment (1.36)',
    'io.k8s.api.flowcontrol.v1beta3.FlowSchema': 'FlowSchema v1beta3 (only 1.36)',
  },
  parameters: ['body-2Y1dVQaQ', 'old-only-param'],
  pathExtensions: { 'x-old': 'old' },
};
export const NEWER: SmallDocument = {
  version: '1.37',
  paths: { '/api/v1/pods': 'new', '/apis/apps/v1/deployments': 'new', '/apis/storagemigration.k8s.io/v1/storageversionmigrations': 'new' },
  definitions: {
    'io.k8s.api.core.v1.Pod': 'Pod (1.37)',
    'io.k8s.api.apps.v1.Deployment': 'Deployment (1.37)',
    'io.k8s.api.storagemigration.v1.StorageVersionMigration': 'StorageVersionMigration (only 1.37)',
  },
  parameters: ['body-2Y1dVQaQ'],
  pathExtensions: { 'x-new': 'new' },
};

/** What merging OLDER and NEWER must give, in either form. */
export const MERGED_PATHS = {
  '/api/v1/pods': 'new',
  '/apis/apps/v1/deployments': 'new',
  '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas': 'old',
  '/apis/storagemigration.k8s.io/v1/storageversionmigrations': 'new',
};
export const MERGED_DEFINITIONS = {
  'io.k8s.api.apps.v1.Deployment': 'Deployment (1.37)',
  'io.k8s.api.core.v1.Pod': 'Pod (1.37)',
  'io.k8s.api.flowcontrol.v1beta3.FlowSchema': 'FlowSchema v1beta3 (only 1.36)',
  'io.k8s.api.storagemigration.v1.StorageVersionMigration': 'StorageVersionMigration (only 1.37)',
};
