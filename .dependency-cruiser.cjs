// The import rules of docs/architecture.md ("Layers"), checked by dependency-cruiser over the product's own imports
// (type-only imports included: a type import ties two modules as firmly for a reader). test/fast/meta/import-rules.test.ts
// runs them in the fast tier and prints the report; `npm run lint:deps` prints the same from the command line.
//
// The layers and the allowed exceptions are data of their own (.dependency-cruiser-layers.cjs), read by the test too.

const {
  LAYERS,
  LOWER_TO_HIGHER,
  ENGINE_FOLDER,
  PRODUCT_FOLDERS,
  IO_MODULES,
} = require('./.dependency-cruiser-layers.cjs');

const anyOf = (patterns) => `(${patterns.join('|')})`;

/** The pattern of layer `i` alone: its own patterns, less those of the layers listed before it. */
function layerPath(i) {
  const before = LAYERS.slice(0, i).flatMap((l) => l.paths);
  return { path: anyOf(LAYERS[i].paths), ...(before.length > 0 ? { pathNot: anyOf(before) } : {}) };
}

/** The index of the layer a module path belongs to (the first whose patterns match), or -1. */
function layerIndexOf(file) {
  return LAYERS.findIndex((l) => l.paths.some((p) => new RegExp(p).test(file)));
}

function escape(p) {
  return `^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
}

/** One rule per (lower, higher) pair of layers, with the allowed imports cut out of it. */
function layerRules() {
  const rules = [];
  LAYERS.forEach((low, i) => {
    const from = layerPath(i);
    const allowedFrom = LOWER_TO_HIGHER.map((a) => a.from).filter((f) => layerIndexOf(f) === i);
    LAYERS.forEach((high, j) => {
      if (j <= i) return;
      const to = layerPath(j);
      const name = `layer-${low.name}-to-${high.name}`;
      const comment = `${low.name} sits below ${high.name} (docs/architecture.md, Layers)`;
      rules.push({
        name,
        comment,
        severity: 'error',
        from: { ...from, pathNot: anyOf([...(from.pathNot ? [from.pathNot] : []), ...allowedFrom.map(escape), '$^']) },
        to,
      });
      for (const f of new Set(allowedFrom)) {
        const allowedTo = LOWER_TO_HIGHER.filter((a) => a.from === f).map((a) => escape(a.to));
        rules.push({
          name,
          comment,
          severity: 'error',
          from: { path: escape(f), pathNot: from.pathNot ?? '$^' },
          to: { path: to.path, pathNot: anyOf([...(to.pathNot ? [to.pathNot] : []), ...allowedTo]) },
        });
      }
    });
  });
  // A module of layer `from` that matches none of its patterns would escape the rules: every product module has a layer.
  return rules;
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle-across-folders',
      comment: 'An import cycle whose modules sit in more than one top-level folder ties those folders into one.',
      severity: 'error',
      from: { path: '^([^/]+)/' },
      to: { circular: true, viaSomeNot: '^$1/' },
    },
    {
      name: 'no-engine-folder-from-outside',
      comment:
        'destinations/<engine>/ is reached through the adapter (destinations/contract.ts), never imported directly.',
      severity: 'error',
      from: { pathNot: '^destinations/' },
      to: { path: ENGINE_FOLDER },
    },
    {
      name: 'model-imports-no-io',
      comment:
        'db/model/ (table definitions, flattening, naming, types) imports no module that does I/O, not even for a type: ' +
        'it is data and pure functions that every stage reads (docs/architecture.md, Layers). What it loads at run ' +
        'time through other modules is checked by .dependency-cruiser-runtime.cjs.',
      severity: 'error',
      from: { path: '^db/model/' },
      to: { path: anyOf(IO_MODULES) },
    },
    {
      name: 'contract-is-types-only',
      comment:
        'destinations/contract.ts imports types only, so it loads nothing at run time: the rules of what the model ' +
        'loads (.dependency-cruiser-runtime.cjs) pass through it.',
      severity: 'error',
      from: { path: '^destinations/contract\\.ts$' },
      to: { dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'store-uses-the-contract',
      comment:
        'db/store/ reaches a destination through the handle it is given (destinations/contract.ts), never through ' +
        'an engine folder or the registry (destinations/index.ts, destinations/open.ts).',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^destinations/', pathNot: anyOf(LAYERS[0].paths.filter((p) => !p.includes('[^/]+/'))) },
    },
    ...layerRules(),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages and Node's own modules are kept in the graph, unfollowed, so the model's purity rule sees them.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test|bench|soak)/' },
  },
};
