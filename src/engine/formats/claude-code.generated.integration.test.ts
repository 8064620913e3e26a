/**
 * The Claude Code importer on a generated 2 MB session with inline sidechains (sub-agent records,
 * as older Claude Code versions wrote them) and recorded compactions, written by
 * scripts/gen-large-claude-code.mjs (a child process, hence an integration test).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateLargeSession } from '../../../test/fixtures'
import { checkValidity } from '../analysis/checks'
import { importClaudeCode } from './claude-code'

describe('importClaudeCode on a generated large file with sidechains', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-gen-'))
  const file = join(dir, 'big.jsonl')
  generateLargeSession(2, file, ['--sidechains'])
  const raw = readFileSync(file, 'utf8')
  const records = raw
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  const result = importClaudeCode(raw)
  if (!result.ok) throw new Error(result.error.message)
  const tr = result.transcript
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('has no orphan tool results and unique ids, in the main line and every sidechain', () => {
    for (const t of [tr, ...(tr.sidechains ?? [])]) {
      expect(checkValidity(t.messages).filter((p) => p.rule === 'orphan-tool-result')).toEqual([])
      expect(new Set(t.messages.map((m) => m.id)).size).toBe(t.messages.length)
    }
  })

  it('records one compaction per compact_boundary line', () => {
    const boundaries = records.filter((r) => r.subtype === 'compact_boundary').length
    expect(boundaries).toBeGreaterThan(0)
    expect(tr.recordedCompactions).toHaveLength(boundaries)
    for (const c of tr.recordedCompactions) expect(c.summaryText).toMatch(/^This session is/)
  })

  it('returns one sub-agent transcript per agentId, and keeps every main-line message record', () => {
    const agents = new Set(records.filter((r) => r.isSidechain === true).map((r) => r.agentId))
    expect(tr.sidechains).toHaveLength(agents.size)
    // Main-line assistant responses: one message per distinct message.id.
    const mainIds = new Set(
      records
        .filter((r) => r.type === 'assistant' && r.isSidechain !== true)
        .map((r) => (r.message as { id: string }).id),
    )
    expect(tr.messages.filter((m) => m.role === 'assistant')).toHaveLength(mainIds.size)
    expect(tr.branches).toBeUndefined()
  })
})
