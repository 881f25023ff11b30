import { describe, expect, it } from 'vitest';
import { portSettingsFromArgv } from './port-settings.js';

describe("the desktop app's port settings", () => {
  it('default to refusing other origins and filtering nothing else', () => {
    expect(portSettingsFromArgv(['/opt/Peerscope/peerscope', '--no-sandbox'])).toEqual({
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
      acceptOrigins: ['https://tool\\.example', 'http://localhost:3000'],
      rejectPaths: ['^/api/.*/exec', '^/api/.*/attach'],
      rejectMethods: ['POST'],
    });
  });

  it('refuse a bad pattern or a missing value, naming the flag', () => {
    expect(() => portSettingsFromArgv(['--reject-paths', '('])).toThrow(/^reject-paths: "\(" is not a regular expression/);
    expect(() => portSettingsFromArgv(['--accept-origins'])).toThrow('--accept-origins needs a value');
  });
});
