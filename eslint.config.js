import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = [
  'node:*',
  'fs',
  'path',
  'http',
  'https',
  'net',
  'tls',
  'os',
  'child_process',
  'crypto',
  'stream',
  'events',
  'url',
  'util',
  'zlib',
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tsbuild/', 'test-results/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The engine runs in any Node host: never Electron, never React.
    files: ['proxy-core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['electron', 'electron/*'], message: 'proxy-core must not depend on Electron.' },
            { group: ['react', 'react-dom', 'react/*', 'react-dom/*'], message: 'proxy-core must not depend on React.' },
          ],
        },
      ],
    },
  },
  {
    // The contract is shared with the renderer: plain types and zod only.
    files: ['proxy-core/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'the contract is loaded in the browser too.' },
            {
              group: ['**/engine/**', '**/hosts/**', '**/sim/**', 'electron', 'react'],
              message: 'the contract depends on nothing of the engine.',
            },
          ],
        },
      ],
    },
  },
  {
    // The renderer reaches the core only through proxy-core/contract.
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'the renderer runs sandboxed: no Node modules.' },
            {
              group: ['**/proxy-core/engine/**', '**/proxy-core/hosts/**', '**/proxy-core/sim/**', 'undici', 'electron'],
              message: 'use proxy-core/contract (CoreClient) instead.',
            },
          ],
        },
      ],
    },
  },
  {
    // Electron main composes the core through its public entry and the contract only.
    files: ['electron/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/proxy-core/engine/**', '**/proxy-core/hosts/*/**', '**/proxy-core/sim/**'],
              message: 'import proxy-core/hosts/index.ts or proxy-core/contract only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests of the shell may stand up a simulated cluster as their fixture.
    files: ['electron/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/proxy-core/engine/*/**', '!**/proxy-core/engine/releases/**'],
              message: 'tests import proxy-core/hosts/index.ts, the contract, the simulator or the release catalog (fixtures).',
            },
          ],
        },
      ],
    },
  },
);
