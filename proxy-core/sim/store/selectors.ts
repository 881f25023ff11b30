// Label and field selectors as kube-apiserver parses them (k8s.io/apimachinery/pkg/labels and
// pkg/fields): `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`; fields on
// metadata.name, metadata.namespace and the labels each resource adds (field-labels.ts).
import type { KubeObject } from './store.js';
import { PeerscopeError } from '../../contract/errors.js';
import { fieldLabel } from './field-labels.js';

export class SelectorError extends PeerscopeError {
  override readonly name = 'SelectorError';
  constructor(message: string) {
    super('PEERSCOPE_ERR_SIM_SELECTOR', message);
  }
}

type Requirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'notexists'; key: string };

export type ObjectPredicate = (obj: KubeObject) => boolean;

/** Splits on commas that are not inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms.map((t) => t.trim()).filter((t) => t.length > 0);
}

function parseLabelTerm(term: string): Requirement {
  let m = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (m)
    return {
      op: m[2] as 'in' | 'notin',
      key: m[1] as string,
      values: (m[3] as string)
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    };
  m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(term);
  if (m) return { op: m[2] === '!=' ? 'neq' : 'eq', key: m[1] as string, value: m[3] as string };
  m = /^!\s*([^\s!=(),]+)$/.exec(term);
  if (m) return { op: 'notexists', key: m[1] as string };
  m = /^([^\s!=(),]+)$/.exec(term);
  if (m) return { op: 'exists', key: m[1] as string };
  throw new SelectorError(`unable to parse requirement: "${term}"`);
}

function matchesRequirement(labels: Record<string, string>, r: Requirement): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key];
  switch (r.op) {
    case 'eq':
      return has && value === r.value;
    case 'neq':
      return !has || value !== r.value;
    case 'in':
      return has && r.values.includes(value as string);
    case 'notin':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case 'notexists':
      return !has;
  }
}

/** A predicate for `labelSelector`; throws SelectorError on a malformed selector. */
export function parseLabelSelector(selector: string | null | undefined): ObjectPredicate {
  if (!selector) return () => true;
  const requirements = splitTerms(selector).map(parseLabelTerm);
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    return requirements.every((r) => matchesRequirement(labels, r));
  };
}

/**
 * A predicate for `fieldSelector` on `groupResource` ("/pods", "apps/replicasets"); throws
 * SelectorError on a field label that resource does not support or a bad term.
 */
export function parseFieldSelector(selector: string | null | undefined, groupResource?: string): ObjectPredicate {
  if (!selector) return () => true;
  const tests = splitTerms(selector).map((term) => {
    const m = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw new SelectorError(`invalid selector: '${term}'; can't understand '${term}'`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    const getter = fieldLabel(groupResource, field);
    if (!getter) throw new SelectorError(`field label not supported: ${field}`);
    return (obj: KubeObject) => (op === '!=' ? getter(obj) !== value.trim() : getter(obj) === value.trim());
  });
  return (obj) => tests.every((t) => t(obj));
}
