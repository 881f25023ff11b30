import { defineConfig } from 'vitest/config';

// One runner for every test. Node tests run real sockets on 127.0.0.1; renderer component
// tests opt into jsdom per file with `// @vitest-environment jsdom`.
export default defineConfig({
  resolve: {
    // proxy-core and electron code must never load the real `electron` package from Node:
    // it would try to download its binary. Tests get a stub instead.
    alias: { electron: new URL('./test/stubs/electron.ts', import.meta.url).pathname },
  },
  test: {
    include: ['proxy-core/**/*.test.ts', 'test/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}', 'bench/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
