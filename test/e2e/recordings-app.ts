// The app as the recordings UI tests run it: a recordings folder holding a past two-server rollout
// (past-rollout.ts) and today's three-server demo, recorded into the same folder as the app does,
// served in browser mode (as `peerscope demo --ui` runs it) and opened in Chromium.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startUiServer, type UiServer } from '../../proxy-core/hosts/ui-server/server.js';
import { startDemoSession, type DemoSession } from '../../proxy-core/hosts/session/demo.js';
import { createRecordingsLibrary, type RecordingsLibrary } from '../../proxy-core/hosts/session/recordings-library.js';
import { createSwitchingService } from '../../proxy-core/hosts/session/switching-service.js';
import { recordPastRollout } from './past-rollout.js';
import { buildRenderer, openInChromium } from './ui-demo.js';

export interface RecordingsApp {
  /** A folder of the test's own, removed by close(); the recordings folder is inside it. */
  readonly root: string;
  readonly folder: string;
  readonly library: RecordingsLibrary;
  /** The past rollout's file, and its name in the folder. */
  readonly pastFile: string;
  readonly pastName: string;
  readonly page: Page;
  /** The page's console errors and failed requests, as openInChromium collects them. */
  readonly problems: string[];
  close(): Promise<void>;
}

export async function startRecordingsApp(name: string): Promise<RecordingsApp> {
  const root = mkdtempSync(join(tmpdir(), `${name}-`));
  const folder = join(root, 'recordings');
  const rendererDir = mkdtempSync(join(tmpdir(), `${name}-renderer-`));
  let library: RecordingsLibrary | undefined;
  let live: DemoSession | undefined;
  let control: UiServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await control?.close();
    library?.service.close();
    await live?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(rendererDir, { recursive: true, force: true });
  };
  try {
    buildRenderer(rendererDir);
    const switching = createSwitchingService();
    library = createRecordingsLibrary({ service: switching, folder });
    // Yesterday's session: two servers, the whole rollout, recorded into the folder.
    const pastFile = library.newRecordingFile('rollout-two-servers');
    await recordPastRollout(pastFile);
    // Today's: three servers, live, recorded into the folder as the app does.
    live = await startDemoSession({
      listen: { host: '127.0.0.1', port: 0 },
      trafficRps: 10,
      record: { file: library.newRecordingFile('demo') },
    });
    switching.switchTo({ service: live.service, label: 'simulated cluster' });
    control = await startUiServer({
      service: library.service,
      rendererDir,
      recordings: { importBytes: library.importBytes, openRecording: library.calls.openRecording },
    });
    const problems: string[] = [];
    let page: Page;
    ({ browser, page } = await openInChromium(control.url, problems));
    return { root, folder, library, pastFile, pastName: pastFile.slice(folder.length + 1), page, problems, close };
  } catch (err) {
    await close();
    throw err;
  }
}
