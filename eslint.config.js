import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

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
    // The engine runs unchanged in the worker, in Node tests and in the CLI (DESIGN §2).
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['react', 'react-*', 'zustand', 'zustand/*', 'comlink', '@tanstack/*'],
              message: 'src/engine must stay UI- and transport-free.',
            },
            {
              group: ['**/app/**', '**/features/**', '**/components/**', '**/state/**', '**/worker/**', '**/cli/**'],
              message: 'src/engine may only import from src/engine.',
            },
          ],
        },
      ],
    },
  },
)
