// kubectl proxy's --reject-paths and --reject-methods on the local port: a request whose method, or
// whose path, a pattern matches (anywhere, as kubectl matches) is refused with a 403 Status before it
// reaches an apiserver. The path is matched as sent and as decoded (kubectl matches Go's decoded
// URL.Path), so percent-encoding cannot slip a refused path past a pattern. Default: no pattern, so
// `kubectl exec` and `attach` keep working through the port (kubectl proxy refuses them by default).
import { failure, type Status } from '../../util/status.js';

export interface RequestFilter {
  readonly rejectPaths: readonly RegExp[];
  readonly rejectMethods: readonly RegExp[];
}

export function checkRequestFilter(
  method: string,
  path: string,
  decodedPath: string | undefined,
  filter: RequestFilter,
): Status | undefined {
  for (const re of filter.rejectMethods) {
    if (re.test(method)) return failure(403, 'Forbidden', `the method ${method} is refused by the port (--reject-methods ${shown(re)})`);
  }
  for (const re of filter.rejectPaths) {
    if (re.test(path) || (decodedPath !== undefined && re.test(decodedPath))) {
      return failure(
        403,
        'Forbidden',
        `the path ${JSON.stringify(path.slice(0, 200))} is refused by the port (--reject-paths ${shown(re)})`,
      );
    }
  }
  return undefined;
}

/** The pattern as the operator wrote it (RegExp.source escapes every slash). */
function shown(re: RegExp): string {
  return re.source.replace(/\\\//g, '/');
}
