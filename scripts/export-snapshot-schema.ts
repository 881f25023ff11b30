// Writes docs/snapshot.schema.json, docs/impact-report.schema.json and docs/recording-report.schema.json
// from the zod schemas, the formats' single source of truth.
//   npm run schema:snapshot
import { writeFileSync } from 'node:fs';
import { impactJsonSchemaText } from '../proxy-core/engine/impact/json-schema.js';
import { recordingReportJsonSchemaText } from '../proxy-core/engine/recording/report-json-schema.js';
import { snapshotJsonSchemaText } from '../proxy-core/engine/snapshot/json-schema.js';

writeFileSync('docs/snapshot.schema.json', snapshotJsonSchemaText());
writeFileSync('docs/impact-report.schema.json', impactJsonSchemaText());
writeFileSync('docs/recording-report.schema.json', recordingReportJsonSchemaText());
console.log('wrote docs/snapshot.schema.json, docs/impact-report.schema.json and docs/recording-report.schema.json');
