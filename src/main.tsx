import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/App'
import './styles/app.css'
import './styles/print.css'
import { applyThemeChoice, readThemeChoice } from './app/theme'

// The remembered theme, on <html> before the first render.
applyThemeChoice(readThemeChoice())

// `npm run bench` hooks (bench/), loaded only with ?bench.
if (new URLSearchParams(location.search).has('bench')) void import('./app/bench-hook').then((m) => m.installBenchHook())

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
