import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate, type MenuActions, type MenuState } from './menu.js';

const actions = (): MenuActions => ({
  openKubeconfig: vi.fn(),
  startSimulatedCluster: vi.fn(),
  exportSnapshot: vi.fn(),
  importSnapshot: vi.fn(),
  openAuditLog: vi.fn(),
  receiveAuditEvents: vi.fn(),
  cancelAuditRead: vi.fn(),
  toggleDiscoveryMode: vi.fn(),
  copyPortAddress: vi.fn(),
});
const state: MenuState = { portAddress: 'http://127.0.0.1:8001', discoveryMode: 'peer-aggregated', platform: 'linux', devTools: false };

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? items(item.submenu) : [])]);
}
const byLabel = (template: MenuItemConstructorOptions[], prefix: string) => items(template).find((i) => i.label?.startsWith(prefix));
const click = (item: MenuItemConstructorOptions | undefined) => (item?.click as (() => void) | undefined)?.();

describe('application menu', () => {
  it('offers every operator action and calls it on click', () => {
    const a = actions();
    const template = buildMenuTemplate(state, a);
    const expected: [string, keyof MenuActions][] = [
      ['Open kubeconfig… / choose context', 'openKubeconfig'],
      ['Start simulated cluster', 'startSimulatedCluster'],
      ['Export snapshot…', 'exportSnapshot'],
      ['Import snapshot…', 'importSnapshot'],
      ['Open audit log…', 'openAuditLog'],
      ['Receive audit events…', 'receiveAuditEvents'],
      ['Peer-aggregated discovery', 'toggleDiscoveryMode'],
      ['Copy local port address', 'copyPortAddress'],
    ];
    for (const [label, action] of expected) {
      click(byLabel(template, label));
      expect(a[action]).toHaveBeenCalledTimes(1);
    }
  });

  it('shows the local port address', () => {
    const template = buildMenuTemplate(state, actions());
    expect(byLabel(template, 'Local port:')?.label).toBe('Local port: http://127.0.0.1:8001');
    expect(byLabel(template, 'Copy local port address')?.label).toBe('Copy local port address (http://127.0.0.1:8001)');
  });

  it('disables copying before the port listens', () => {
    const template = buildMenuTemplate({ ...state, portAddress: undefined }, actions());
    expect(byLabel(template, 'Local port:')?.label).toBe('Local port: not listening');
    expect(byLabel(template, 'Copy local port address')?.enabled).toBe(false);
  });

  it('offers to cancel an audit log read only while one is under way', () => {
    const a = actions();
    expect(byLabel(buildMenuTemplate(state, a), 'Cancel audit log read')?.enabled).toBe(false);
    const reading = buildMenuTemplate({ ...state, auditReading: true }, a);
    expect(byLabel(reading, 'Cancel audit log read')?.enabled).toBe(true);
    click(byLabel(reading, 'Cancel audit log read'));
    expect(a.cancelAuditRead).toHaveBeenCalledTimes(1);
  });

  it('checks the discovery toggle in peer-aggregated mode only', () => {
    expect(byLabel(buildMenuTemplate(state, actions()), 'Peer-aggregated')?.checked).toBe(true);
    expect(byLabel(buildMenuTemplate({ ...state, discoveryMode: 'nopeer' }, actions()), 'Peer-aggregated')?.checked).toBe(false);
  });

  it('offers devtools only when allowed, and the macOS app menu on macOS', () => {
    const roles = (t: MenuItemConstructorOptions[]) =>
      items(t)
        .map((i) => i.role)
        .filter(Boolean);
    expect(roles(buildMenuTemplate(state, actions()))).not.toContain('toggleDevTools');
    expect(roles(buildMenuTemplate({ ...state, devTools: true }, actions()))).toContain('toggleDevTools');
    expect(buildMenuTemplate({ ...state, platform: 'darwin' }, actions())[0]?.role).toBe('appMenu');
  });
});
