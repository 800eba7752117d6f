// Every destination's capabilities, light (no adapter, no driver): what naming (db/model/evolve/naming.ts, names.ts) and
// other code on the command line's start-up path read. The mapped type makes the compiler name a destination
// without its capabilities; the adapters carry the same objects (destinations/<name>/index.ts).
import { duckdbCapabilities } from './duckdb/capabilities.js';
import { postgresCapabilities } from './postgres/capabilities.js';
import { sqliteCapabilities } from './sqlite/capabilities.js';
import type { DestinationCapabilities, DestinationName } from './contract.js';

export const CAPABILITIES: { readonly [D in DestinationName]: DestinationCapabilities } = {
  sqlite: sqliteCapabilities,
  postgres: postgresCapabilities,
  duckdb: duckdbCapabilities,
};
