/**
 * `npm run lint` runs knip with the repository's own config: this checks that the config really
 * fails on an unused export (and passes once it is gone), on a minimal project shaped like the app
 * (index.html → src/main.tsx, built by Vite) so the config's entries and project globs apply.
 */
import { execFile } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** Where knip looks for its config; the repository has one of them. */
const CONFIG_NAMES = [
  'knip.json',
  'knip.jsonc',
  '.knip.json',
  '.knip.jsonc',
  'knip.ts',
  'knip.config.ts',
]
const KNIP_DIR = join(ROOT, 'node_modules/knip')
const KNIP_MANIFEST = JSON.parse(readFileSync(join(KNIP_DIR, 'package.json'), 'utf8')) as {
  bin: { knip: string }
}
const KNIP_BIN = join(KNIP_DIR, KNIP_MANIFEST.bin.knip)

interface Run {
  code: number
  output: string
}

/** Runs the repository's knip in `dir`; never rejects. */
function knip(dir: string): Promise<Run> {
  return new Promise((resolve) => {
    // Config hints are left out: the minimal project has none of the bench/e2e/scripts folders.
    const args = [KNIP_BIN, '--directory', dir, '--no-config-hints', '--no-progress']
    execFile(process.execPath, args, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
      resolve({ code, output: `${stdout}${stderr}` })
    })
  })
}

/** Temp folders to remove after each test (rmSync drops the node_modules link, not its target). */
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A minimal app in a fresh temp folder, with the repository's knip config; `used.ts` as given. */
function project(usedTs: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'knip-lint-'))
  dirs.push(dir)
  const config = CONFIG_NAMES.find((name) => existsSync(join(ROOT, name)))
  if (!config) throw new Error(`no knip config in ${ROOT}`)
  copyFileSync(join(ROOT, config), join(dir, config))
  // knip resolves the `vite` binary of the build script through node_modules.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'knip-lint-probe',
      private: true,
      type: 'module',
      scripts: { build: 'vite build' },
      devDependencies: { vite: '*' },
    }),
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'ESNext', moduleResolution: 'bundler', jsx: 'react-jsx' },
      include: ['src'],
    }),
    'index.html': '<!doctype html>\n<script type="module" src="/src/main.tsx"></script>\n',
    'src/main.tsx': "import { usedHelper } from './used'\n\nconsole.log(usedHelper)\n",
    'src/used.ts': usedTs,
  }
  mkdirSync(join(dir, 'src'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

describe('knip with the repository config', () => {
  it('fails on an unused export and names it', async () => {
    const dir = project('export const usedHelper = 1\nexport const unusedHelper = 1\n')
    const run = await knip(dir)
    expect(run.code, run.output).toBe(1)
    expect(run.output).toContain('Unused exports (1)')
    expect(run.output).toMatch(/^unusedHelper\s+src\/used\.ts/m)
    expect(run.output).not.toMatch(/^usedHelper\b/m)
  })

  it('passes once the unused export is gone', async () => {
    const dir = project('export const usedHelper = 1\n')
    const run = await knip(dir)
    expect(run.output).toBe('')
    expect(run.code).toBe(0)
  })
})
