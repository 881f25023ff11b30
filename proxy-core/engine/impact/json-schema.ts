// The upgrade-impact report's JSON as JSON Schema, for CI pipelines that read `peerscope report
// --output json` (docs/impact-report.schema.json, written by npm run schema:snapshot).
import { z } from 'zod';
import { impactReportSchema } from '../../contract/impact.js';

export function impactJsonSchemaText(): string {
  const schema = z.toJSONSchema(impactReportSchema, { target: 'draft-2020-12' });
  const doc = {
    $id: 'https://peerscope.dev/schemas/peerscope.dev-v1-ImpactReport.json',
    title: 'Peerscope ImpactReport peerscope.dev/v1',
    ...schema,
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
