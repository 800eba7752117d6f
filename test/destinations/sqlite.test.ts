// The standard adapter suite (adapter-suite.ts) on SQLite: real files in a temporary folder, no server.
import path from 'node:path';
import { adapterSuite } from './adapter-suite.js';

adapterSuite('sqlite', async (dir, name) => `sqlite:${path.join(dir, `${name}.sqlite`)}`);
