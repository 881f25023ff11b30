// Builds the renderer to dist/renderer/, served by the UI server (browser mode) and loaded by
// Electron. Everything is bundled: no CDN, no external font, nothing inline (the CSP forbids it).
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = new URL('.', import.meta.url).pathname;

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  build: {
    outDir: `${here}../dist/renderer`,
    emptyOutDir: true,
    // The module preload polyfill would be an inline-free chunk anyway, but no browser we run needs it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // zod's sources carry /* @__PURE__ */ comments where Rollup cannot use them; harmless noise.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION') return;
        warn(warning);
      },
    },
  },
});
