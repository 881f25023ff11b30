// Writes docs/snapshot.schema.json from the zod schema, the snapshot format's single source of truth.
//   npm run schema:snapshot
import { writeFileSync } from 'node:fs';
import { snapshotJsonSchemaText } from '../proxy-core/src/snapshot/json-schema.js';

writeFileSync('docs/snapshot.schema.json', snapshotJsonSchemaText());
console.log('wrote docs/snapshot.schema.json');
