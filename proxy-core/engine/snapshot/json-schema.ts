// The snapshot format as JSON Schema, for people and other tools (docs/snapshot.schema.json).
import { z } from 'zod';
import { SNAPSHOT_API_VERSION, routingSnapshotSchema } from '../../contract/snapshot.js';

export function snapshotJsonSchemaText(): string {
  const schema = z.toJSONSchema(routingSnapshotSchema, { target: 'draft-2020-12' });
  const doc = {
    $id: `https://peerscope.dev/schemas/${SNAPSHOT_API_VERSION.replace('/', '-')}.json`,
    title: `Peerscope RoutingSnapshot ${SNAPSHOT_API_VERSION}`,
    ...schema,
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
