// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs, renderWithClient } from '../../test/render.js';
import { lastMinuteRates } from './ClusterRates.js';
import { ServerHealth } from './ServerHealth.js';

beforeAll(installLayoutStubs);
afterEach(cleanup);

const MINUTE = 60_000;

describe('what each server answered, from its audit log, on Server health', () => {
  it('rates: the last full minute (zero when nothing came in it), else the current minute so far', () => {
    const now = 10 * MINUTE + 20_000;
    const minutes = [
      { at: 8 * MINUTE, requests: 50, errors: 0, false404s: 0 },
      { at: 9 * MINUTE, requests: 240, errors: 2, false404s: 7 },
      { at: 10 * MINUTE, requests: 30, errors: 0, false404s: 1 },
    ];
    expect(lastMinuteRates(minutes, now)).toEqual({ from: 9 * MINUTE, partial: false, requests: 240, errors: 2, false404s: 7 });
    expect(lastMinuteRates([minutes[0]!], now)).toEqual({ from: 9 * MINUTE, partial: false, requests: 0, errors: 0, false404s: 0 });
    expect(lastMinuteRates([minutes[2]!], now)).toEqual({ from: 10 * MINUTE, partial: true, requests: 30, errors: 0, false404s: 1 });
    // Read from within the previous minute: it is not whole, so the current minute so far.
    expect(lastMinuteRates([minutes[1]!], now)).toEqual({ from: 10 * MINUTE, partial: true, requests: 0, errors: 0, false404s: 0 });
    expect(lastMinuteRates([], now)).toBeUndefined();
  });

  it('shows each server its requests, errors and false 404s per minute when the core follows audit logs', async () => {
    const client = new FakeCoreClient();
    const now = Date.now();
    const previous = now - (now % MINUTE) - MINUTE;
    const earlier = { at: previous - MINUTE, requests: 1, errors: 0, false404s: 0 };
    client.history = {
      servers: client.history.servers.map((s) =>
        s.name === 'sim-2' ? { ...s, cluster: [earlier, { at: previous, requests: 240, errors: 3, false404s: 7 }] } : { ...s, cluster: [] },
      ),
    };
    renderWithClient(<ServerHealth />, client);
    const rates = await screen.findByRole('region', { name: 'What sim-2 answered, from its audit log' });
    const value = (term: string) => within(rates).getByText(term).nextElementSibling?.textContent;
    expect(value('requests / min')).toBe('240');
    expect(value('errors (5xx) / min')).toBe('3');
    expect(value('false 404s / min')).toBe('7');
    expect(within(screen.getByRole('article', { name: 'apiserver sim-1' })).getByText('No request in its audit log yet.')).toBeVisible();
  });

  it('shows no audit-log rates when the core follows none', async () => {
    renderWithClient(<ServerHealth />, new FakeCoreClient());
    await screen.findByRole('article', { name: 'apiserver sim-1' });
    await screen.findByRole('list', { name: /Health and release per apiserver/ });
    expect(screen.queryByRole('region', { name: /from its audit log/ })).toBeNull();
  });
});
