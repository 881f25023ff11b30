// electron-builder itself is not installed (packaging needs network), so its config is checked here:
// the settings that decide what ships and what an attacker on the operator's machine could re-enable.
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const repoFile = (path: string) => new URL(`../${path}`, import.meta.url);

const targetsOf = z.object({ target: z.array(z.string()), icon: z.string() });
const builderConfigSchema = z.object({
  appId: z.literal('dev.peerscope.app'),
  productName: z.literal('Peerscope'),
  electronVersion: z.string(),
  asar: z.literal(true),
  files: z.array(z.string()),
  extraMetadata: z.object({ main: z.string() }),
  electronFuses: z
    .object({
      runAsNode: z.literal(false),
      enableCookieEncryption: z.literal(true),
      enableNodeOptionsEnvironmentVariable: z.literal(false),
      enableNodeCliInspectArguments: z.literal(false),
      enableEmbeddedAsarIntegrityValidation: z.literal(true),
      onlyLoadAppFromAsar: z.literal(true),
      grantFileProtocolExtraPrivileges: z.literal(false),
    })
    .strict(),
  linux: targetsOf,
  mac: targetsOf,
  win: targetsOf,
});

const config = builderConfigSchema.parse(parse(readFileSync(repoFile('electron-builder.yml'), 'utf8')));
const packageJson = z
  .object({ devDependencies: z.record(z.string(), z.string()), scripts: z.record(z.string(), z.string()) })
  .parse(JSON.parse(readFileSync(repoFile('package.json'), 'utf8')));

describe('electron-builder.yml', () => {
  it('names the app and packs it into an asar archive', () => {
    expect(config.appId).toBe('dev.peerscope.app');
    expect(config.productName).toBe('Peerscope');
    expect(config.asar).toBe(true);
  });

  it('packages the Electron version the project pins', () => {
    expect(config.electronVersion).toBe('45.4.1');
    expect(packageJson.devDependencies.electron).toBe(config.electronVersion);
  });

  it('ships built output only', () => {
    expect(config.files).toEqual(['dist/electron/**', 'dist/renderer/**', 'dist/cli.mjs', 'dist/chunks/*.mjs', 'package.json']);
    expect(config.extraMetadata.main).toBe('dist/electron/main.cjs');
  });

  it('flips every security fuse', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('targets deb and tar.gz, dmg, and nsis with icons that exist', () => {
    expect(config.linux.target).toEqual(['deb', 'tar.gz']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    for (const icon of [config.linux.icon, config.mac.icon, config.win.icon]) {
      expect(icon.startsWith('assets/')).toBe(true);
      expect(existsSync(repoFile(icon))).toBe(true);
    }
    // electron-builder needs at least 512×512 for the macOS icon: read the PNG header.
    const png = readFileSync(repoFile(config.mac.icon));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(512);
    expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(512);
  });

  it('is what `npm run package` runs', () => {
    expect(packageJson.scripts.package).toBe('electron-builder --config electron-builder.yml');
  });
});
