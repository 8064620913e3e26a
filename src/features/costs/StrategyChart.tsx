import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { formatDollars, type StrategyBar } from './strategies'

/** A small uPlot bar chart of the strategies' dollars. */
export function StrategyChart({ bars }: { bars: StrategyBar[] }) {
  const host = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = host.current
    if (!el) return
    const labels = bars.map((b) => b.label)
    const data: uPlot.AlignedData = [bars.map((_, i) => i), bars.map((b) => b.dollars)]
    const plot = new uPlot(
      {
        width: Math.max(320, Math.min(640, el.clientWidth || 560)),
        height: 220,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: [-0.5, bars.length - 0.5] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          {
            splits: () => bars.map((_, i) => i),
            values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
            size: 40,
          },
          { values: (_u, splits) => splits.map((v) => formatDollars(v)), size: 70 },
        ],
        series: [
          {},
          {
            label: 'dollars',
            fill: 'rgba(70, 120, 200, 0.6)',
            stroke: 'rgb(70, 120, 200)',
            paths: uPlot.paths.bars?.({ size: [0.6, 80] }),
            points: { show: false },
          },
        ],
      },
      data,
      el,
    )
    return () => plot.destroy()
  }, [bars])
  return (
    <div
      ref={host}
      className="cost-chart"
      role="img"
      aria-label={`Cost by strategy: ${bars.map((b) => `${b.label} ${formatDollars(b.dollars)}`).join(', ')}`}
      data-testid="cost-chart"
    />
  )
}
