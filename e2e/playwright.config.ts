import { existsSync } from 'node:fs'
import { defineConfig, devices } from '@playwright/test'

// A port of the suite's own (not `npm run preview`'s 4173); E2E_PORT lets two checkouts run
// their suites side by side on one machine.
const port = Number(process.env.E2E_PORT) || 4317
// Side-by-side runs in one working tree also need their own build folder and results folder.
const dist = process.env.E2E_PORT ? `dist-e2e-${port}` : 'dist'
// Browser downloads are impossible on these machines: drive Debian's Chromium when present
// (scripts/ensure-chromium.mjs installs it, or Playwright's own build elsewhere).
const systemChromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

export default defineConfig({
  testDir: '.',
  outputDir: process.env.E2E_PORT ? `../test-results-${port}` : '../test-results',
  // Generous: these machines are shared, and the first run loads the 2 MB o200k rank table.
  timeout: 180_000,
  expect: { timeout: 30_000 },
  retries: process.env.CI ? 1 : 0,
  // 2-core machines: the production preview server plus two browsers is the most they carry.
  workers: 2,
  fullyParallel: true,
  reporter: process.env.CI ? 'line' : 'list',
  use: { baseURL: `http://127.0.0.1:${port}`, trace: 'retain-on-failure' },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1440, height: 900 },
        launchOptions: {
          ...(existsSync(systemChromium) ? { executablePath: systemChromium } : {}),
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
  webServer: {
    // Test the production bundle: it is what bundles the worker.
    command: `npx vite build --outDir ${dist} --emptyOutDir && npx vite preview --outDir ${dist} --host 127.0.0.1 --port ${port} --strictPort`,
    cwd: '..',
    url: `http://127.0.0.1:${port}`,
    // Always this checkout's fresh build: a server already on the port (an older build, another
    // checkout) makes the run fail with "already used" instead of testing the wrong page.
    reuseExistingServer: false,
    timeout: 120_000,
  },
})
