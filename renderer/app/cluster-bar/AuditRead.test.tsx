// @vitest-environment jsdom
import '@testing-library/jest-dom/vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditRead as AuditReadState, Overview } from '../../../proxy-core/contract/index.js';
import { clusterEvent, FakeCoreClient } from '../../test/fake-client.js';
import { renderWithClient } from '../../test/render.js';
import { AuditRead } from './AuditRead.js';

afterEach(cleanup);

const MIB = 1024 * 1024;

/** A fake core reading one audit log once: a quarter of it read. */
function readingClient(over: Partial<AuditReadState> = {}, webhook?: string) {
  const client = new FakeCoreClient();
  client.clusterEvents = [clusterEvent(1)];
  let read: AuditReadState = {
    files: [{ server: 'sim-1', file: '/var/log/sim-1/audit.log' }],
    follow: false,
    state: 'reading',
    bytesRead: 256 * MIB,
    bytesTotal: 1024 * MIB,
    lines: 500_000,
    requests: 250_000,
    ...over,
  };
  const base = client.getOverview;
  const overview = async (): Promise<Overview> => {
    const o = await base();
    return { ...o, cluster: { ...o.cluster!, read, ...(webhook ? { webhook: { url: webhook } } : {}) } };
  };
  client.getOverview = overview;
  const cancelled: string[] = [];
  // The fake refuses methods it has no answer for; this one answers as the core does.
  Object.assign(client, {
    cancelAuditRead: async () => {
      cancelled.push('cancel');
      read = { ...read, state: 'cancelled' };
      return overview();
    },
  });
  return { client, overview, cancelled };
}

describe('the top bar’s audit log read', () => {
  it('shows a read under way as a progress bar with its figures, and cancels it', async () => {
    const { client, overview, cancelled } = readingClient();
    renderWithClient(<AuditRead overview={await overview()} />, client);
    const bar = await screen.findByRole('progressbar');
    expect(bar).toHaveAttribute('aria-valuetext', '25 %');
    expect(screen.getByText('Reading 1 audit log')).toBeVisible();
    expect(screen.getByText(/25 % · 256 of 1,024 MiB · 250,000 requests/)).toBeVisible();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(cancelled).toEqual(['cancel']));
    expect(await screen.findByRole('status')).toHaveTextContent('Read of 1 audit log cancelled at 25 %: the 250,000 requests read count');
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('says how a read ended, what is followed, and where the webhook receiver listens', async () => {
    const done = readingClient({ state: 'done', bytesRead: 1024 * MIB }, 'https://10.1.2.3:9443');
    renderWithClient(<AuditRead overview={await done.overview()} />, done.client);
    expect(await screen.findByText('Read 1 audit log: 250,000 requests')).toBeVisible();
    expect(screen.getByText('https://10.1.2.3:9443')).toBeVisible();
    cleanup();
    const following = readingClient({ follow: true, state: 'following', bytesTotal: null });
    renderWithClient(<AuditRead overview={await following.overview()} />, following.client);
    expect(await screen.findByText('Following 1 audit log')).toBeVisible();
  });

  it('shows nothing without a cluster source', async () => {
    const client = new FakeCoreClient();
    const { container } = renderWithClient(<AuditRead overview={await client.getOverview()} />, client);
    expect(container).toBeEmptyDOMElement();
  });
});
