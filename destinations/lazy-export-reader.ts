// An adapter's export reader whose module is imported on first use: the registry is imported by light commands
// (`run` as a client, `status`), which must not pay for a driver's reader code they never call.
import type { ExportReader } from './contract.js';

type ReaderModule = Pick<
  ExportReader,
  'query' | 'rowBatches' | 'readWatermark' | 'readLastExportedFile' | 'advanceWatermark'
>;

export function lazyExportReader(
  load: () => Promise<ReaderModule>,
  fixed: Pick<ExportReader, 'valueForms' | 'columnKind' | 'csvThreads'>,
): ExportReader {
  return {
    ...fixed,
    query: async (db, sql, params) => (await load()).query(db, sql, params),
    async *rowBatches(db, query, params, batchSize) {
      yield* (await load()).rowBatches(db, query, params, batchSize);
    },
    readWatermark: async (db, p, t) => (await load()).readWatermark(db, p, t),
    readLastExportedFile: async (db, p, t) => (await load()).readLastExportedFile(db, p, t),
    advanceWatermark: async (db, p, t, id, w) => (await load()).advanceWatermark(db, p, t, id, w),
  };
}
