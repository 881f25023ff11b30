// @vitest-environment jsdom
// At a recorded moment (the time control let go 30 s into the fake core's recording), the Snapshots
// screen offers a snapshot of that moment: exported as a file named for the moment, or kept in the
// library marked as from the recording, opened offline it says what the recording left out.
import '@testing-library/jest-dom/vitest';
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeCoreClient } from '../../test/fake-client.js';
import { installLayoutStubs } from '../../test/render.js';
import { sampleSnapshot } from '../../test/snapshot.js';
import { openSnapshotsTab } from '../../test/snapshots-tab.js';
import { formatClock } from '../../shared/ui/format.js';

beforeAll(installLayoutStubs);
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const AT = 1_700_000_030_000;

describe('Snapshots at a recorded moment', () => {
  it('exports and keeps a snapshot of the moment shown, taken from the recording', async () => {
    const client = new FakeCoreClient();
    client.snapshot = sampleSnapshot();
    const created = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:snapshot');
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(this.download);
    });
    await openSnapshotsTab(client);
    // Live: no moment to take.
    expect(screen.queryByRole('button', { name: 'Export this moment' })).toBeNull();

    fireEvent.change(await screen.findByLabelText('Moment of the recording'), { target: { value: String(AT) } });
    await screen.findByRole('region', { name: 'Recorded moment' });
    expect(await screen.findByRole('heading', { name: `Record the moment ${formatClock(AT)}` })).toBeVisible();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Export this moment' })));
    expect(client.calls).toContain(`takeSnapshotAt:${AT}`);
    expect(downloads).toEqual([`peerscope-snapshot-${new Date(AT).toISOString().replace(/[:.]/g, '-')}.json`]);
    const written = JSON.parse(await (created.mock.calls[0]![0] as Blob).text()) as { takenAt: string; recorded?: unknown };
    expect(written.takenAt).toBe(new Date(AT).toISOString());
    expect(written.recorded).toMatchObject({ omitted: [{ part: 'events' }] });

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Keep this moment for comparison' })));
    const row = await screen.findByRole('rowheader', { name: new RegExp(`recording at ${formatClock(AT)}`) });
    expect(within(row).getByText('from the recording')).toBeVisible();
  });
});
