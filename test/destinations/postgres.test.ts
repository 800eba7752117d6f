// The standard adapter suite (adapter-suite.ts) on a real Postgres server (test/support/postgres.ts): a fresh
// database per case.
import { adapterSuite } from './adapter-suite.js';
import { testPostgresUrl } from '../support/postgres.js';

adapterSuite('postgres', () => testPostgresUrl());
