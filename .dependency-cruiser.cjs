// Import rules of the project, checked by `npm run lint` (dependency-cruiser; docs/decisions.md says why).
// proxy-core reads bottom-up in three floors: the engine (proxy-core/engine), the simulator built on it
// (proxy-core/sim), and the hosts that run both (proxy-core/hosts: the core service, the browser-mode UI
// server, sessions, the CLI, the public entry). Inside the engine and the hosts each folder imports only
// the folders listed for it (all lower), so nothing runs backwards; docs/architecture.md draws the same order.
// Tests are exempt from the layer rules (a test may stand a simulated cluster up as its fixture), not
// from the no-circular rule.

/** Folder (or top-level file) of proxy-core/engine → what else of the engine it may import. */
const engine = {
  util: [],
  tls: [],
  'version.ts': [],
  telemetry: ['util'],
  upstream: ['util', 'tls'],
  discovery: ['util'],
  // What each bundled Kubernetes release serves: data the engine reads (upgrade-impact targets) and
  // the simulator serves.
  releases: ['util', 'discovery'],
  routing: ['util', 'discovery'],
  // What the apiservers themselves answered, from their audit logs, judged against the route table
  // (or, for an event from before an upgrade, against the catalog's release its server ran then);
  // servers named as the screens name them (cluster/server-names.ts).
  audit: ['util', 'discovery', 'routing', 'releases', 'cluster'],
  // The upgrade-impact report: client usage (telemetry, or the servers' audit logs) against the servers and a target release.
  impact: ['util', 'telemetry', 'discovery', 'routing', 'releases', 'audit'],
  cluster: ['util', 'tls', 'telemetry', 'upstream', 'discovery'],
  proxy: ['util', 'telemetry', 'upstream', 'discovery', 'routing', 'cluster', 'impact'],
  // The session's recording (SQLite): the writer the core feeds, the reader and report of a recorded file
  // (whose clients that break at the target release are judged by the upgrade-impact code).
  recording: ['util', 'version.ts', 'discovery', 'releases', 'routing', 'cluster', 'telemetry', 'impact'],
  snapshot: ['util', 'version.ts', 'telemetry', 'discovery', 'routing', 'cluster', 'proxy', 'impact'],
  // The parts createCore composes (the cluster source, the server list's refresh, the port's listener…), one a file.
  core: ['util', 'telemetry', 'upstream', 'discovery', 'routing', 'cluster', 'proxy', 'impact', 'audit', 'recording'],
  'core.ts': [
    'util',
    'telemetry',
    'upstream',
    'discovery',
    'routing',
    'cluster',
    'proxy',
    'snapshot',
    'impact',
    'audit',
    'recording',
    'core',
  ],
};

/** Folder (or top-level file) of proxy-core/hosts → what else of the hosts it may import (each may use the engine and the sim entry). */
const hosts = {
  // The core service: the contract's methods answered over a running core (and a simulator's rollout).
  service: [],
  // The browser-mode host of the UI: JSON calls and Server-Sent Events over the core service.
  'ui-server': ['service'],
  // What the app and the demo run: a kubeconfig's cluster or the simulated one, switchable.
  session: ['service'],
  cli: ['service', 'ui-server', 'session'],
  'cli.ts': ['cli'],
  'index.ts': ['service', 'session'],
};

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathOf = (floor, part) => `^proxy-core/${floor}/${escape(part)}${part.endsWith('.ts') ? '$' : '/'}`;

const layerRules = (floor, layers) =>
  Object.entries(layers).map(([part, allowed]) => ({
    name: `layer-${floor}-${part.replace(/\.ts$/, '')}`,
    comment: `proxy-core/${floor}/${part} may import only ${allowed.length ? allowed.join(', ') : `nothing else of proxy-core/${floor}`} of its floor`,
    severity: 'error',
    from: { path: pathOf(floor, part), pathNot: '\\.test\\.tsx?$' },
    to: { path: `^proxy-core/${floor}/`, pathNot: [pathOf(floor, part), ...allowed.map((a) => pathOf(floor, a))] },
  }));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle anywhere: each part can be read, tested and changed from the bottom up.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contract-stands-alone',
      comment: 'The contract is loaded by the renderer too: it imports nothing of the project beyond itself.',
      severity: 'error',
      from: { path: '^proxy-core/contract/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^(proxy-core/(engine|sim|hosts)|electron|renderer)/' },
    },
    {
      name: 'test-helpers-stay-in-tests',
      comment:
        'Test helpers live in a test/ folder of each part (proxy-core/test/, renderer/test/, electron/test/, test/); source files never import them.',
      severity: 'error',
      from: {
        path: '^(proxy-core/(engine|sim|hosts|contract)|renderer|electron)/',
        pathNot: ['\\.test\\.tsx?$', '^(renderer|electron)/test/'],
      },
      to: { path: '^((proxy-core|renderer|electron)/)?test/' },
    },
    {
      name: 'engine-stays-below',
      comment: 'The engine reads without the simulator and without its hosts: they build on it, never the other way.',
      severity: 'error',
      from: { path: '^proxy-core/engine/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^proxy-core/(sim|hosts)/' },
    },
    {
      name: 'sim-below-hosts',
      comment: 'The simulator is run by the hosts and never reaches up to them.',
      severity: 'error',
      from: { path: '^proxy-core/sim/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^proxy-core/hosts/' },
    },
    {
      name: 'hosts-use-the-sim-entry',
      comment: 'Hosts reach the simulator through its entry point, proxy-core/sim/index.ts.',
      severity: 'error',
      from: { path: '^proxy-core/hosts/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^proxy-core/sim/', pathNot: '^proxy-core/sim/index\\.ts$' },
    },
    {
      name: 'sim-uses-engine-entries',
      comment:
        "The simulator builds on the engine's public entry points only: the release catalog, discovery types, Status bodies, certificates, undici and the seeded random generator.",
      severity: 'error',
      from: { path: '^proxy-core/sim/', pathNot: '\\.test\\.tsx?$' },
      to: {
        path: '^proxy-core/engine/',
        pathNot: '^proxy-core/engine/(releases/index|discovery/types|util/status|util/seeded-random|tls/certs|upstream/undici)\\.ts$',
      },
    },
    {
      name: 'outside-uses-the-public-entry',
      comment: 'Electron and the renderer reach proxy-core through hosts/index.ts (Electron) or the contract, never its insides.',
      severity: 'error',
      from: { path: '^(electron|renderer)/', pathNot: ['\\.test\\.tsx?$', '^(renderer|electron)/test/'] },
      to: { path: '^proxy-core/(engine|sim|hosts)/', pathNot: '^proxy-core/hosts/index\\.ts$' },
    },
    {
      name: 'renderer-shared-stays-below',
      comment: "The renderer's shared parts (transport, UI pieces, the client and view contexts) serve every screen and import none.",
      severity: 'error',
      from: { path: '^renderer/shared/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^renderer/(app|features)/' },
    },
    {
      name: 'renderer-features-stand-alone',
      comment: 'A screen (renderer/features/X) imports shared parts, never the app around it or another screen.',
      severity: 'error',
      from: { path: '^renderer/features/([^/]+)/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^renderer/(app/|features/)', pathNot: '^renderer/features/$1/' },
    },
    ...layerRules('engine', engine),
    ...layerRules('hosts', hosts),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.tsbuild)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a circle of types is still a circle for a reader.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs'] },
  },
};
