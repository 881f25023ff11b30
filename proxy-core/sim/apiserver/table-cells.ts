// The pieces kube-apiserver's printers build their columns and cells from, shared by the printers of
// table-printers.ts and table-printers-workloads.ts: column definitions, field reads, counts, the
// `<none>` convention and label selectors as text.
import type { KubeObject } from '../store/store.js';
import { isPlainObject } from './objects.js';

export interface ColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

export interface Printer {
  readonly columns: readonly ColumnDefinition[];
  cells(o: KubeObject, now: number): unknown[];
}

export function column(name: string, type: string, description: string, priority = 0): ColumnDefinition {
  return { name, type, format: name === 'Name' ? 'name' : '', description, priority };
}

export const NAME = column('Name', 'string', 'Name must be unique within a namespace.');
export const AGE = column('Age', 'string', 'The time since the object was created.');

export type Json = Record<string, unknown>;

export function field(o: unknown, ...path: string[]): unknown {
  let at: unknown = o;
  for (const key of path) at = isPlainObject(at) ? at[key] : undefined;
  return at;
}

export function count(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return isPlainObject(value) ? Object.keys(value).length : 0;
}

export function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' ? value : fallback;
}

export function text(value: unknown, none = '<none>'): string {
  return typeof value === 'string' && value !== '' ? value : none;
}

export function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** `k=v,k2=v2` of a label selector's matchLabels (and the plain map of a Service's selector). */
export function selectorText(selector: unknown): string {
  const labels = isPlainObject(field(selector, 'matchLabels')) ? field(selector, 'matchLabels') : selector;
  if (!isPlainObject(labels) || Object.keys(labels).length === 0) return '<none>';
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${String(labels[k])}`)
    .join(',');
}

export function containerCells(podSpec: unknown): [string, string] {
  const containers = list(field(podSpec, 'containers'));
  return [containers.map((c) => text(c.name, '')).join(','), containers.map((c) => text(c.image, '')).join(',')];
}
