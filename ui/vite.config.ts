import { defineConfig } from 'vitest/config';

// The API serves ui/dist at `/`; in `npm run dev` the dev server proxies REST and WebSockets to a
// running `sportz --headless` (SPORTZ_API, default http://127.0.0.1:8080).
const api = process.env.SPORTZ_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    proxy: {
      '/matches': api,
      '/api': api,
      '/health': api,
      '/ws': { target: api, ws: true },
    },
  },
  test: { include: ['tests/**/*.test.ts'], environment: 'node' },
});
