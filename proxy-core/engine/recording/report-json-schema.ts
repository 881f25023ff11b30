// The rollout report's JSON as JSON Schema, for whatever reads `peerscope recording report -o json`
// (docs/recording-report.schema.json, written by npm run schema:snapshot from the contract's zod schema).
import { z } from 'zod';
import { recordingReportSchema } from '../../contract/recording-report.js';

export function recordingReportJsonSchemaText(): string {
  const schema = z.toJSONSchema(recordingReportSchema, { target: 'draft-2020-12' });
  const doc = {
    $id: 'https://peerscope.dev/schemas/peerscope.dev-v1-RecordingReport.json',
    title: 'Peerscope RecordingReport peerscope.dev/v1',
    ...schema,
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
