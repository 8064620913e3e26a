/**
 * The rooms of DESIGN §2, as the repository's own ESLint config enforces them: each probe is a
 * line of code linted as if it were a file at the given path (ESLint's Node API with the real
 * eslint.config.js; nothing is written to disk).
 */
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
let eslint: ESLint

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT })
})

/** The rule ids ESLint reports for `code` placed at `path` (relative to the repository). */
async function rulesFor(path: string, code: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(`${code}\nexport const probe = 1\n`, { filePath: `${ROOT}${path}` })
  return (result?.messages ?? []).map((m) => m.ruleId)
}

const RESTRICTED = '@typescript-eslint/no-restricted-imports'

describe('lint keeps the rooms apart', () => {
  it('a component may not import the store', async () => {
    expect(await rulesFor('src/components/Probe.tsx', "import { useStore } from '../state/store'\nuseStore()")).toContain(RESTRICTED)
  })

  it('a component or a feature may not import the engine client', async () => {
    const code = "import { getEngine } from '../../app/engine-client'\nvoid getEngine()"
    expect(await rulesFor('src/features/costs/Probe.tsx', code)).toContain(RESTRICTED)
    expect(await rulesFor('src/components/Probe.tsx', code.replace('../../', '../'))).toContain(RESTRICTED)
  })

  it('a feature may not import worker runtime code, but may import its types', async () => {
    const value = "import { engineApi } from '../../worker/engine-api'\nvoid engineApi"
    expect(await rulesFor('src/features/compare/Probe.tsx', value)).toContain(RESTRICTED)
    const types = "import type { RunView } from '../../worker/protocol'\nexport type Shown = RunView"
    expect(await rulesFor('src/features/compare/Probe.tsx', types)).toEqual([])
  })

  it('a feature may use the store (that is how it reaches the worker)', async () => {
    expect(await rulesFor('src/features/costs/Probe.tsx', "import { useStore } from '../../state/store'\nvoid useStore")).toEqual([])
  })

  it('the engine imports neither React nor other rooms', async () => {
    expect(await rulesFor('src/engine/probe.ts', "import { useState } from 'react'\nvoid useState")).toContain('no-restricted-imports')
    expect(await rulesFor('src/engine/probe.ts', "import { useStore } from '../state/store'\nvoid useStore")).toContain('no-restricted-imports')
  })
})
