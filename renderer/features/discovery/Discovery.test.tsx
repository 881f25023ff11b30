// @vitest-environment jsdom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeCoreClient } from '../../test/fake-client.js';
import { renderWithClient } from '../../test/render.js';
import { Discovery } from './Discovery.js';

afterEach(cleanup);

describe('Discovery', () => {
  it('shows the current mode and switches it with the toggle', async () => {
    const client = new FakeCoreClient();
    renderWithClient(<Discovery />, client);
    const aggregated = await screen.findByRole('radio', { name: /Peer-aggregated/ });
    await screen.findByText(/Merged document as sim-1 answers it: 4 GVRs/);
    expect((aggregated as HTMLInputElement).checked).toBe(true);
    await act(async () => fireEvent.click(screen.getByRole('radio', { name: /No peer/ })));
    expect(client.calls).toContain('setDiscoveryMode:nopeer');
    expect((screen.getByRole('radio', { name: /No peer/ }) as HTMLInputElement).checked).toBe(true);
  });

  it('diffs the merged document against each server’s own', async () => {
    renderWithClient(<Discovery />, new FakeCoreClient());
    const firstList = await screen.findByRole('list', { name: 'GVRs added by the merge for sim-1' });
    expect(firstList.textContent).toContain('certificates.k8s.io/v1alpha1/clustertrustbundles');
    fireEvent.click(screen.getByRole('button', { name: 'sim-2' }));
    const list = screen.getByRole('list', { name: 'GVRs added by the merge for sim-2' });
    expect(list.textContent).toContain('+ certificates.k8s.io/v1/clustertrustbundles');
    expect(screen.getByRole('button', { name: 'sim-2' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('says which version order the port serves, and where it differs from a server’s own (P9)', async () => {
    renderWithClient(<Discovery />, new FakeCoreClient());
    const note = await screen.findByLabelText('Version order of the merged documents');
    expect(note.textContent).toContain("Kubernetes' version priority");
    expect(screen.queryByRole('list', { name: "Groups whose version order differs from sim-1's own" })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'sim-2' }));
    const list = screen.getByRole('list', { name: "Groups whose version order differs from sim-2's own" });
    expect(list.textContent).toBe('certificates.k8s.io: own v1alpha1 → merged v1, v1alpha1');
    expect(screen.getAllByRole('row').map((r) => r.textContent)).toContainEqual(expect.stringContaining('1 differ'));
  });

  it('shows an error when the toggle is refused', async () => {
    const client = new FakeCoreClient();
    renderWithClient(<Discovery />, client);
    await screen.findByRole('list', { name: /GVRs added by the merge/ });
    client.failWith = 'not allowed';
    await act(async () => fireEvent.click(screen.getByRole('radio', { name: /No peer/ })));
    expect((await screen.findByRole('alert')).textContent).toContain('not allowed');
  });
});
