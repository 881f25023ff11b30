// Written by scripts/import-catalog.ts; do not edit by hand.
import r0 from './v1.36-dev.json' with { type: 'json' };
import r1 from './v1.37-dev.json' with { type: 'json' };

export const bundledReleases: Record<string, unknown> = {
  'v1.36-dev': r0,
  'v1.37-dev': r1,
};
