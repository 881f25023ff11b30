// The local port's filters as flags, declared once: every command that hosts the port (serve, demo:
// cli/port-filters.ts) and the desktop app (electron/shell/port-settings.ts) read this table, so a
// filter added here is a flag of both. The names are kubectl proxy's. Each flag takes a
// comma-separated list and may be repeated (the lists add up); a bad item throws naming the flag.
import { parsePatternList } from './patterns.js';

export interface PortFilterFlag {
  /** The flag without its dashes. */
  readonly name: 'accept-hosts' | 'accept-origins' | 'reject-paths' | 'reject-methods';
  /** The field of the core's PortFilters (core.ts) it fills. */
  readonly option: 'acceptHosts' | 'acceptOrigins' | 'rejectPaths' | 'rejectMethods';
  /** What the value is, as --help shows it, and its items in words. */
  readonly value: '<hosts>' | '<regexes>';
  readonly items: 'host names' | 'regular expressions';
  readonly help: string;
  /** One value of the flag as its items. */
  readonly read: (value: string) => string[];
}

export const PORT_FILTER_FLAGS: readonly PortFilterFlag[] = [
  {
    name: 'accept-hosts',
    option: 'acceptHosts',
    value: '<hosts>',
    items: 'host names',
    help: 'comma-separated extra Host header values the port accepts',
    read: hostList,
  },
  {
    name: 'accept-origins',
    option: 'acceptOrigins',
    value: '<regexes>',
    items: 'regular expressions',
    help: 'comma-separated regular expressions, each matched against the whole Origin header: browser pages of these origins may use the port (every other request a browser marks as from another site is refused)',
    read: (value) => parsePatternList('accept-origins', value),
  },
  {
    name: 'reject-paths',
    option: 'rejectPaths',
    value: '<regexes>',
    items: 'regular expressions',
    help: "comma-separated regular expressions (matched anywhere in the path, as kubectl proxy's): requests to a matching path are refused (kubectl proxy refuses ^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach by default)",
    read: (value) => parsePatternList('reject-paths', value),
  },
  {
    name: 'reject-methods',
    option: 'rejectMethods',
    value: '<regexes>',
    items: 'regular expressions',
    help: 'comma-separated regular expressions: requests with a matching method are refused (for example ^POST$,^PUT$,^PATCH$,^DELETE$)',
    read: (value) => parsePatternList('reject-methods', value),
  },
];

/** Host names as typed (compared without case, steps/admit.ts); an empty item is no name. */
function hostList(value: string): string[] {
  return value
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
}

/** Each filter's items, by the PortFilters field it fills: empty lists to start from. */
export function emptyPortFilters(): Record<PortFilterFlag['option'], string[]> {
  return { acceptHosts: [], acceptOrigins: [], rejectPaths: [], rejectMethods: [] };
}
