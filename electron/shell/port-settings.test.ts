import { describe, expect, it } from 'vitest';
import { faithfulFromArgv, portSettingsFromArgv } from './port-settings.js';

describe("the desktop app's port settings", () => {
  it('default to refusing other origins and filtering nothing else', () => {
    expect(portSettingsFromArgv(['/opt/Peerscope/peerscope', '--no-sandbox'])).toEqual({
      acceptHosts: [],
      acceptOrigins: [],
      rejectPaths: [],
      rejectMethods: [],
    });
  });

  it("read the CLI's flags in both forms, repeatable, leaving other switches alone", () => {
    const argv = [
      'electron',
      'dist/electron/main.cjs',
      '--accept-origins',
      'https://tool\\.example',
      '--reject-paths=^/api/.*/exec,^/api/.*/attach',
      '--disable-gpu',
      '--reject-methods',
      'POST',
      '--accept-origins=http://localhost:3000',
    ];
    expect(portSettingsFromArgv(argv)).toEqual({
      acceptHosts: [],
      acceptOrigins: ['https://tool\\.example', 'http://localhost:3000'],
      rejectPaths: ['^/api/.*/exec', '^/api/.*/attach'],
      rejectMethods: ['POST'],
    });
  });

  it('read --accept-hosts as the CLI does: host names as typed, empty items dropped', () => {
    expect(
      portSettingsFromArgv(['--accept-hosts', 'peerscope.internal, ,Tools.Example:8001', '--accept-hosts=other.internal']),
    ).toMatchObject({
      acceptHosts: ['peerscope.internal', 'Tools.Example:8001', 'other.internal'],
    });
    expect(() => portSettingsFromArgv(['--accept-hosts'])).toThrow('--accept-hosts needs a value (comma-separated host names)');
  });

  it('refuse a bad pattern or a missing value, naming the flag', () => {
    expect(() => portSettingsFromArgv(['--reject-paths', '('])).toThrow(/^reject-paths: "\(" is not a regular expression/);
    expect(() => portSettingsFromArgv(['--accept-origins'])).toThrow('--accept-origins needs a value');
  });
});

describe("the desktop app's --faithful", () => {
  it('is off unless given; on with the bare flag or =true; a bad value is refused naming the flag', () => {
    expect(faithfulFromArgv(['electron', 'dist/electron/main.cjs', '--no-sandbox'])).toBe(false);
    expect(faithfulFromArgv(['electron', '--faithful', '--reject-methods', 'POST'])).toBe(true);
    expect(faithfulFromArgv(['--faithful=true'])).toBe(true);
    expect(faithfulFromArgv(['--faithful', '--faithful=false'])).toBe(false);
    expect(() => faithfulFromArgv(['--faithful=yes'])).toThrow('--faithful takes no value, or true or false (not "yes")');
    // The filter flags are read as before beside it.
    expect(portSettingsFromArgv(['--faithful', '--reject-methods', 'POST']).rejectMethods).toEqual(['POST']);
  });
});
