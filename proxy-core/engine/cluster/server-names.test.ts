// The names a person types for a server resolve to its identity, whichever of its names they type.
import { describe, expect, it } from 'vitest';
import { ServerNames } from './server-names.js';

const sim = new ServerNames([
  { name: 'apiserver-sim-1', hostname: 'sim-1' },
  { name: 'apiserver-sim-2', hostname: 'sim-2' },
]);
const real = new ServerNames([
  { name: 'apiserver-fa6myrjs6maza5o5onsvobwkha', hostname: 'cp-1' },
  { name: 'apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu', hostname: 'cp-1' },
  { name: 'apiserver-3yn5khg7gqdykwzdcmsqvc7534', hostname: 'cp-2' },
  { name: 'extra' },
]);

describe('ServerNames', () => {
  it('takes the host name the screens print and the lease name alike', () => {
    expect(sim.resolve('sim-2', '--audit-log')).toBe('apiserver-sim-2');
    expect(sim.resolve('apiserver-sim-2', '--audit-log')).toBe('apiserver-sim-2');
    expect(real.resolve('cp-2', '--audit-log')).toBe('apiserver-3yn5khg7gqdykwzdcmsqvc7534');
    expect(real.resolve('extra', '--audit-log')).toBe('extra');
  });

  it('takes a told-apart name as the screens print it, and a unique start of a lease name', () => {
    expect(real.resolve('cp-1 (q3ovcb)', '--x')).toBe('apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu');
    expect(real.resolve('apiserver-fa6myr', '--x')).toBe('apiserver-fa6myrjs6maza5o5onsvobwkha');
    expect(real.resolve('fa6myr', '--x')).toBe('apiserver-fa6myrjs6maza5o5onsvobwkha');
    // Too short a piece is no name.
    expect(real.candidates('fa6')).toEqual([]);
  });

  it('an unknown name is an error under the flag listing the servers as the screens print them, with their lease names', () => {
    expect(() => sim.resolve('sim-3', '--audit-log sim-3=a.log')).toThrowError(
      '--audit-log sim-3=a.log: no server is named "sim-3" (servers: sim-1 (apiserver-sim-1), sim-2 (apiserver-sim-2))',
    );
    expect(() => new ServerNames([]).resolve('x', '--x')).toThrowError('no server is named "x" (servers: none known)');
  });

  it('a host name two servers share is ambiguous: the error names both and asks for the lease name', () => {
    expect(() => real.resolve('cp-1', '--x')).toThrowError(
      /"cp-1" names several servers: cp-1 \(fa6myr\) \(apiserver-fa6myrjs6maza5o5onsvobwkha\), cp-1 \(q3ovcb\) \(apiserver-q3ovcbhxkbbmbn5uhu4mrkaqsu\); give the lease name/,
    );
  });

  it('prints a server by its shown name, and "host name (lease name)" where the identity matters', () => {
    expect(sim.shownName('apiserver-sim-1')).toBe('sim-1');
    expect(sim.labelled('apiserver-sim-1')).toBe('sim-1 (apiserver-sim-1)');
    expect(real.labelled('extra')).toBe('extra');
    expect(sim.shownName('gone')).toBe('gone');
  });
});
