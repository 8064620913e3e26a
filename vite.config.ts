/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

export default defineConfig({
  plugins: [react()],
  // Module workers: the default 'iife' format cannot code-split the tokenizer rank tables.
  worker: { format: 'es' },
  test: {
    // Keep Playwright's e2e/*.spec.ts out of Vitest.
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 60_000,
  },
})
