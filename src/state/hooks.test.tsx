import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it, vi } from 'vitest'

vi.mock('../app/engine-client', () => ({ getEngine: () => ({}), restartEngine: vi.fn() }))

const { useStore } = await import('./store')
const hooks = await import('./hooks')

/** What each hook returned in one render (a server render reads the store's initial state). */
function render(): Record<string, unknown> {
  const got: Record<string, unknown> = {}
  function Probe() {
    got.useRun = hooks.useRun()
    got.useRunActions = hooks.useRunActions()
    got.useLoadActions = hooks.useLoadActions()
    got.usePipelineActions = hooks.usePipelineActions()
    got.useSummarizerActions = hooks.useSummarizerActions()
    got.useRecordedActions = hooks.useRecordedActions()
    got.useViewActions = hooks.useViewActions()
    got.useSelection = hooks.useSelection()
    got.useInfo = hooks.useInfo()
    return null
  }
  renderToString(createElement(Probe))
  return got
}

describe('domain hooks', () => {
  it('return their slice fields by name, state as the store holds it', () => {
    const got = render()
    expect(got.useRun).toEqual({ run: null, runStatus: 'idle', runError: null, runStartedAt: null })
    expect(got.useInfo).toBeNull()
    expect(got.useSelection).toEqual({ selection: null, selectRow: useStore.getState().selectRow })
  })

  it('action hooks hand out the store actions themselves, and nothing else', () => {
    const got = render()
    const state = useStore.getState() as unknown as Record<string, unknown>
    for (const name of ['useRunActions', 'useLoadActions', 'usePipelineActions', 'useSummarizerActions', 'useRecordedActions', 'useViewActions']) {
      const actions = got[name] as Record<string, unknown>
      expect(Object.keys(actions).length).toBeGreaterThan(0)
      for (const [key, value] of Object.entries(actions)) {
        expect(typeof value, `${name}.${key}`).toBe('function')
        expect(value, `${name}.${key}`).toBe(state[key])
      }
    }
  })
})
