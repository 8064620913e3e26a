/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

/**
 * The Content-Security-Policy of the built page. Shipped twice from this one definition: as a
 * <meta> in index.html, so it travels with any static host, and as a response header (see
 * `SECURITY_HEADERS`) from `vite preview` and in the build's `_headers` file, which is what also
 * governs the module workers (a worker takes its policy from its own script's response, never from
 * the page's meta) and framing. Each directive:
 * - default-src 'self': anything not named below (media, manifests, frames…) only from this origin.
 * - script-src 'self': the bundle's own chunks; no inline script, no eval.
 * - worker-src 'self': the engine, tokenizer-pool and regex-guard module workers, all built files
 *   (`new Worker(new URL(…, import.meta.url))`), never blob: or data: URLs.
 * - connect-src 'self' http: https:: the samples are fetched from this origin; the summarizer posts
 *   to an LLM endpoint the user configures, on any host (from the engine worker).
 * - img-src 'self' data:: the favicon (header logo); data: for "Save as PNG" (html-to-image draws
 *   the captured element as an SVG data: image, and each uPlot canvas as a PNG data: image, onto the
 *   canvas it encodes). Transcript images are kept for export, never shown.
 * - style-src 'self': the bundled CSS files. React's `style` props and uPlot set styles through
 *   CSSOM, which a policy without 'unsafe-inline' allows; nothing injects <style> or style attributes.
 * - font-src 'self': no web fonts today (system font stacks); none from elsewhere.
 * - object-src 'none': no plugins.
 * - base-uri 'self': an injected <base> cannot re-point the relative chunk URLs.
 * - form-action 'none': the app submits no forms anywhere.
 * Downloads use blob: URLs on <a download>, which no directive governs.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "connect-src 'self' http: https:",
  "img-src 'self' data:",
  "style-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ')

/**
 * No page may frame the app (clickjacking): `frame-ancestors 'none'`, which only a header can say
 * (a <meta> policy ignores it), and `X-Frame-Options: DENY` for browsers without it.
 */
const FRAME_ANCESTORS = "frame-ancestors 'none'"

/**
 * The response headers of every file of the built app: the policy above plus `frame-ancestors`,
 * no framing, no MIME sniffing, no referrer sent to an LLM endpoint. `vite preview` serves them;
 * the build writes them to `_headers` (Netlify, Cloudflare Pages); the README's "Hosting the
 * build" says how to set them on other static hosts.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': `${CONTENT_SECURITY_POLICY}; ${FRAME_ANCESTORS}`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
}

/**
 * The dev server's headers: React Fast Refresh needs inline scripts and Vite's HMR a websocket,
 * so the dev server keeps only what forbids framing and sniffing (the full policy is checked on
 * the built app).
 */
const DEV_HEADERS: Record<string, string> = {
  'Content-Security-Policy': FRAME_ANCESTORS,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
}

/**
 * Adds the policy to the production index.html (prepended to <head>, so it precedes every script
 * and stylesheet it governs) and writes `_headers` (every path: `SECURITY_HEADERS`) beside it.
 * Build only: the dev server's React Fast Refresh needs inline scripts.
 */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'content-security-policy',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
        injectTo: 'head-prepend',
      },
    ],
    generateBundle() {
      const lines = Object.entries(SECURITY_HEADERS).map(([name, value]) => `  ${name}: ${value}`)
      this.emitFile({ type: 'asset', fileName: '_headers', source: `/*\n${lines.join('\n')}\n` })
    },
  }
}

/** Tests of pure modules: no module state, no module mocks (see `projects` below). */
const PURE_TESTS = [
  'src/engine/**/*.test.ts',
  'src/components/**/*.test.{ts,tsx}',
  'src/features/**/*.test.{ts,tsx}',
  // The fuzz harness at its small size (test/fuzz/run.ts is `npm run fuzz`, the long run).
  'test/fuzz/**/*.test.ts',
]

export default defineConfig({
  plugins: [react(), contentSecurityPolicy()],
  server: { headers: DEV_HEADERS },
  preview: { headers: SECURITY_HEADERS },
  // Module workers: the default 'iife' format cannot code-split the tokenizer rank tables.
  worker: { format: 'es' },
  test: {
    environment: 'node',
    testTimeout: 60_000,
    // `npm run test:unit` runs the in-process tests in two projects: `unit`, the pure modules
    // (engine, components, features' helpers), whose files share one module graph per worker
    // (isolate: false — nothing there keeps state a test could leak, and the rank tables load once
    // per worker instead of once per file: ≈ 50 s → 15 s); `unit-isolated`, the worker, store, CLI
    // and app tests, which hold module state or mock modules, each file in a fresh module graph.
    // `npm run test:integration`: what starts processes or builds (CLI processes, the generator,
    // the bundle budget, lint rules). Playwright's e2e/*.spec.ts stay out of Vitest.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: PURE_TESTS,
          exclude: ['src/**/*.integration.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'unit-isolated',
          include: ['src/**/*.test.{ts,tsx}'],
          exclude: ['src/**/*.integration.test.ts', ...PURE_TESTS],
        },
      },
      { extends: true, test: { name: 'integration', include: ['src/**/*.integration.test.ts'] } },
    ],
  },
})
