import { defineConfig } from 'vitest/config';

// One runner for every test. Node tests run real sockets on 127.0.0.1; renderer component
// tests opt into jsdom per file with `// @vitest-environment jsdom`.
// The rollout soak judges timing against the simulated servers' own clock, so it runs alone
// (project "soak", before the rest) rather than beside Chromium and kubectl on two cores.
const SOAK = ['proxy-core/test/rollout-soak.test.ts'];
// The real-Kubernetes tests (project "kube", `npm run test:kube`) start etcd and several real
// kube-apiservers per file: one file at a time, after the rest, with room for a server's start.
const KUBE = ['test/kube/**/*.test.ts'];
// The port's own tests (request path, forwarding, streams, the fuzz, the garbage collector's settings), which `npm test` also runs on the
// lowest Node `engines` admits (project "port"; they stay in "main" too).
const PORT = [
  'proxy-core/engine/proxy/**/*.test.ts',
  'proxy-core/engine/routing/**/*.test.ts',
  'proxy-core/engine/upstream/**/*.test.ts',
  'proxy-core/engine/util/heap-growth.test.ts',
  // node:sqlite is why `engines` starts at 22.13: the recording is checked on that Node too.
  'proxy-core/engine/recording/**/*.test.ts',
  'proxy-core/test/{port-*,conformance-*,streaming,large-streams,upstream-faults,fuzz-port,cli-serve,cli-shutdown,cli-recording}.test.ts',
];

export default defineConfig({
  resolve: {
    // proxy-core and electron code must never load the real `electron` package from Node:
    // it would try to download its binary. Tests get a stub instead.
    alias: { electron: new URL('./test/stubs/electron.ts', import.meta.url).pathname },
  },
  test: {
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: [
            'proxy-core/**/*.test.ts',
            'test/**/*.test.ts',
            'electron/**/*.test.ts',
            'renderer/**/*.test.{ts,tsx}',
            'bench/**/*.test.ts',
          ],
          exclude: ['**/node_modules/**', ...SOAK, ...KUBE],
        },
      },
      { extends: true, test: { name: 'soak', include: SOAK } },
      { extends: true, test: { name: 'port', include: PORT } },
      { extends: true, test: { name: 'kube', include: KUBE, fileParallelism: false, testTimeout: 120_000, hookTimeout: 300_000 } },
    ],
  },
});
