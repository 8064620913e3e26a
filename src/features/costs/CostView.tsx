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
  type RunTokens,
} from '../../engine/costs'
import { getEngine } from '../../app/engine-client'
import { useStore } from '../../state/store'
import { formatDollars, strategyBars } from './strategies'
import { StrategyChart } from './StrategyChart'
import '../summarizer/summarizer.css'

type PriceField = 'input' | 'cachedInput' | 'output'

/**
 * What compaction costs (issue 4 point 4): per pass and in total the summarizer calls' input,
 * cached input and output tokens and dollars; insert-then-compress with its cached prefix vs cold
 * vs a separate call; the agent's following turns before vs after compaction; at an editable
 * price table whose defaults are dated. Token counts come from the worker (engine `runTokens`).
 */
export function CostView() {
  const run = useStore((s) => s.run)
  const model = useStore((s) => s.config?.summarizerOptions?.model)
  const [open, setOpen] = useState(false)
  const [tokens, setTokens] = useState<RunTokens | null>(null)
  const [prices, setPrices] = useState<ModelPrice[]>(() => DEFAULT_PRICES.map((p) => ({ ...p })))
  const [chosen, setChosen] = useState<string | null>(null)
  const [turns, setTurns] = useState<FollowingTurns>(DEFAULT_FOLLOWING_TURNS)

  useEffect(() => {
    if (!open || !run) return
    let current = true
    getEngine()
      .getRunTokens(run.encoding)
      .then(
        (t) => current && setTokens(t),
        () => current && setTokens(null),
      )
    return () => {
      current = false
    }
  }, [open, run])

  const price =
    prices.find((p) => p.model === chosen) ??
    (model ? findPrice(prices, model) : undefined) ??
    prices.find((p) => p.model === 'gpt-5-mini') ??
    prices[0]
  const cost = useMemo(() => (tokens && price ? estimateRunCost(tokens, price, turns) : null), [tokens, price, turns])
  const bars = useMemo(() => (cost ? strategyBars(cost) : []), [cost])

  const setPrice = (modelId: string, field: PriceField, value: number) =>
    setPrices((ps) => ps.map((p) => (p.model === modelId ? { ...p, [field]: value } : p)))

  return (
    <details className="cost-view" data-testid="cost-view" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Cost of compaction — summarizer calls, prompt cache, following turns</summary>
      {open && (!cost || !price) && <p className="muted">Counting…</p>}
      {open && cost && price && (
        <>
          <p className="panel__hint" data-testid="prices-as-of">
            Prices as of {DEFAULT_PRICES_AS_OF} (USD per million tokens), check the provider&apos;s page:{' '}
            <a href={price.source.startsWith('http') ? price.source : undefined} target="_blank" rel="noreferrer">
              {price.source}
            </a>
            . Token counts are this app&apos;s estimate of the provider&apos;s.
          </p>
          <div className="field">
            <label htmlFor="cost-model">Priced as</label>
            <select id="cost-model" value={price.model} onChange={(e) => setChosen(e.target.value)}>
              {prices.map((p) => (
                <option key={p.model} value={p.model}>
                  {p.model}
                </option>
              ))}
            </select>
          </div>
          <table aria-label="Price table">
            <thead>
              <tr>
                <th>model</th>
                <th>input $/M</th>
                <th>cached input $/M</th>
                <th>output $/M</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>{price.model}</td>
                {(['input', 'cachedInput', 'output'] as const).map((field) => (
                  <td key={field}>
                    <input
                      type="number"
                      min={0}
                      step="any"
                      aria-label={`${price.model} ${field} price`}
                      value={price[field]}
                      onChange={(e) => {
                        const v = Number(e.target.value)
                        if (Number.isFinite(v) && v >= 0) setPrice(price.model, field, v)
                      }}
                    />
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
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
          <p data-testid="cost-totals">
            Total: {formatDollars(cost.total.withoutCompaction)} without compaction vs{' '}
            {formatDollars(cost.total.withCompaction)} with it (summarizer calls + following turns).
          </p>
          <StrategyChart bars={bars} />
        </>
      )}
    </details>
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
