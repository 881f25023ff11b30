// Every way a person names a release names the catalog's release of that minor.
import { describe, expect, it } from 'vitest';
import { bundledReleaseNames } from './index.js';
import { canonicalRelease, resolveRelease, sameMinor } from './release-names.js';

const catalog = bundledReleaseNames();

describe('release names', () => {
  it('prints one form', () => {
    expect(canonicalRelease('v1.37.0-dev')).toBe('v1.37-dev');
    expect(canonicalRelease('v1.37-dev')).toBe('v1.37-dev');
    expect(canonicalRelease('1.37')).toBe('v1.37');
    expect(canonicalRelease('v1.37.2')).toBe('v1.37.2');
    expect(canonicalRelease('v1.37.2+abc')).toBe('v1.37.2');
    expect(canonicalRelease('v1.37.1-rc.1')).toBe('v1.37.1-rc.1');
    expect(canonicalRelease('edge')).toBe('edge');
    expect(sameMinor('v1.37.2', 'v1.37-dev')).toBe(true);
    expect(sameMinor('v1.36.2', 'v1.37-dev')).toBe(false);
  });

  it('v1.37.0-dev, v1.37-dev, 1.37, v1.37 and v1.37.2 all name the catalog release of 1.37', () => {
    expect(catalog).toContain('v1.37-dev');
    for (const typed of ['v1.37.0-dev', 'v1.37-dev', '1.37', 'v1.37', 'v1.37.2'])
      expect(resolveRelease(typed, catalog, '--to').release).toBe('v1.37-dev');
  });

  it('a patch release maps to the running servers of that release, and the note says what was judged against', () => {
    const choice = resolveRelease('v1.37.2', catalog, '--to', [
      { name: 'cp-1', gitVersion: 'v1.36.3' },
      { name: 'cp-2', gitVersion: 'v1.37.2' },
    ]);
    expect(choice.servers).toEqual(['cp-2']);
    expect(choice.note).toBe("v1.37.2 (run by cp-2) judged against the catalog's v1.37-dev, its minor's release");
    expect(resolveRelease('v1.37-dev', catalog, '--to').note).toBe('judged against v1.37-dev');
  });

  it('an unknown release is an error under the flag listing the catalog', () => {
    expect(() => resolveRelease('v9.99', catalog, 'to=v9.99')).toThrowError(
      'to=v9.99: unknown release "v9.99"; the catalog has v1.36-dev, v1.37-dev',
    );
    expect(() => resolveRelease('nope', catalog, '--to')).toThrowError(/unknown release "nope"/);
  });
});
