// Every destination name, as a value: what messages list and the registry's completeness check reads.
import type { DestinationName } from './contract.js';

/** Every destination name, in the order messages list them. */
export const DESTINATION_NAMES = ['sqlite', 'duckdb', 'postgres'] as const satisfies readonly DestinationName[];
// A name added to DestinationName but not listed above is an error here, naming it.
type Unlisted = Exclude<DestinationName, (typeof DESTINATION_NAMES)[number]>;
export const DESTINATION_NAMES_COMPLETE: [Unlisted] extends [never] ? true : { missing: Unlisted } = true;
