// What `peerscope demo` runs (demo.ts registers it): the simulated control plane, the port in front,
// the rollout and the traffic, recorded; with --ui the app in a browser.
import type { HandlingPolicy } from '../../engine/proxy/policy.js';
import type { PortFilterFlags } from './port-filter-options.js';
import { dirname } from 'node:path';
import { startDemoSession, type DemoSession } from '../session/demo.js';
import { createRecordingsLibrary, type RecordingsLibrary } from '../session/recordings-library.js';
import { xdgRecordingsFolder } from '../session/recordings-folder.js';
import { createSwitchingService } from '../session/switching-service.js';
import { checkNewRecording } from './new-recording.js';
import { portFilters } from './port-filter-options.js';
import { startUiHost, type UiHost } from './ui.js';
import { formatPolicy } from '../../engine/proxy/policy.js';
import { onShutdown, printRolloutEvent, releaseOfFlag } from './options.js';
import { fail, listenWords } from './usage.js';

export interface DemoFlags extends PortFilterFlags {
  from: string;
  to: string;
  servers: number;
  listen: { host: string; port: number };
  policy: HandlingPolicy;
  faithful: boolean;
  traffic: number;
  stepSeconds: number;
  startDelaySeconds: number;
  rollout: boolean;
  ui: boolean;
  /** A file; false with --no-record; undefined: into the session's temporary folder. */
  record?: string | false;
}

export async function runDemo(flags: DemoFlags): Promise<void> {
  if (flags.record)
    checkNewRecording(flags.record, (message) => {
      process.stderr.write(`peerscope: ${message}\n`);
      process.exit(2);
    });
  // Each release named by the flag that gave it.
  releaseOfFlag('--from', flags.from);
  releaseOfFlag('--to', flags.to);
  // Browser mode is the app: its sessions record into the app's recordings folder, under its cap.
  const switching = createSwitchingService();
  const library = flags.ui ? createRecordingsLibrary({ service: switching, folder: xdgRecordingsFolder() }) : undefined;
  let session: DemoSession;
  try {
    session = await startDemoSession({
      from: flags.from,
      to: flags.to,
      servers: flags.servers,
      listen: flags.listen,
      policy: flags.policy,
      faithful: flags.faithful,
      trafficRps: flags.traffic,
      filters: portFilters(flags),
      stepSeconds: flags.stepSeconds,
      ...(flags.rollout ? { rolloutAfterSeconds: flags.startDelaySeconds } : {}),
      ...(flags.record !== false
        ? {
            record: {
              ...(flags.record ? { file: flags.record } : library ? { file: library.newRecordingFile('demo') } : {}),
              onError: (err: Error) => console.error(`peerscope: ${err.message}`),
            },
          }
        : {}),
      onRolloutEvent: printRolloutEvent,
      onAuditProblem: (line) => process.stderr.write(`${line}\n`),
      onRolloutError: (err) => console.error(`rollout: ${err.message}`),
    });
  } catch (err) {
    fail(listenWords(flags.listen, err));
  }
  const { address, core } = session;
  console.log(`Starting to serve on ${address.host}:${address.port}`);
  for (const s of session.sim.servers) console.log(`  ${s.name}  ${s.info().release}  ${s.info().url}`);
  console.log(`Point kubectl at the port: kubectl --kubeconfig ${session.kubeconfigPath} api-resources`);
  console.log(`The cluster source: the core follows each server's audit log in ${dirname(session.kubeconfigPath)}`);
  console.log(
    `Routing trace on every response (X-Peerscope-Route); metrics at ${address.url}/.peerscope/metrics; policy ${formatPolicy(flags.policy)}`,
  );
  if (session.recordingFile) console.log(`Recording to ${session.recordingFile}`);
  let ui: UiHost | undefined;
  if (library) {
    switching.switchTo({ service: session.service, label: 'simulated cluster' });
    ui = await startBrowserMode(library);
    console.log(`UI: ${ui.url}`);
  }
  onShutdown(async () => {
    await ui?.close();
    library?.service.close();
    const { requestsSent, sentToServers } = await session.close();
    const nonZero = (counts: Record<string, number>) =>
      Object.entries(counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
    console.log(`demo: ${requestsSent} requests sent; through the port: ${nonZero(core.telemetry.totals())}`);
    console.log(
      `demo: ${sentToServers} requests sent straight to the servers; in their audit logs: ${nonZero(core.cluster?.totals() ?? {}) || 'none'}`,
    );
    if (session.recordingFile)
      console.log(`demo: recorded to ${session.recordingFile} (peerscope recording open ${session.recordingFile})`);
  });
}

/** The app in a browser: the demo behind a switching service, so a recording of the folder can be shown in its place. */
async function startBrowserMode(library: RecordingsLibrary): Promise<UiHost> {
  return startUiHost({
    service: library.service,
    recordings: { importBytes: library.importBytes, openRecording: library.calls.openRecording },
  });
}
