#!/usr/bin/env node
// Makes sure a Chromium for the e2e tests exists before Playwright starts.
// - If CHROMIUM_PATH or /usr/bin/chromium exists: nothing to do.
// - On Debian/Ubuntu as root (CI and these dev machines): apt-get install chromium
//   (browser downloads from other hosts are impossible here).
// - Elsewhere: `npx playwright install chromium` (Playwright's own build; the config then
//   uses it when /usr/bin/chromium is absent).
import { execSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const systemPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
if (existsSync(systemPath)) process.exit(0)

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
const run = (cmd) => execSync(cmd, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })

if (isRoot && existsSync('/usr/bin/apt-get')) {
  console.log('Chromium is missing: installing the Debian package "chromium" for the e2e tests…')
  run('apt-get update -qq')
  run('apt-get install -y -qq chromium')
  if (!existsSync('/usr/bin/chromium')) {
    console.error('apt-get finished but /usr/bin/chromium is still missing')
    process.exit(1)
  }
} else {
  console.log('No system Chromium found: installing Playwright\'s Chromium (npx playwright install chromium)…')
  run('npx playwright install chromium')
}
