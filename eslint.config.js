import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', 'openapi/bundled/**', 'data/**', '.tmp/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        fetch: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        crypto: 'readonly',
        structuredClone: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'describe', property: 'only' },
        { object: 'it', property: 'only' },
        { object: 'describe', property: 'skip' },
        { object: 'it', property: 'skip' },
      ],
    },
  },
  {
    // A test waits only through test/helpers/wait.ts: a chain or a job answers in its own time on a loaded machine.
    files: ['test/**/*.ts'],
    ignores: ['test/helpers/wait.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(getTransactionReceipt|getTransaction)$/]',
          message:
            'Read a sent transaction through receiptOf / transactionOf / solanaTransactionOf (test/helpers/wait.ts).',
        },
        {
          selector:
            "NewExpression[callee.name='Promise'] > ArrowFunctionExpression > CallExpression.body[callee.name='setTimeout']",
          message: 'No fixed sleeps: wait for the condition with eventually() (test/helpers/wait.ts).',
        },
        {
          selector: "ImportDeclaration[source.value='node:timers/promises']",
          message: 'No fixed sleeps: wait for the condition with eventually() (test/helpers/wait.ts).',
        },
      ],
    },
  },
);
