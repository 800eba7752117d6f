// The model's purity as Node loads it: every module db/model/ reaches through its imports, followed through the
// layers below it, and none may be one that does I/O (IO_MODULES in .dependency-cruiser-layers.cjs). The contract
// (destinations/contract.ts) is left out of this graph: it imports types only (the rule contract-is-types-only of
// .dependency-cruiser.cjs holds it to that), so it loads nothing at run time, while its type imports of the drivers'
// handles would otherwise count as reached. `npm run lint:deps` runs this cruise after the main one, and
// test/fast/meta/import-rules.test.ts does too.

const { IO_MODULES } = require('./.dependency-cruiser-layers.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'model-loads-no-io',
      comment:
        'db/model/ loads no module that does I/O, directly or through what it imports (docs/architecture.md, Layers).',
      severity: 'error',
      from: { path: '^db/model/' },
      to: { path: `(${IO_MODULES.join('|')})`, reachable: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^((dist|test|bench|soak)/|destinations/contract\\.ts$)' },
  },
};
