import { expect, test, type Locator, type Page } from '@playwright/test'
import { openApp, rows, watchErrors } from './helpers'

declare global {
  interface Window {
    __cspViolations?: string[]
  }
}

/** The served index.html's CSP <meta> content and its scripts, read by the browser's own HTML parser. */
async function servedPage(page: Page): Promise<{ policy: string | null; scripts: { src: string; text: string }[] }> {
  const response = await page.request.get('/')
  expect(response.ok()).toBe(true)
  const html = await response.text()
  return page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'text/html')
    const meta = doc.querySelector('meta[http-equiv="Content-Security-Policy" i]')
    const scripts = [...doc.querySelectorAll('script')].map((s) => ({ src: s.getAttribute('src') ?? '', text: s.text }))
    return { policy: meta?.getAttribute('content') ?? null, scripts }
  }, html)
}

/** A policy string as directive name → its source list. */
function directives(policy: string): Map<string, string[]> {
  const map = new Map<string, string[]>()
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/)
    if (name) map.set(name.toLowerCase(), sources)
  }
  return map
}

test('the built page carries a CSP meta: scripts and workers from its own origin only, connections to http(s)', async ({
  page,
}) => {
  const { policy, scripts } = await servedPage(page)
  expect(policy).not.toBeNull()
  const csp = directives(policy ?? '')

  const scriptSrc = csp.get('script-src') ?? []
  expect(scriptSrc).toContain("'self'")
  expect(scriptSrc).not.toContain("'unsafe-inline'")
  expect(scriptSrc).not.toContain("'unsafe-eval'")
  expect(csp.get('worker-src')).toEqual(["'self'"])
  expect(csp.get('connect-src')).toEqual(expect.arrayContaining(["'self'", 'http:', 'https:']))
  expect(csp.get('default-src')).toEqual(["'self'"])
  expect(csp.get('object-src')).toEqual(["'none'"])
  expect(csp.get('base-uri')).toEqual(["'self'"])
  expect(csp.get('form-action')).toEqual(["'none'"])
  // Nothing anywhere may fall back to inline code or eval.
  expect(policy).not.toMatch(/'unsafe-(inline|eval)'|'wasm-unsafe-eval'/)

  // The policy could not allow an inline script: the built page has none (module preload included).
  expect(scripts.length).toBeGreaterThan(0)
  for (const s of scripts) {
    expect(s.src).not.toBe('')
    expect(s.text.trim()).toBe('')
  }
})

/** Each main tab (src/app/tabs.tsx) and what shows once its view has rendered. */
const TABS: { name: string; ready: (page: Page) => Locator }[] = [
  { name: 'Before | After', ready: (page) => rows(page, 'after').first() },
  { name: 'Table', ready: (page) => page.getByTestId('message-table') },
  { name: 'Facts', ready: (page) => page.getByTestId('facts-table') },
  { name: 'Stage by stage', ready: (page) => page.getByTestId('stage-step-final') },
  { name: 'Timeline', ready: (page) => page.getByTestId('timeline-chart').locator('canvas').first() },
  { name: 'Turn N', ready: (page) => page.getByTestId('turn-row').first() },
  { name: 'Sweep', ready: (page) => page.getByTestId('sweep-view') },
]

test('every view, a re-plan, the cost view, a sweep and a download run under the policy without a violation', async ({
  page,
}) => {
  // Violations reach the page as events (recorded into window) and as console messages.
  await page.addInitScript(() => {
    window.__cspViolations = []
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations?.push(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`)
    })
  })
  const cspConsole: string[] = []
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) cspConsole.push(`${m.type()}: ${m.text()}`)
  })
  const errors = watchErrors(page)
  await openApp(page)
  // The live document is under the policy (the meta came first in <head>).
  await expect(page.locator('head meta[http-equiv="Content-Security-Policy"]')).toHaveCount(1)

  // Every tab the page offers is one this test visits: a new view must be added to TABS.
  const tabList = page.getByRole('tablist', { name: 'View' })
  expect(await tabList.getByRole('tab').allTextContents()).toEqual(TABS.map((t) => t.name))
  for (const { name, ready } of TABS) {
    const tab = tabList.getByRole('tab', { name, exact: true })
    await tab.click()
    await expect(tab).toHaveAttribute('aria-selected', 'true')
    await expect(ready(page)).toBeVisible()
  }

  // The sweep's heat map: 64 pipelines in the worker, cells coloured through style props.
  const sweep = page.getByTestId('sweep-view')
  await sweep.getByTestId('sweep-run').click()
  await expect(sweep.getByTestId('sweep-progress')).toHaveAttribute('data-status', 'done', { timeout: 90_000 })
  await expect(sweep.getByTestId('sweep-cell')).toHaveCount(64)

  // A re-plan: keep_last down by ten steps re-runs the pipeline in the worker.
  await tabList.getByRole('tab', { name: 'Timeline' }).click()
  const tokensAfter = page.getByTestId('tokens-after')
  const initialTokens = (await tokensAfter.textContent()) ?? ''
  const slider = page.getByRole('slider', { name: 'summarize keep_last' })
  await slider.focus()
  for (let i = 0; i < 10; i++) await slider.press('ArrowLeft')
  await expect(tokensAfter).not.toHaveText(initialTokens)
  await expect(page.getByTestId('loading')).toHaveCount(0)
  await expect(page.getByTestId('timeline-caption')).toHaveAttribute('data-done', 'true')

  // The cost view and its uPlot chart.
  const cost = page.getByTestId('cost-view')
  await cost.locator('summary').click()
  await expect(page.getByTestId('cost-totals')).toBeVisible()
  await expect(page.getByTestId('cost-chart').locator('canvas').first()).toBeVisible()

  // A download goes through a blob: URL on <a download>, which no directive blocks.
  await page.getByTestId('export-menu').locator('summary').click()
  const group = page.getByRole('group', { name: /^Download the/ })
  const [file] = await Promise.all([page.waitForEvent('download'), group.getByRole('button', { name: 'Canonical JSON' }).click()])
  expect(file.suggestedFilename()).toMatch(/\.json$/)

  expect(await page.evaluate(() => window.__cspViolations)).toEqual([])
  expect(cspConsole).toEqual([])
  expect(errors).toEqual([])
})

test('the page and its worker scripts are served with the policy as a header, with frame-ancestors', async ({ page }) => {
  const page_ = await page.request.get('/')
  const header = page_.headers()['content-security-policy'] ?? ''
  const { policy } = await servedPage(page)
  // The header is the meta's policy (one definition) plus what only a header can say.
  expect(header).toBe(`${policy}; frame-ancestors 'none'`)
  expect(page_.headers()['x-frame-options']).toBe('DENY')
  expect(page_.headers()['x-content-type-options']).toBe('nosniff')

  // A module worker takes its policy from its own script's response, not from the page's meta.
  const workers: string[] = []
  page.on('worker', (w) => workers.push(w.url()))
  await openApp(page)
  const engine = workers.find((u) => /engine\.worker/.test(u))
  expect(engine).toBeDefined()
  const worker = await page.request.get(engine ?? '')
  expect(worker.ok()).toBe(true)
  expect(worker.headers()['content-security-policy']).toBe(header)
})

test('a page that frames the app is refused', async ({ page, baseURL }) => {
  // Any other origin (here a data: page) embedding the app: the browser puts its error page in the
  // frame instead of the app (frame-ancestors 'none').
  await page.goto(`data:text/html,<iframe src="${baseURL}/" width="800" height="600"></iframe>`)
  const frame = () => page.frames().find((f) => f !== page.mainFrame())
  await expect.poll(() => frame()?.url() ?? '', { timeout: 30_000 }).toMatch(/^chrome-error:/)
  // The same page with no frame loads the app (the refusal is about framing, not the server).
  expect((await page.request.get(`${baseURL}/`)).ok()).toBe(true)
})
