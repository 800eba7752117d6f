// The destination registry: every destination database and its adapter (destinations/contract.ts). The mapped type
// makes the compiler name a name added to DestinationName without an entry here, and an entry that lacks a member of
// the interface. Code outside destinations/ reaches a destination only through destinationOf / destinationNamed.
import { duckdbDestination } from './duckdb/index.js';
import { postgresDestination } from './postgres/index.js';
import { sqliteDestination } from './sqlite/index.js';
import type { DestinationAdapter, DestinationName } from './contract.js';
import { DESTINATION_NAMES } from './names.js';

export type { DestinationAdapter, DestinationCapabilities, DestinationName } from './contract.js';
export { DESTINATION_NAMES } from './names.js';

export const DESTINATIONS: { readonly [D in DestinationName]: DestinationAdapter<D> } = {
  sqlite: sqliteDestination,
  postgres: postgresDestination,
  duckdb: duckdbDestination,
};

/**
 * The adapter of a database (or transaction, export handle, parsed URL): typed for the destination it is, so its
 * methods take that destination's database. With a union the methods take the union, which each adapter narrows.
 */
export function destinationOf<D extends DestinationName>(of: { readonly dialect: D }): DestinationAdapter<D> {
  return destinationNamed(of.dialect);
}

export function destinationNamed<D extends DestinationName>(name: D): DestinationAdapter<D> {
  const adapter = (DESTINATIONS as Record<string, DestinationAdapter<DestinationName> | undefined>)[name];
  if (!adapter || !Object.hasOwn(DESTINATIONS, name))
    throw new Error(`unknown destination '${String(name)}': expected one of ${DESTINATION_NAMES.join(', ')}`);
  return adapter as unknown as DestinationAdapter<D>;
}

/** The adapter whose URL scheme `url` has, with the parsed URL; undefined when none claims it. */
export function destinationOfUrl(
  url: string,
): { adapter: DestinationAdapter<DestinationName>; parsed: { dialect: DestinationName } } | undefined {
  for (const name of DESTINATION_NAMES) {
    const adapter = DESTINATIONS[name] as DestinationAdapter<DestinationName>;
    const parsed = adapter.parseUrl(url);
    if (parsed) return { adapter, parsed };
  }
  return undefined;
}

/** Why a worker waits for the destination at `url` now (destinations one process writes at a time), or undefined. */
export function destinationWaitNote(url: string): string | undefined {
  try {
    const found = destinationOfUrl(url);
    return found?.adapter.waitNote?.(found.parsed as never);
  } catch {
    return undefined; // a malformed URL was reported where it was read
  }
}
