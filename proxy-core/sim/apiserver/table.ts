// meta.k8s.io Table answers (`Accept: application/json;as=Table;…`), what kubectl get prints: the
// columns kube-apiserver's printer for the resource has (table-printers.ts), or its default table
// convertor's Name / Created At for a resource without one, as for custom resources.
import type { KubeObject } from '../store/store.js';
import { present, type ResponseForm } from './objects.js';
import type { ResourceRequest } from './request-info.js';
import { printerFor, type ColumnDefinition } from './table-printers.js';

const DEFAULT_COLUMNS: readonly ColumnDefinition[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
  {
    name: 'Created At',
    type: 'date',
    format: '',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    priority: 0,
  },
];

function defaultCells(o: KubeObject): unknown[] {
  return [o.metadata.name, o.metadata.creationTimestamp];
}

/** A Table of `objects`; `withColumns` false for a watch event after the first, as kube-apiserver sends them. */
export function toTable(
  objects: readonly KubeObject[],
  rr: ResourceRequest,
  form: Extract<ResponseForm, { kind: 'table' }>,
  includeObject: string | null,
  resourceVersion: string,
  withColumns = true,
): Record<string, unknown> {
  const printer = printerFor(rr.group, rr.resource);
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${form.version}`,
    metadata: { resourceVersion },
    columnDefinitions: withColumns ? (printer?.columns ?? DEFAULT_COLUMNS) : null,
    rows: objects.map((o) => {
      const row: Record<string, unknown> = { cells: printer ? printer.cells(o, now) : defaultCells(o) };
      if (includeObject === 'Object') row.object = present(o, rr);
      else if (includeObject !== 'None')
        row.object = { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${form.version}`, metadata: o.metadata };
      return row;
    }),
  };
}
