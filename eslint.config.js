import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/** UI rooms never import the engine client or worker runtime code; `import type` is allowed. */
const NO_WORKER_RUNTIME = {
  group: ['**/app/engine-client', '**/worker/**'],
  allowTypeImports: true,
  message: 'UI code reaches the worker through a store action; import worker types with `import type`.',
}
/** Shared components take what they show as props. */
const NO_STORE = {
  group: ['**/state/**', '**/state'],
  message: 'src/components has no store access: pass the values in as props.',
}

/**
 * The import rule of a pure room (`room`: src/engine, src/report): no UI or transport library and
 * none of the page's, worker's or CLI's rooms, nor those in `alsoBanned`.
 */
function pureRoom(room, alsoBanned) {
  return {
    patterns: [
      { group: ['react', 'react-*', 'zustand', 'zustand/*', 'comlink', '@tanstack/*'], message: `${room} must stay UI- and transport-free.` },
      {
        group: ['**/app/**', '**/features/**', '**/components/**', '**/state/**', '**/worker/**', '**/cli/**', ...alsoBanned],
        message: room === 'src/engine' ? 'src/engine may only import from src/engine.' : `${room} may only import from ${room} and src/engine.`,
      },
    ],
  }
}

export default tseslint.config(
  { ignores: ['dist', 'dist-e2e-*', 'node_modules', 'test-results', 'test-results-*', 'playwright-report', 'bench/out'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Screens talk to the worker only through store actions (DESIGN §2): no engine client, no
    // worker runtime; the worker's payload types may be imported as types.
    files: ['src/features/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_WORKER_RUNTIME] }] },
  },
  {
    // Shared presentational pieces: the same, and no store access (they get what they show as props).
    files: ['src/components/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_WORKER_RUNTIME, NO_STORE] }],
    },
  },
  {
    // The engine runs unchanged in the worker, in Node tests and in the CLI (DESIGN §2).
    files: ['src/engine/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', pureRoom('src/engine', ['**/report/**'])] },
  },
  {
    // The HTML report is pure like the engine (it runs in the worker and the CLI): it may read the engine.
    files: ['src/report/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', pureRoom('src/report', [])] },
  },
)
