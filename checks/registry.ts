// The registries of check types and watch types. The mapped types make the compiler name a type added to
// CHECK_TYPES or WATCH_TYPES (pipelines/spec.ts) without an entry here, and an entry that lacks a member of its
// definition (checks/definition.ts); test/fast/checks/registry-types.test.ts shows both. The pipeline file schema
// (pipelines/checks-schema.ts) and its JSON Schema, the evaluation (checks/evaluate.ts, checks/watch.ts) and
// docs/checks.md's lists read these.
import {
  CHECK_TYPES,
  WATCH_TYPES,
  type CheckSpec,
  type CheckType,
  type WatchSpec,
  type WatchType,
} from '../pipelines/spec.js';
import type { CheckDefinition, CheckOf, WatchDefinition, WatchOf } from './definition.js';
import { acceptedValuesCheck } from './check-types/accepted-values.js';
import { freshnessCheck } from './check-types/freshness.js';
import { notNullCheck } from './check-types/not-null.js';
import { nullRateCheck } from './check-types/null-rate.js';
import { rangeCheck } from './check-types/range.js';
import { rowCountCheck } from './check-types/row-count.js';
import { schemaCheck } from './check-types/schema.js';
import { sqlCheck } from './check-types/sql.js';
import { uniqueCheck } from './check-types/unique.js';
import { newRowsWatch } from './watch-types/new-rows.js';
import { priceDropWatch, priceRiseWatch } from './watch-types/price.js';
import { backInStockWatch, outOfStockWatch } from './watch-types/stock.js';

export type CheckRegistry = { readonly [T in CheckType]: CheckDefinition<T> };
export type WatchRegistry = { readonly [T in WatchType]: WatchDefinition<T> };

export const CHECKS: CheckRegistry = {
  row_count: rowCountCheck,
  not_null: notNullCheck,
  null_rate: nullRateCheck,
  unique: uniqueCheck,
  accepted_values: acceptedValuesCheck,
  range: rangeCheck,
  sql: sqlCheck,
  freshness: freshnessCheck,
  schema: schemaCheck,
};

export const WATCHES: WatchRegistry = {
  price_drop: priceDropWatch,
  price_rise: priceRiseWatch,
  back_in_stock: backInStockWatch,
  out_of_stock: outOfStockWatch,
  new_rows: newRowsWatch,
};

/**
 * The definition of a check's type, typed for that check. A type the registry does not hold cannot be written in
 * TypeScript; a stored or hand-built value with another type (bypassing the file schema) fails here, naming it.
 */
export function checkDefinitionOf<T extends CheckType>(check: CheckOf<T>): CheckDefinition<T>;
export function checkDefinitionOf(check: CheckSpec): CheckDefinition<CheckType> {
  if (!Object.hasOwn(CHECKS, check.type))
    throw new Error(`unknown check type '${String(check.type)}': expected one of ${CHECK_TYPES.join(', ')}`);
  return CHECKS[check.type] as CheckDefinition<CheckType>;
}

export function watchDefinitionOf<T extends WatchType>(watch: WatchOf<T>): WatchDefinition<T>;
export function watchDefinitionOf(watch: WatchSpec): WatchDefinition<WatchType> {
  if (!Object.hasOwn(WATCHES, watch.type))
    throw new Error(`unknown watch type '${String(watch.type)}': expected one of ${WATCH_TYPES.join(', ')}`);
  return WATCHES[watch.type] as WatchDefinition<WatchType>;
}
