// The layers of docs/architecture.md ("Layers and imports"), as data: .dependency-cruiser.cjs builds its rules from
// them and test/fast/meta/import-rules.test.ts checks them (and the documentation) against the code.
//
// LAYERS lists the layers from the bottom up; a module belongs to the first layer one of whose patterns matches
// its path. A module may import its own layer and the layers below it. An import from a lower layer to a higher one
// is allowed only when it is listed in LOWER_TO_HIGHER (at most four), each named and justified in
// docs/architecture.md.

/** @type {ReadonlyArray<{ name: string; paths: string[] }>} */
const LAYERS = [
  {
    name: 'contract',
    paths: [
      '^destinations/contract(\\.ts$|/)',
      '^destinations/(url-forms|capabilities|names|config-error)\\.ts$',
      '^destinations/[^/]+/capabilities\\.ts$',
    ],
  },
  // budget/: its pure words and limits are foundation (db/store/spend.ts counts by them), its schema is the pipeline
  // files' (spec), the rest (meter, forecast, alerts, the console's rows) works on the store like activities.
  {
    name: 'foundation',
    paths: ['^settings/', '^lib/', '^client/', '^vendor/', '^simulator/', '^budget/(types|limits)\\.ts$'],
  },
  { name: 'model', paths: ['^db/model/'] },
  { name: 'store', paths: ['^db/'] },
  { name: 'export', paths: ['^export/'] },
  // The check and watch registries (schema, description, evaluation with the database handed in) are read by the
  // pipeline file schema, so they sit with it; so do the worker's metrics and tuning, read by activities and checks.
  {
    name: 'spec',
    paths: [
      '^kinds/',
      '^pipelines/(?!preflight)',
      '^temporal/(contract|metrics|tuning)\\.ts$',
      '^checks/(definition|registry|fields|values|expression)\\.ts$',
      '^checks/(check-types|watch-types)/',
      '^budget/schema\\.ts$',
    ],
  },
  { name: 'checks', paths: ['^checks/'] },
  // The one alert delivery and what every sender of alerts shares; retention applied to a pipeline.
  { name: 'alerts', paths: ['^alerts/', '^retention/'] },
  {
    name: 'engines',
    paths: ['^destinations/[^/]+/', '^destinations/(?!registry\\.ts$|open\\.ts$|index\\.ts$)[^/]+\\.ts$'],
  },
  { name: 'registry', paths: ['^destinations/'] },
  { name: 'activities', paths: ['^activities/', '^pipelines/preflight', '^budget/'] },
  { name: 'workflows', paths: ['^workflows/'] },
  { name: 'temporal', paths: ['^temporal/'] },
  // What `scrape-etl up` runs beside its workers: schedule watch, missed fires, freshness.
  { name: 'monitor', paths: ['^monitor/'] },
  { name: 'console', paths: ['^console/'] },
  { name: 'entry', paths: ['^cli/', '^scripts/'] },
];

/**
 * The imports from a lower layer to a higher one that stay, at most four (test/fast/meta/import-rules.test.ts
 * fails on a fifth), each justified in docs/architecture.md. `from` and `to` are exact module paths.
 */
/** @type {ReadonlyArray<{ from: string; to: string }>} */
const LOWER_TO_HIGHER = [
  // A client finds the server `up` runs from up's own state file (one record of where that server listens).
  { from: 'temporal/connect.ts', to: 'cli/up/paths.ts' },
];

/** The engine folders: everything one engine alone needs. Nothing outside destinations/ imports from them. */
const ENGINE_FOLDER = '^destinations/(?!contract/)[^/]+/';

/** The product's source folders, which the rules cover (tests, benchmarks and the soak use the product from outside). */
const PRODUCT_FOLDERS = [
  'activities',
  'alerts',
  'budget',
  'checks',
  'cli',
  'client',
  'console',
  'db',
  'destinations',
  'export',
  'kinds',
  'lib',
  'monitor',
  'pipelines',
  'retention',
  'settings',
  'simulator',
  'temporal',
  'vendor',
  'workflows',
  'scripts',
];

module.exports = { LAYERS, LOWER_TO_HIGHER, ENGINE_FOLDER, PRODUCT_FOLDERS };
