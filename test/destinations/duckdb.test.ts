// The standard adapter suite (adapter-suite.ts) on DuckDB: real files in a temporary folder, no server.
import path from 'node:path';
import { adapterSuite } from './adapter-suite.js';

adapterSuite('duckdb', async (dir, name) => `duckdb:${path.join(dir, `${name}.duckdb`)}`);
