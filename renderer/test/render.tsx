// Renders a feature inside the providers the app gives it, with a fresh query cache per test.
// jsdom has no layout: give elements a size so the virtualised lists render rows, and a
// ResizeObserver so charts mount.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { configure, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import type { CoreClient } from '../../proxy-core/contract/index.js';
import { CoreClientProvider } from '../shared/client-context.js';

// The first render of a file pays for module loading; on a busy machine (the e2e runs beside these
// tests) that can exceed testing-library's 1 s default for findBy*/waitFor.
configure({ asyncUtilTimeout: 10_000 });

export function installLayoutStubs(): void {
  for (const [prop, size] of [
    ['offsetHeight', 800],
    ['offsetWidth', 1200],
    ['clientHeight', 800],
    ['clientWidth', 1200],
  ] as const) {
    Object.defineProperty(HTMLElement.prototype, prop, { configurable: true, get: () => size });
  }
  if (!('ResizeObserver' in globalThis)) {
    (globalThis as { ResizeObserver?: unknown }).ResizeObserver = class {
      observe() {}
      unobserve() {}
      disconnect() {}
    };
  }
}

export function renderWithClient(ui: ReactNode, client: CoreClient) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity } } });
  return render(
    <QueryClientProvider client={queryClient}>
      <CoreClientProvider client={client}>{ui}</CoreClientProvider>
    </QueryClientProvider>,
  );
}
