// A session recorded before the test's own: the simulated rollout of two servers from start to end,
// written to a file the Recordings screen lists (the recordings UI tests open it as "yesterday's").
import { setTimeout as sleep } from 'node:timers/promises';
import { startDemoSession } from '../../proxy-core/hosts/session/demo.js';

export async function recordPastRollout(file: string): Promise<void> {
  const past = await startDemoSession({
    listen: { host: '127.0.0.1', port: 0 },
    servers: 2,
    trafficRps: 20,
    stepSeconds: 1,
    rolloutAfterSeconds: 1,
    record: { file },
  });
  try {
    for (const until = Date.now() + 40_000; (await past.service.getOverview()).sim?.rollout.phase !== 'done';) {
      if (Date.now() > until) throw new Error('the past demo rollout did not finish within 40 s');
      await sleep(250);
    }
    // The requests of the rollout's last seconds reach the recording.
    await sleep(1_500);
  } finally {
    await past.close();
  }
}
