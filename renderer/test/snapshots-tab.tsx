// Shared setup for the Snapshots screen's component tests: render the app on a fake core, open
// the Snapshots tab, and hand files to its picker.
import { act, fireEvent, render, screen } from '@testing-library/react';
import { App } from '../app/App.js';
import type { FakeCoreClient } from './fake-client.js';

export const file = (name: string, text: string) => new File([text], name, { type: 'application/json' });

export async function openSnapshotsTab(client: FakeCoreClient) {
  render(<App client={client} />);
  await screen.findByRole('list', { name: 'Apiservers' });
  fireEvent.click(screen.getByRole('tab', { name: 'Snapshots' }));
  return screen.getByLabelText('Snapshot files to open');
}

export async function choose(input: HTMLElement, ...files: File[]) {
  await act(async () => {
    fireEvent.change(input, { target: { files } });
  });
}

export const banner = () => screen.queryByRole('region', { name: 'Offline snapshot' });
