// Writes proxy-core/test/fixtures/kube-apiserver-metrics.txt: a real kube-apiserver's /metrics, the
// fixture the scrape parser is tested on. Two servers of one release, their own Mixed Version Proxy on,
// kube-a serving a group-version kube-b does not (--runtime-config, as test/kube/runtime-config-skew
// does); every listable API of kube-b is listed once (deprecated ones among them) and that group-version
// is asked of kube-b, whose peer proxy reroutes it to kube-a, so the families Peerscope reads all have
// series. The scrape is trimmed to about 200 KB by keeping whole families: every one Peerscope reads,
// then the others in order (histograms first, the lines Peerscope must skip) while they fit.
//
//   flock /tmp/peerscope-kube.lock node scripts/node/use.mjs shipped -- npx tsx test/kube/capture-metrics.ts [RELEASE]
import { writeFileSync } from 'node:fs';
import { kubeBinaries } from './binaries.js';
import { startControlPlane } from './control-plane.js';
import { repoRoot } from '../fixtures.js';

const OUT = `${repoRoot.replace(/\/$/, '')}/proxy-core/test/fixtures/kube-apiserver-metrics.txt`;
const BUDGET = 200_000;
const READ = [
  'apiserver_request_total',
  'apiserver_requested_deprecated_apis',
  'apiserver_rerouted_request_total',
  'apiserver_peer_proxy_errors_total',
  'apiserver_peer_discovery_sync_errors_total',
];
const GV = 'coordination.k8s.io/v1beta1';
const ONLY_A = `/apis/${GV}/namespaces/default/leasecandidates`;

if (!kubeBinaries) throw new Error('the kube binaries are missing: npm run kube:build');
const release = process.argv[2] ?? kubeBinaries.newer;
const cp = await startControlPlane({
  servers: [
    { host: 'kube-a', release, mvp: 'on', runtimeConfig: `${GV}=true` },
    { host: 'kube-b', release, mvp: 'on' },
  ],
});
try {
  await cp.settled();
  const groups = (await cp.call('kube-b', '/apis')).json() as { groups: { versions: { groupVersion: string }[] }[] };
  const versions = ['api/v1', ...groups.groups.flatMap((g) => g.versions.map((v) => `apis/${v.groupVersion}`))];
  let lists = 0;
  for (const gv of versions) {
    const list = (await cp.call('kube-b', `/${gv}`)).json() as { resources?: { name: string; verbs: string[] }[] };
    for (const r of list.resources ?? []) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue;
      await cp.call('kube-b', `/${gv}/${r.name}?limit=1`);
      lists++;
    }
  }
  // kube-b's peer proxy reroutes what only kube-a serves; it may need a moment after start to know its peer.
  let rerouted = 0;
  for (let i = 0; i < 30 && rerouted < 3; i++) {
    if ((await cp.call('kube-b', ONLY_A)).status === 200) rerouted++;
    else await new Promise((r) => setTimeout(r, 1_000));
  }
  const scrape = await cp.call('kube-b', '/metrics', { headers: { accept: 'text/plain;version=0.0.4' } });
  if (scrape.status !== 200) throw new Error(`GET /metrics answered ${scrape.status}`);
  const full = scrape.text;
  const trimmed = trim(full);
  writeFileSync(OUT, trimmed);
  console.log(
    `${lists} lists, ${rerouted} rerouted; /metrics of kube-apiserver ${release}: ${full.length} bytes, kept ${trimmed.length} in ${OUT}`,
  );
} finally {
  await cp.close();
}

/** Whole families (their HELP, TYPE and samples together), those Peerscope reads first, within BUDGET. */
function trim(text: string): string {
  const families = new Map<string, string[]>();
  let current = '';
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const declared = /^# (?:HELP|TYPE) ([^ ]+)/.exec(line)?.[1];
    if (declared) current = declared;
    else if (!line.startsWith('#'))
      current = families.has(current) && line.startsWith(current) ? current : (/^[^{ ]+/.exec(line)?.[0] ?? current);
    families.set(current, [...(families.get(current) ?? []), line]);
  }
  const isHistogram = (lines: string[]) => lines.some((l) => / histogram$/.test(l));
  const order = [
    ...READ.filter((n) => families.has(n)),
    ...[...families.keys()].filter((n) => !READ.includes(n) && isHistogram(families.get(n)!)),
    ...[...families.keys()].filter((n) => !READ.includes(n) && !isHistogram(families.get(n)!)),
  ];
  const kept = new Set<string>();
  let size = 0;
  for (const n of order) {
    const bytes = families.get(n)!.join('\n').length + 1;
    if (READ.includes(n) || size + bytes <= BUDGET) {
      kept.add(n);
      size += bytes;
    }
  }
  // In the server's own order.
  return [...families].flatMap(([n, lines]) => (kept.has(n) ? lines : [])).join('\n') + '\n';
}
