import { useEffect, useMemo, useState } from 'react'
import { formatCount } from '../../components/format'
import {
  DEFAULT_FOLLOWING_TURNS,
  DEFAULT_PRICES,
  DEFAULT_PRICES_AS_OF,
  estimateRunCost,
  findPrice,
  type FollowingTurns,
  type ModelPrice,
  type Priced,
} from '../../engine/analysis/costs'
import { useStore } from '../../state/store'
import { useCosts } from '../../state/hooks'
import { figuresRunOf, selectFiguresKey } from '../../state/selectors'
import { formatDollars, strategyBars } from './strategies'
import { StrategyChart } from './StrategyChart'
import '../summarizer/summarizer.css'

type PriceField = 'input' | 'cachedInput' | 'output' | 'cacheWrite'

/** The editable columns of the price table and how their inputs are labelled. */
const PRICE_FIELDS: readonly { field: PriceField; header: string; label: string }[] = [
  { field: 'input', header: 'input', label: 'input' },
  { field: 'cachedInput', header: 'cached input', label: 'cached input' },
  { field: 'output', header: 'output', label: 'output' },
  { field: 'cacheWrite', header: 'cache write', label: 'cache write' },
]

/**
 * What compaction costs: per pass and in total the summarizer calls' input,
 * cached input and output tokens and dollars; insert-then-compress with its cached prefix vs cold
 * vs a separate call; the agent's following turns before vs after compaction; at an editable
 * price table whose defaults are dated. Token counts come from the worker (engine `runTokens`) for
 * the run the figures are about (`figuresRunOf`): in Recorded mode what the file records — the
 * following turns over the context the agent kept, and no summarizer call (its own compaction
 * requests are not in the file).
 */
export function CostView() {
  const key = useStore(selectFiguresKey)
  const recorded = useStore((s) => figuresRunOf(s)?.recorded !== undefined)
  const model = useStore((s) => s.config?.summarizerOptions?.model)
  const baseUrl = useStore((s) => s.config?.summarizerOptions?.baseUrl)
  const [open, setOpen] = useState(false)
  const { runTokens: held, requestRunTokens } = useCosts()
  const tokens = held && held.key === key ? held.tokens : null
  const [prices, setPrices] = useState<ModelPrice[]>(() => DEFAULT_PRICES.map((p) => ({ ...p })))
  const [chosen, setChosen] = useState<string | null>(null)
  const [turns, setTurns] = useState<FollowingTurns>(DEFAULT_FOLLOWING_TURNS)

  useEffect(() => {
    if (open && key !== null) requestRunTokens()
  }, [open, key, requestRunTokens])

  const choice = choosePrice(prices, chosen, model, baseUrl)
  const price = choice?.price
  const cost = useMemo(() => (tokens && price ? estimateRunCost(tokens, price, turns) : null), [tokens, price, turns])
  const bars = useMemo(() => (cost ? strategyBars(cost) : []), [cost])

  const setPrice = (modelId: string, field: PriceField, value: number | undefined) =>
    setPrices((ps) =>
      ps.map((p) => {
        if (p.model !== modelId) return p
        const next: ModelPrice = { ...p }
        if (value === undefined) delete next[field as 'cacheWrite']
        else next[field] = value
        return next
      }),
    )

  return (
    <details className="cost-view" data-testid="cost-view" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary title="Summarizer calls, prompt cache, following turns">Cost of compaction</summary>
      {open && (!cost || !price) && <p className="muted">Counting…</p>}
      {open && cost && price && (
        <>
          <p className="panel__hint" data-testid="prices-as-of">
            Default prices as of {DEFAULT_PRICES_AS_OF}, in USD per million tokens — prices change: check the
            provider&apos;s pricing page ({sourceLinks(prices)}) and edit any row. Token counts are this app&apos;s
            estimate of the provider&apos;s.
          </p>
          <p className="cost-view__priced-as" data-testid="priced-as">
            Priced as <strong>{price.model}</strong> — {choice?.why}
          </p>
          <PriceTable prices={prices} chosen={price.model} onChoose={setChosen} onEdit={setPrice} />
          <div className="cost-view__table-actions">
            <button
              type="button"
              className="button button--small"
              disabled={samePrices(prices, DEFAULT_PRICES)}
              onClick={() => setPrices(DEFAULT_PRICES.map((p) => ({ ...p })))}
            >
              Reset to the dated defaults
            </button>
          </div>
          {recorded ? (
            <p className="panel__hint" data-testid="cost-recorded">
              Recorded compaction: the agent made its compaction requests itself and the file does not
              hold them, so no summarizer call is priced here. The following turns are over the context
              the agent kept.
            </p>
          ) : (
            <table aria-label="Summarizer calls" data-testid="cost-passes">
              <thead>
                <tr>
                  <th>call</th>
                  <th>input</th>
                  <th>cached input</th>
                  <th>output</th>
                  <th>$</th>
                </tr>
              </thead>
              <tbody>
                {cost.passes.map((p) => (
                  <PassRows key={`${p.stage}:${p.pass}`} name={`${p.stage} pass ${p.pass}`} pass={p} />
                ))}
                <UsageRow name="all summarizer calls" priced={cost.summarization} strong />
              </tbody>
            </table>
          )}
          <fieldset className="cost-view__turns">
            <legend>The agent&apos;s following turns</legend>
            <NumberField label="turns" value={turns.turns} onChange={(v) => setTurns({ ...turns, turns: v })} />
            <NumberField
              label="new tokens per turn"
              value={turns.newTokensPerTurn}
              onChange={(v) => setTurns({ ...turns, newTokensPerTurn: v })}
            />
            <NumberField
              label="output tokens per turn"
              value={turns.outputTokensPerTurn}
              onChange={(v) => setTurns({ ...turns, outputTokensPerTurn: v })}
            />
            <label className="checkbox">
              <input
                type="checkbox"
                checked={turns.caching}
                onChange={(e) => setTurns({ ...turns, caching: e.target.checked })}
              />{' '}
              prompt caching
            </label>
          </fieldset>
          <table aria-label="Following turns" data-testid="cost-turns">
            <thead>
              <tr>
                <th />
                <th>input</th>
                <th>cached input</th>
                <th>output</th>
                <th>$</th>
              </tr>
            </thead>
            <tbody>
              <UsageRow name="without compaction" priced={cost.followingTurns.withoutCompaction} />
              <UsageRow name="after compaction (cache rebuilt)" priced={cost.followingTurns.withCompaction} />
            </tbody>
          </table>
          {recorded ? (
            <p data-testid="cost-totals">
              Following turns: {formatDollars(cost.total.withoutCompaction)} without compaction vs{' '}
              {formatDollars(cost.total.withCompaction)} after the agent&apos;s compaction (its own calls not counted).
            </p>
          ) : (
            <>
              <p data-testid="cost-totals">
                Total: {formatDollars(cost.total.withoutCompaction)} without compaction vs{' '}
                {formatDollars(cost.total.withCompaction)} with it (summarizer calls + following turns).
              </p>
              <StrategyChart bars={bars} />
            </>
          )}
        </>
      )}
    </details>
  )
}

function hostnameOf(url: string | undefined): string {
  try {
    return url ? new URL(url).hostname : ''
  } catch {
    return ''
  }
}

/** Hosts of a model on the person's own machine: no per-token price. */
const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]', '0.0.0.0']

/**
 * The row the figures use, and why: the one the person picked; else the summarizer's model
 * (`findPrice`); else `local` for an endpoint on this machine; else gpt-5-mini as an example.
 */
function choosePrice(
  prices: readonly ModelPrice[],
  chosen: string | null,
  model: string | undefined,
  baseUrl: string | undefined,
): { price: ModelPrice; why: string } | undefined {
  const picked = prices.find((p) => p.model === chosen)
  if (picked) return { price: picked, why: 'your choice in the table.' }
  const matched = model ? findPrice(prices, model) : undefined
  if (matched) return { price: matched, why: `the summarizer's model (${model}).` }
  const host = hostnameOf(baseUrl)
  const local = prices.find((p) => p.model === 'local')
  if (local && LOCAL_HOSTS.includes(host))
    return { price: local, why: `${model ?? 'the model'} runs on this machine (${host}).` }
  const example = prices.find((p) => p.model === 'gpt-5-mini') ?? prices[0]
  if (!example) return undefined
  const why = model
    ? `the table has no price for ${model}: pick a row or edit one.`
    : 'an example; pick the row of the model your agent uses.'
  return { price: example, why }
}

/** The provider pages the default prices were read from, as links. */
function sourceLinks(prices: readonly ModelPrice[]) {
  const sources = [...new Set(prices.map((p) => p.source).filter((src) => src.startsWith('https://')))]
  return sources.map((src, i) => (
    <span key={src}>
      {i > 0 ? ', ' : ''}
      <a href={src} target="_blank" rel="noreferrer">
        {new URL(src).host}
      </a>
    </span>
  ))
}

function samePrices(a: readonly ModelPrice[], b: readonly ModelPrice[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * Every model's prices, each cell editable (USD per million tokens); the row the figures use is
 * chosen with its radio (it follows the summarizer's model until the person picks one). An empty
 * cache-write cell means writes cost the input price (OpenAI bills no cache writes).
 */
function PriceTable({
  prices,
  chosen,
  onChoose,
  onEdit,
}: {
  prices: readonly ModelPrice[]
  chosen: string
  onChoose: (model: string) => void
  onEdit: (model: string, field: PriceField, value: number | undefined) => void
}) {
  return (
    <table aria-label="Price table" className="cost-view__prices" data-testid="price-table">
      <thead>
        <tr>
          <th>priced as</th>
          <th>model</th>
          {PRICE_FIELDS.map((f) => (
            <th key={f.field}>{f.header} $/M</th>
          ))}
          <th>as of</th>
        </tr>
      </thead>
      <tbody>
        {prices.map((p) => (
          <tr key={p.model} className={p.model === chosen ? 'cost-view__chosen' : undefined}>
            <td>
              <input
                type="radio"
                name="cost-model"
                aria-label={`price as ${p.model}`}
                checked={p.model === chosen}
                onChange={() => onChoose(p.model)}
              />
            </td>
            <td title={p.source}>{p.model}</td>
            {PRICE_FIELDS.map(({ field, label }) => (
              <td key={field}>
                <PriceInput
                  label={`${p.model} ${label} price`}
                  value={p[field]}
                  optional={field === 'cacheWrite'}
                  onChange={(v) => onEdit(p.model, field, v)}
                />
              </td>
            ))}
            <td className="muted">{p.asOf}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/**
 * A price cell: keeps what is typed (so "0." or an empty cell can be edited through) and passes
 * on every valid non-negative number; an emptied optional cell passes undefined.
 */
function PriceInput({
  label,
  value,
  optional,
  onChange,
}: {
  label: string
  value: number | undefined
  optional: boolean
  onChange: (v: number | undefined) => void
}) {
  const [text, setText] = useState(value === undefined ? '' : String(value))
  const [shown, setShown] = useState(value)
  if (value !== shown) {
    // Reset from outside (defaults restored): show the new value.
    setShown(value)
    if (value === undefined ? text.trim() !== '' : Number(text) !== value) setText(value === undefined ? '' : String(value))
  }
  return (
    <input
      type="number"
      min={0}
      step="any"
      aria-label={label}
      value={text}
      placeholder={optional ? '= input' : undefined}
      onChange={(e) => {
        const t = e.target.value
        setText(t)
        if (t.trim() === '') {
          if (optional) onChange(undefined)
          return
        }
        const v = Number(t)
        if (Number.isFinite(v) && v >= 0) onChange(v)
      }}
    />
  )
}

function PassRows({ name, pass }: { name: string; pass: Priced & { withoutCache?: Priced; separateCall?: Priced } }) {
  return (
    <>
      <UsageRow name={pass.withoutCache ? `${name} (cached prefix)` : name} priced={pass} />
      {pass.withoutCache && <UsageRow name={`${name} — cold cache`} priced={pass.withoutCache} muted />}
      {pass.separateCall && <UsageRow name={`${name} — as a separate call`} priced={pass.separateCall} muted />}
    </>
  )
}

function UsageRow({ name, priced, strong, muted }: { name: string; priced: Priced; strong?: boolean; muted?: boolean }) {
  const { usage, cost } = priced
  return (
    <tr className={muted ? 'muted' : undefined} style={strong ? { fontWeight: 600 } : undefined}>
      <td>{name}</td>
      <td>{formatCount(usage.input)}</td>
      <td>{formatCount(usage.cachedInput)}</td>
      <td>{formatCount(usage.output)}</td>
      <td>{formatDollars(cost.total)}</td>
    </tr>
  )
}

function NumberField({ label, value, onChange }: { label: string; value: number; onChange: (v: number) => void }) {
  return (
    <label className="cost-view__number">
      {label}{' '}
      <input
        type="number"
        min={0}
        value={value}
        onChange={(e) => {
          const v = Number(e.target.value)
          if (Number.isFinite(v) && v >= 0) onChange(v)
        }}
      />
    </label>
  )
}
