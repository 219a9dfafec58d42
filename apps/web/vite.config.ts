/// <reference types="vitest/config" />
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { runtimeConfigPlugin } from './scripts/runtime-config';

export default defineConfig({
  root: __dirname,
  cacheDir: '../../node_modules/.vite/apps/web',
  plugins: [react(), runtimeConfigPlugin()],
  server: { port: 4400, host: '127.0.0.1', strictPort: true },
  preview: { port: 4400, host: '127.0.0.1', strictPort: true },
  build: { outDir: '../../dist/apps/web', emptyOutDir: true, reportCompressedSize: false, sourcemap: true },
  test: {
    root: __dirname,
    environment: 'jsdom',
    globals: true,
    include: ['src/**/*.spec.{ts,tsx}', 'scripts/**/*.spec.ts'],
    setupFiles: ['src/test-setup.ts'],
    reporters: ['default', join(__dirname, 'scripts/vitest-summary-reporter.ts')],
  },
});
