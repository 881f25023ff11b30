// Import rules of the project, checked by `npm run lint` (dependency-cruiser; docs/decisions.md says why).
// proxy-core/src is layered: each folder imports only the folders listed for it (all lower), so the
// engine reads bottom-up and nothing runs backwards; docs/architecture.md draws the same order.
// Tests are exempt from the layer rules (a test may stand a simulated cluster up as its fixture), not
// from the no-circular rule.

/** Folder (or top-level file) of proxy-core/src → what else of proxy-core/src it may import. */
const layers = {
  // The engine, bottom up.
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
  snapshot: ['util', 'version.ts', 'telemetry', 'discovery', 'routing', 'cluster', 'proxy', 'impact'],
  'core.ts': ['util', 'telemetry', 'upstream', 'discovery', 'routing', 'cluster', 'proxy', 'snapshot', 'impact', 'audit'],
  // Hosts of the engine: the core service and control server, sessions, the CLI, the public entry.
  control: ['util', 'version.ts', 'discovery', 'releases', 'routing', 'cluster', 'proxy', 'snapshot', 'impact', 'core.ts'],
  session: ['util', 'tls', 'discovery', 'releases', 'cluster', 'proxy', 'snapshot', 'core.ts', 'control', 'audit'],
};

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathOf = (part) => `^proxy-core/src/${escape(part)}${part.endsWith('.ts') ? '$' : '/'}`;

const layerRules = Object.entries(layers).map(([part, allowed]) => ({
  name: `layer-${part.replace(/\.ts$/, '')}`,
  comment: `proxy-core/src/${part} may import only ${allowed.length ? allowed.join(', ') : 'nothing else of proxy-core/src'} (and the contract)`,
  severity: 'error',
  from: { path: pathOf(part), pathNot: '\\.test\\.tsx?$' },
  to: { path: '^proxy-core/src/', pathNot: [pathOf(part), ...allowed.map(pathOf)] },
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
      to: { path: '^(proxy-core/src|electron|renderer)/' },
    },
    {
      name: 'test-helpers-stay-in-tests',
      comment:
        'Test helpers live in a test/ folder of each part (proxy-core/test/, renderer/test/, electron/test/, test/); source files never import them.',
      severity: 'error',
      from: { path: '^(proxy-core/(src|contract)|renderer|electron)/', pathNot: ['\\.test\\.tsx?$', '^(renderer|electron)/test/'] },
      to: { path: '^((proxy-core|renderer|electron)/)?test/' },
    },
    {
      name: 'engine-never-imports-sim',
      comment:
        'The engine reads without the simulator: only its hosts (control/, session/, cli/, the public entry) start one, through proxy-core/sim/index.ts.',
      severity: 'error',
      from: {
        path: '^proxy-core/src/',
        pathNot: ['^proxy-core/src/(control|session|cli)/', '^proxy-core/src/(index|cli)\\.ts$', '\\.test\\.tsx?$'],
      },
      to: { path: '^proxy-core/sim/' },
    },
    {
      name: 'hosts-use-the-sim-entry',
      comment: 'Hosts reach the simulator through its entry point, proxy-core/sim/index.ts.',
      severity: 'error',
      from: { path: '^proxy-core/src/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^proxy-core/sim/', pathNot: '^proxy-core/sim/index\\.ts$' },
    },
    {
      name: 'sim-uses-engine-entries',
      comment:
        "The simulator builds on the engine's public entry points only: the release catalog, discovery types, Status bodies, certificates, undici and the seeded random generator.",
      severity: 'error',
      from: { path: '^proxy-core/sim/', pathNot: '\\.test\\.tsx?$' },
      to: {
        path: '^proxy-core/src/',
        pathNot: '^proxy-core/src/(releases/index|discovery/types|util/status|util/seeded-random|tls/certs|upstream/undici)\\.ts$',
      },
    },
    ...layerRules,
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
