import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { PipelineConfig, StageConfig, StageId } from '../../engine/model'
import { DEFAULT_PIPELINE } from '../../engine/pipeline'
import { applyPreset, PRESETS } from '../../engine/presets'
import { STAGE_DEFINITIONS } from '../../engine/stages/definitions'
import {
  configTextFromHash,
  decodeConfig,
  encodeConfig,
  hashEntry,
  hashWithConfig,
  hashWithEntry,
  hashWithWatched,
  noticeLine,
  PARAM_KINDS,
  type ParamKind,
  watchedFromHash,
} from './url-config'

/** A fixed config (not the engine defaults, which may change): all six stages, one reordered. */
const FIXTURE: PipelineConfig = {
  encoding: 'o200k_base',
  summarizer: 'extractive',
  stages: [
    { id: 'dedupe', enabled: true, params: {} },
    { id: 'slim', enabled: false, params: { keep: 5 } },
    { id: 'prune-tool-results', enabled: true, params: { target: 12000, keep_steps: 1, min_tokens: 200 } },
    { id: 'summarize', enabled: true, params: { keep_last: 20, compact_after: 40 } },
    { id: 'insert-then-compress', enabled: false, params: { threshold_tokens: 5000, keep_recent: 10 } },
    { id: 'pin-facts', enabled: false, params: { max_facts: 40 } },
  ],
}

const FIXTURE_TEXT =
  'v1;e=o200k_base;s=extractive;dedupe;-slim:keep=5;' +
  'prune-tool-results:target=12000,keep_steps=1,min_tokens=200;summarize:keep_last=20,compact_after=40;' +
  '-insert-then-compress:threshold_tokens=5000,keep_recent=10;-pin-facts:max_facts=40'

function stage<K extends StageId>(config: PipelineConfig, id: K): Extract<StageConfig, { id: K }> {
  const found = config.stages.find((s) => s.id === id)
  if (!found) throw new Error(`no stage ${id}`)
  return found as Extract<StageConfig, { id: K }>
}

describe('encodeConfig', () => {
  it('writes the version, encoding, summarizer, then every stage in order with its params', () => {
    expect(encodeConfig(FIXTURE)).toBe(FIXTURE_TEXT)
  })

  it('percent-encodes text so separators never appear raw, and keeps / readable in a base URL', () => {
    const config = structuredClone(FIXTURE)
    stage(config, 'summarize').params.prompt = 'a;b,c=d:e+f%g&h#i'
    config.summarizer = 'openai-compatible'
    config.summarizerOptions = { baseUrl: 'http://localhost:11434/v1', model: 'llama3.2', stream: false }
    const text = encodeConfig(config)
    expect(text).toContain('prompt=a%3Bb%2Cc%3Dd%3Ae%2Bf%25g%26h%23i')
    expect(text).toContain(';url=http%3A//localhost%3A11434/v1;model=llama3.2;stream=false;')
    // v1, e, s + url, model, stream + 6 stages = 12 segments: no separator leaked from the prompt.
    expect(text.split(';')).toHaveLength(12)
    expect(text).not.toContain('&')
  })

  it("never writes a base URL's credentials: a user:pass and a key in the query are masked", () => {
    const config = structuredClone(FIXTURE)
    config.summarizer = 'openai-compatible'
    config.summarizerOptions = { baseUrl: 'https://ana:pw-s3cret-9@llm.example/v1?key=q-s3cret-8', model: 'm' }
    const text = encodeConfig(config)
    expect(text).toContain(';url=https%3A//%2A%2A%2A%40llm.example/v1%3Fkey%3D%2A%2A%2A;model=m;')
    expect(text).not.toContain('s3cret')
  })
})

describe('decodeConfig', () => {
  it('reads the fixture back exactly, with no notices', () => {
    expect(decodeConfig(FIXTURE_TEXT, FIXTURE)).toEqual({ config: FIXTURE, notices: [] })
  })

  it('ignores unknown or invalid values with a notice; a param left out is absent (the engine default), not the base value', () => {
    const { config, notices } = decodeConfig(
      'v1;e=p50k_base;s=gpt;summarize:keep_last=abc,compact_after=30,foo=1,summary_role=assistant;bogus;' +
        '-dedupe;prune-tool-results:target=Infinity,keep_steps=2,min_tokens=0',
      DEFAULT_PIPELINE,
    )
    expect(config.encoding).toBe('o200k_base')
    expect(config.summarizer).toBe('extractive')
    // The bad keep_last and summary_role are dropped (the engine reads keep_last as its default 20).
    expect(stage(config, 'summarize').params).toEqual({ compact_after: 30 })
    expect(stage(config, 'dedupe').enabled).toBe(false)
    expect(stage(config, 'prune-tool-results').params).toEqual({ keep_steps: 2, min_tokens: 0 })
    expect(notices).toEqual([
      'unknown encoding "p50k_base"',
      'unknown summarizer "gpt"',
      'summarize keep_last "abc" is not a number',
      'summarize: unknown param "foo"',
      'summarize summary_role "assistant" is not one of user, system',
      'unknown stage "bogus"',
      'prune-tool-results target "Infinity" is not a number',
      ...DEFAULT_PIPELINE.stages
        .filter((s) => !['summarize', 'dedupe', 'prune-tool-results'].includes(s.id))
        .map((s) => `stage ${s.id} missing`),
    ])
  })

  it('puts the stages the link names first, in its order, then the base stages it lacks', () => {
    const { config, notices } = decodeConfig('v1;summarize:keep_last=5,compact_after=9;dedupe', FIXTURE)
    expect(config.stages.map((s) => s.id)).toEqual([
      'summarize',
      'dedupe',
      'slim',
      'prune-tool-results',
      'insert-then-compress',
      'pin-facts',
    ])
    expect(stage(config, 'slim')).toEqual({ id: 'slim', enabled: false, params: { keep: 5 } })
    expect(notices).toHaveLength(4)
  })

  it('uses the first of a repeated stage', () => {
    const { config, notices } = decodeConfig('v1;-pin-facts:max_facts=3;pin-facts:max_facts=9', FIXTURE)
    expect(stage(config, 'pin-facts')).toEqual({ id: 'pin-facts', enabled: false, params: { max_facts: 3 } })
    expect(notices[0]).toBe('stage pin-facts appears twice (the first is used)')
  })

  it('keeps the whole base for another version or something that is no settings string', () => {
    expect(decodeConfig('v2;dedupe', FIXTURE)).toEqual({
      config: FIXTURE,
      notices: ['settings of format v2 are not understood here; the current settings stay'],
    })
    expect(decodeConfig('hello', FIXTURE).notices).toEqual(['not a settings link; the current settings stay'])
  })

  it('reads a link whose separators were percent-encoded on the way', () => {
    expect(decodeConfig(encodeURIComponent(FIXTURE_TEXT), FIXTURE).config).toEqual(FIXTURE)
  })

  it('needs both url and model for a summarizer endpoint', () => {
    const { config, notices } = decodeConfig('v1;s=anthropic;model=claude-haiku-4-5', FIXTURE)
    expect(config.summarizer).toBe('anthropic')
    expect(config.summarizerOptions).toBeUndefined()
    expect(notices).toContain('summarizer endpoint needs both url and model')
  })
})

describe('the model window (w=)', () => {
  it('is written after the summarizer when set and read back; absent, the config has none (DEFAULT_WINDOW)', () => {
    const config = { ...structuredClone(FIXTURE), window: 1_000_000 }
    const text = encodeConfig(config)
    expect(text.startsWith('v1;e=o200k_base;s=extractive;w=1000000;dedupe;')).toBe(true)
    expect(decodeConfig(text, FIXTURE)).toEqual({ config, notices: [] })
    // A link without w does not take the base's window.
    expect(decodeConfig(FIXTURE_TEXT, config)).toEqual({ config: FIXTURE, notices: [] })
  })

  it('refuses a window that is not a whole number of tokens of at least 1,000, with a notice', () => {
    for (const raw of ['999', '200000.5', 'big']) {
      const { config, notices } = decodeConfig(FIXTURE_TEXT.replace(';dedupe;', `;w=${raw};dedupe;`), FIXTURE)
      expect(config.window).toBeUndefined()
      expect(notices).toEqual([`model window "${raw}" is not a whole number of tokens ≥ 1,000`])
    }
  })

  it('presets with a window keep it through a link', () => {
    const withWindow = PRESETS.filter((p) => p.window !== undefined)
    expect(withWindow.length).toBeGreaterThan(0)
    for (const preset of withWindow) {
      const config = applyPreset(preset, DEFAULT_PIPELINE)
      expect(encodeConfig(config)).toContain(`;w=${preset.window};`)
      expect(decodeConfig(encodeConfig(config), DEFAULT_PIPELINE).config.window).toBe(preset.window)
    }
  })
})

describe('hash helpers', () => {
  it('finds the cfg entry among others and replaces it in place', () => {
    expect(configTextFromHash('#turn=3&cfg=v1;dedupe&x=1')).toBe('v1;dedupe')
    expect(configTextFromHash('#turn=3')).toBeNull()
    expect(configTextFromHash('')).toBeNull()
    expect(hashWithConfig('#turn=3&cfg=v1;dedupe&x=1', FIXTURE)).toBe(`#turn=3&cfg=${FIXTURE_TEXT}&x=1`)
    expect(hashWithConfig('', FIXTURE)).toBe(`#cfg=${FIXTURE_TEXT}`)
    expect(hashWithConfig('#turn=3', FIXTURE)).toBe(`#cfg=${FIXTURE_TEXT}&turn=3`)
  })

  it('reads, sets, adds and removes one entry, leaving the others in place', () => {
    expect(hashEntry('#cfg=v1&m=41&tab=facts', 'm')).toBe('41')
    expect(hashEntry('m=41', 'm')).toBe('41')
    expect(hashEntry('#mm=4', 'm')).toBeNull()
    expect(hashWithEntry('#cfg=v1&m=41&tab=facts', 'm', '7')).toBe('#cfg=v1&m=7&tab=facts')
    expect(hashWithEntry('#cfg=v1', 'tab', 'facts')).toBe('#cfg=v1&tab=facts')
    expect(hashWithEntry('#cfg=v1', 'tab', 'facts', true)).toBe('#tab=facts&cfg=v1')
    expect(hashWithEntry('#cfg=v1&m=41', 'm', null)).toBe('#cfg=v1')
    expect(hashWithEntry('#m=41', 'm', null)).toBe('')
    expect(hashWithEntry('', 'm', null)).toBe('')
  })

  it('says at most three notices in one line', () => {
    expect(noticeLine([])).toBeNull()
    expect(noticeLine(['a', 'b', 'c', 'd', 'e'])).toBe('Some settings in the link were not used: a; b; c (and 2 more).')
    expect(noticeLine(['a'], 'session file')).toBe('Some settings in the session file were not used: a.')
  })

  it('says a repeated notice once and puts "missing" notices after what was refused', () => {
    const { notices } = decodeConfig('v1;summarize:keep_last=3;x;x;x', DEFAULT_PIPELINE)
    const endpoint = 'the openai-compatible summarizer at evil.example waits under Summarizer'
    // 7 notices: unknown stage "x" (once), the endpoint, then the five stages the link lacks, in the base's order.
    expect(noticeLine([...notices, endpoint])).toBe(
      `Some settings in the link were not used: unknown stage "x"; ${endpoint}; stage dedupe missing (and 4 more).`,
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const text = fc.string({ unit: 'grapheme', maxLength: 30 })
const finite = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
)

function valueOf(kind: ParamKind): fc.Arbitrary<unknown> {
  if (kind === 'number') return finite
  if (kind === 'flag') return fc.boolean()
  if (kind === 'text') return text
  if (kind === 'names') return fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), { maxLength: 4 })
  return fc.constantFrom(...kind)
}

/** Params of a stage: any of its params (every one is optional: absent is the engine default). */
function paramsOf(id: StageId): fc.Arbitrary<Record<string, unknown>> {
  const kinds = PARAM_KINDS[id]
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [name, kind] of Object.entries(kinds)) model[name] = valueOf(kind)
  return fc.record(model, { requiredKeys: [] })
}

/** A valid config: every stage once, in any order, any params of the right kinds. */
describe('token counts (cal=, co=, cr=, ao=)', () => {
  it('a link without them (every link made before) is auto calibration: no setting', () => {
    expect(decodeConfig(FIXTURE_TEXT, { ...FIXTURE, calibration: { mode: 'off' } })).toEqual({ config: FIXTURE, notices: [] })
  })

  it('writes the mode, the hand-set numbers and the preset overhead after the window, and reads them back', () => {
    const config: PipelineConfig = { ...structuredClone(FIXTURE), calibration: { mode: 'manual', overhead: 12_000, ratio: 1.25 } }
    const text = encodeConfig(config)
    expect(text.startsWith('v1;e=o200k_base;s=extractive;cal=manual;co=12000;cr=1.25;dedupe;')).toBe(true)
    expect(decodeConfig(text, FIXTURE)).toEqual({ config, notices: [] })
    const raw: PipelineConfig = { ...structuredClone(FIXTURE), calibration: { mode: 'off' } }
    expect(encodeConfig(raw).startsWith('v1;e=o200k_base;s=extractive;cal=off;dedupe;')).toBe(true)
    expect(decodeConfig(encodeConfig(raw), FIXTURE)).toEqual({ config: raw, notices: [] })
  })

  it('an agent overhead keeps the source of the preset that documents it; another figure says it came from the link', () => {
    const claude = PRESETS.find((p) => p.id === 'claude-code-200k')!
    const { config } = decodeConfig(FIXTURE_TEXT.replace(';dedupe;', ';ao=20000;dedupe;'), FIXTURE)
    expect(config.calibration).toEqual({ mode: 'auto', agentOverhead: { tokens: 20_000, source: claude.overhead!.source } })
    const other = decodeConfig(FIXTURE_TEXT.replace(';dedupe;', ';ao=1234;dedupe;'), FIXTURE).config
    expect(other.calibration).toEqual({ mode: 'auto', agentOverhead: { tokens: 1234, source: 'from the settings link' } })
  })

  it('refuses an unknown mode, an overhead that is not whole tokens ≥ 0 and a ratio outside 0.5–2.5, with notices', () => {
    const read = (segment: string) => decodeConfig(FIXTURE_TEXT.replace(';dedupe;', `;${segment};dedupe;`), FIXTURE)
    expect(read('cal=fitted')).toEqual({ config: FIXTURE, notices: ['unknown token counts "fitted"'] })
    for (const raw of ['-1', '12000.5', 'lots']) {
      expect(read(`co=${raw}`)).toEqual({ config: FIXTURE, notices: [`overhead "${raw}" is not a whole number of tokens ≥ 0`] })
      expect(read(`ao=${raw}`)).toEqual({ config: FIXTURE, notices: [`agent overhead "${raw}" is not a whole number of tokens ≥ 0`] })
    }
    for (const raw of ['0.49', '2.51', '0', 'x']) {
      expect(read(`cal=manual;cr=${raw}`)).toEqual({
        config: { ...FIXTURE, calibration: { mode: 'manual' } },
        notices: [`ratio "${raw}" is not between 0.5 and 2.5`],
      })
    }
    expect(read('cal=manual;co=0;cr=0.5').config.calibration).toEqual({ mode: 'manual', overhead: 0, ratio: 0.5 })
    expect(read('cr=2.5').config.calibration).toEqual({ mode: 'auto', ratio: 2.5 })
  })
})

const validConfig: fc.Arbitrary<PipelineConfig> = fc
  .record({
    order: fc.shuffledSubarray(
      DEFAULT_PIPELINE.stages.map((s) => s.id),
      { minLength: DEFAULT_PIPELINE.stages.length },
    ),
    enabled: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    params: fc.record(
      Object.fromEntries(DEFAULT_PIPELINE.stages.map((s) => [s.id, paramsOf(s.id)])) as Record<
        StageId,
        fc.Arbitrary<Record<string, unknown>>
      >,
    ),
    encoding: fc.constantFrom('o200k_base' as const, 'cl100k_base' as const),
    window: fc.option(fc.integer({ min: 1000, max: 10_000_000 }), { nil: undefined }),
    calibration: fc.option(
      fc.record(
        {
          mode: fc.constantFrom('auto' as const, 'manual' as const, 'off' as const),
          overhead: fc.integer({ min: 0, max: 1_000_000 }),
          ratio: fc.double({ min: 0.5, max: 2.5, noNaN: true }),
          agentOverhead: fc.constantFrom(...PRESETS.flatMap((p) => (p.overhead ? [p.overhead] : []))),
        },
        { requiredKeys: ['mode'] },
      ),
      { nil: undefined },
    ),
    summarizer: fc.constantFrom('extractive' as const, 'openai-compatible' as const, 'anthropic' as const, 'recorded' as const),
    options: fc.option(
      fc.record(
        { baseUrl: text, model: text, stream: fc.boolean(), maxTokens: fc.integer({ min: 1, max: 100_000 }) },
        { requiredKeys: ['baseUrl', 'model'] },
      ),
      { nil: undefined },
    ),
  })
  .map(({ order, enabled, params, encoding, window, calibration, summarizer, options }) => {
    const config: PipelineConfig = {
      encoding,
      summarizer,
      stages: order.map((id, i) => ({ id, enabled: enabled[i] ?? true, params: params[id] }) as StageConfig),
    }
    if (window !== undefined) config.window = window
    // `auto` alone is the default, written as nothing and read back as no setting.
    if (calibration && (calibration.mode !== 'auto' || Object.keys(calibration).length > 1)) config.calibration = calibration
    if (options) config.summarizerOptions = options
    return config
  })

describe('properties', () => {
  it('every param of the default pipeline has a kind (else links would drop it)', () => {
    for (const s of DEFAULT_PIPELINE.stages) {
      for (const name of Object.keys(s.params)) expect(PARAM_KINDS[s.id]).toHaveProperty(name)
    }
  })

  it('every preset survives a link round trip with no notices (clear-tool-uses sets keep_tool_uses)', () => {
    for (const preset of PRESETS) {
      const config = applyPreset(preset, DEFAULT_PIPELINE)
      expect(decodeConfig(encodeConfig(config), DEFAULT_PIPELINE)).toEqual({ config, notices: [] })
    }
    const prune = {
      ...FIXTURE,
      stages: FIXTURE.stages.map((s) =>
        s.id === 'prune-tool-results' ? { ...s, params: { ...s.params, keep_tool_uses: 3 } } : s,
      ),
    } as PipelineConfig
    const text = encodeConfig(prune)
    expect(text).toContain('prune-tool-results:target=12000,keep_steps=1,min_tokens=200,keep_tool_uses=3;')
    expect(stage(decodeConfig(text, DEFAULT_PIPELINE).config, 'prune-tool-results').params.keep_tool_uses).toBe(3)
  })

  it('decode(encode(c)) equals c for every valid config, with no notices', () => {
    fc.assert(
      fc.property(validConfig, (config) => {
        expect(decodeConfig(encodeConfig(config), DEFAULT_PIPELINE)).toEqual({ config, notices: [] })
      }),
    )
  })

  it('decode never throws on any string and always yields every stage exactly once', () => {
    const separators = fc.string({ unit: fc.constantFrom(';', ':', ',', '=', '+', '-', '%', 'v1', 'e', 's', 'x', '3') })
    const anyText = fc.oneof(
      fc.string({ unit: 'binary' }),
      separators,
      separators.map((s) => `v1;${s}`),
      fc.constantFrom(...Object.keys(PARAM_KINDS)).chain((id) => separators.map((s) => `v1;${id}:${s}`)),
    )
    fc.assert(
      fc.property(anyText, (input) => {
        const { config } = decodeConfig(input, DEFAULT_PIPELINE)
        expect(config.stages.map((s) => s.id).sort()).toEqual(DEFAULT_PIPELINE.stages.map((s) => s.id).sort())
        expect(() => encodeConfig(config)).not.toThrow()
      }),
    )
  })
})

describe('link keys come from the stage definitions', () => {
  it('a link carries every param a stage defines, and nothing else', () => {
    for (const def of STAGE_DEFINITIONS) {
      expect(Object.keys(PARAM_KINDS[def.id]).sort()).toEqual(def.params.map((p) => p.key).sort())
    }
  })

  it('slim keep and pin-facts max_facts round-trip, and a bad value is left out with a notice', () => {
    const config = structuredClone(FIXTURE)
    const slim = config.stages.find((s) => s.id === 'slim')!
    const pin = config.stages.find((s) => s.id === 'pin-facts')!
    slim.params = { keep: 3 }
    pin.params = { max_facts: 12 }
    const text = encodeConfig(config)
    expect(text).toContain('slim:keep=3')
    expect(text).toContain('pin-facts:max_facts=12')
    expect(decodeConfig(text, FIXTURE)).toEqual({ config, notices: [] })
    const bad = decodeConfig(text.replace('keep=3', 'keep=x'), FIXTURE)
    expect(bad.config.stages.find((s) => s.id === 'slim')!.params).toEqual({})
    expect(bad.notices).toEqual(['slim keep "x" is not a number'])
  })
})

describe('watched facts in the hash (watch=)', () => {
  it('a list of texts with separators round-trips, after cfg, other entries kept', () => {
    const facts = ['ORD-58213', 'postal code 94107', 'a+b & c;d=e', 'ümlaut 🚀']
    const hash = hashWithWatched('#cfg=v1;e=o200k_base&x=1', facts)
    expect(hash).toBe('#cfg=v1;e=o200k_base&x=1&watch=ORD-58213+postal%20code%2094107+a%2Bb%20%26%20c%3Bd%3De+%C3%BCmlaut%20%F0%9F%9A%80')
    expect(watchedFromHash(hash)).toEqual(facts)
    expect(configTextFromHash(hash)).toBe('v1;e=o200k_base')
    // Writing the config again keeps the watched facts.
    expect(watchedFromHash(hashWithConfig(hash, FIXTURE))).toEqual(facts)
  })

  it('an empty list removes the entry; malformed or empty items are left out', () => {
    expect(hashWithWatched('#cfg=v1&watch=a', [])).toBe('#cfg=v1')
    expect(hashWithWatched('#watch=a', [])).toBe('')
    expect(watchedFromHash('#cfg=v1')).toEqual([])
    expect(watchedFromHash('#watch=a++%E0%A4%A+%20+b')).toEqual(['a', 'b'])
  })
})
