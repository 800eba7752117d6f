// ESLint (flat config, type-aware through typescript-eslint): guard rails a compiler does not give. `npm run lint`
// runs it and the fast tier fails when it fails (test/fast/meta/lint.test.ts). Only rules that catch defects are on;
// layout and style are the formatter's (prettier.config.js), not the linter's.
import tseslint from 'typescript-eslint';

// What workflow code (workflows/) may import at run time: the workflow SDK, the SDK's shared package it is built on
// (search attribute keys come from there), the workflow folder itself and the repo's modules that import nothing
// but types, so the workflow bundle stays deterministic and free of Node, zod, database and client code. Type-only
// imports are erased and allowed from anywhere (the activities' types, for example).
const WORKFLOW_SAFE = [
  '@temporalio/workflow',
  '@temporalio/common',
  '../temporal/contract.js',
  '../pipelines/spec.js',
  '../pipelines/duration.js',
  '../lib/run-states.js',
];
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export default tseslint.config(
  {
    // drizzle-kit's configs are no module of the TypeScript project (tsconfig.json), which the type-aware rules need.
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'test-artifacts/**',
      '.tmp/**',
      'coverage/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
      '**/drizzle.config.ts',
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // A directive for a rule this config does not turn on is left alone: editors may run more rules than this.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process) and its ordering;
      // fire-and-forget is written `void promise` with the reason beside it.
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    // activities/ holds activities only; what other rooms share lives in them (alerts/, checks/, temporal/,
    // retention/). The worker composes the activities; tests, benches and the soak may reach into them.
    files: ['**/*.ts'],
    ignores: ['activities/**', 'temporal/worker.ts', 'test/**', 'bench/**', 'soak/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)activities/',
              allowTypeImports: true,
              message:
                'activities/ holds activities only: import what you need from the room that holds it (alerts/, checks/, temporal/, retention/), or move it there',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(?!(${WORKFLOW_SAFE.map(escape).join('|')})$|\\./)`,
              allowTypeImports: true,
              message:
                'workflow code runs in the deterministic workflow sandbox: import values only from @temporalio/workflow and workflow-safe modules (eslint.config.js WORKFLOW_SAFE); use `import type` for types',
            },
          ],
        },
      ],
    },
  },
  {
    // The workflow-safe modules themselves import nothing at run time, or they would carry it into the bundle.
    files: ['temporal/contract.ts', 'pipelines/spec.ts', 'pipelines/duration.ts', 'lib/run-states.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '.',
              allowTypeImports: true,
              message: 'a workflow-safe module (eslint.config.js WORKFLOW_SAFE) imports types only',
            },
          ],
        },
      ],
    },
  },
);
