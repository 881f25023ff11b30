import { describe, expect, it } from 'vitest';
import { compilePattern, parsePatternList, PatternError } from '../patterns.js';
import { checkRequestFilter } from './request-filter.js';

const compile = (flag: string, text: string) => parsePatternList(flag, text).map((p) => compilePattern(flag, p, false));
// kubectl proxy's own default --reject-paths.
const kubectlDefault = { rejectPaths: compile('reject-paths', '^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach'), rejectMethods: [] };

describe('request filter (--reject-paths, --reject-methods)', () => {
  it('refuses nothing by default', () => {
    expect(
      checkRequestFilter('POST', '/api/v1/namespaces/d/pods/p/exec', '/api/v1/namespaces/d/pods/p/exec', {
        rejectPaths: [],
        rejectMethods: [],
      }),
    ).toBeUndefined();
  });

  it.each([
    ['GET', '/api/v1/namespaces/d/pods/p/exec', true],
    ['POST', '/api/v1/namespaces/d/pods/p/attach', true],
    ['GET', '/api/v1/namespaces/d/pods/p/log', false],
    ['GET', '/api/v1/namespaces/d/pods/p/portforward', false],
    ['GET', '/apis/apps/v1/deployments', false],
    // Encoded: matched as decoded too.
    ['GET', '/api/v1/namespaces/d/pods/p/ex%65c', true],
  ])("kubectl's default paths: %s %s → refused %s", (method, path, refused) => {
    const decoded = decodeURIComponent(path);
    expect(checkRequestFilter(method, path, decoded, kubectlDefault) !== undefined).toBe(refused);
  });

  it('matches methods anywhere unless anchored, as kubectl does', () => {
    const filter = { rejectPaths: [], rejectMethods: compile('reject-methods', 'POST,^PUT$') };
    expect(checkRequestFilter('POST', '/api', '/api', filter)?.message).toBe(
      'the method POST is refused by the port (--reject-methods POST)',
    );
    expect(checkRequestFilter('PUT', '/api', '/api', filter)).toBeDefined();
    expect(checkRequestFilter('XPOSTX', '/api', '/api', filter)).toBeDefined();
    expect(checkRequestFilter('XPUT', '/api', '/api', filter)).toBeUndefined();
    expect(checkRequestFilter('GET', '/api', '/api', filter)).toBeUndefined();
  });

  it('refuses with a 403 Forbidden Status naming the path and the pattern', () => {
    expect(checkRequestFilter('GET', '/api/v1/namespaces/d/pods/p/exec', '/api/v1/namespaces/d/pods/p/exec', kubectlDefault)).toMatchObject(
      {
        kind: 'Status',
        code: 403,
        reason: 'Forbidden',
        message: 'the path "/api/v1/namespaces/d/pods/p/exec" is refused by the port (--reject-paths ^/api/.*/pods/.*/exec)',
      },
    );
  });

  it("reads a list as kubectl does, but an empty item is no pattern (kubectl's would match everything)", () => {
    expect(parsePatternList('reject-paths', '')).toEqual([]);
    expect(parsePatternList('reject-paths', 'a, ,b,')).toEqual(['a', 'b']);
  });

  it('names the flag and the pattern of a bad one', () => {
    expect(() => parsePatternList('reject-paths', '^/ok,^/api/(')).toThrow(PatternError);
    expect(() => parsePatternList('reject-paths', '^/ok,^/api/(')).toThrow(/^reject-paths: "\^\/api\/\(" is not a regular expression/);
  });

  it('anchors a whole-match pattern around every alternative', () => {
    const re = compilePattern('accept-origins', 'http://a|http://b', true);
    expect(['http://a', 'http://b'].map((o) => re.test(o))).toEqual([true, true]);
    expect(['http://ab', 'xhttp://b'].map((o) => re.test(o))).toEqual([false, false]);
  });
});
