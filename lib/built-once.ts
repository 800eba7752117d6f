// A value built at its first use rather than when its module loads. The zod schemas of pipeline files (a kind's
// `request` section, the loader's fallback schema) are built this way: building a schema is start-up work for every
// process that imports the module, and a command that checks files of one or two kinds, or none (a worker, `status`),
// then builds only what it reads.

/** `build`, run at the first call, and its result kept for the later ones. */
export function builtOnce<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
