// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Overview } from '../../../proxy-core/contract/index.js';
import { clusterEvent, clusterTotalsOf, FakeCoreClient } from '../../test/fake-client.js';
import { Totals } from './Totals.js';

afterEach(cleanup);

describe('the top bar counters', () => {
  it('count the port only, labelled so, when the core follows no audit log', async () => {
    const overview: Overview = await new FakeCoreClient().getOverview();
    render(<Totals overview={overview} />);
    const port = screen.getByLabelText('Requests through the port');
    // 120 local + 7 rerouted + 1 not found.
    expect(within(port).getByText('requests').nextElementSibling?.textContent).toBe('128');
    expect(screen.queryByLabelText(/audit logs/)).toBeNull();
    expect(port.textContent).not.toContain('port');
  });

  it('say which source each group counts: the port, and what the servers answered (false 404s apart)', async () => {
    const client = new FakeCoreClient();
    client.clusterEvents = [
      clusterEvent(1),
      clusterEvent(2, { outcome: 'false-404', code: 404 }),
      clusterEvent(3, { outcome: 'false-404', code: 404 }),
      clusterEvent(4, { outcome: 'notfound', code: 404 }),
    ];
    const overview = await client.getOverview();
    expect(overview.cluster?.totals).toEqual(clusterTotalsOf(client.clusterEvents));
    render(<Totals overview={overview} />);
    const port = screen.getByLabelText('Requests through the port');
    expect(port.textContent).toMatch(/^port/);
    const cluster = screen.getByLabelText('Requests the apiservers answered, from their audit logs');
    expect(cluster.textContent).toMatch(/^cluster/);
    const value = (term: string) => within(cluster).getByText(term).nextElementSibling?.textContent;
    expect(value('requests')).toBe('4');
    expect(value('false 404')).toBe('2');
    expect(value('404')).toBe('1');
    expect(value('503')).toBe('0');
  });
});
