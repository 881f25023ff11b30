import { describe, expect, it } from 'vitest';
import { portSettingsFromArgv } from './port-settings.js';

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
