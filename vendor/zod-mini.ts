// zod's functional build (`zod/mini`), as the settings definition (settings/definition.ts) uses it: every command reads
// its settings at start, and the bundle the build makes of this module (vendor/README.md) costs one file, where zod's
// own modules are dozens. Only the functions the settings call are re-exported, so the bundle holds those alone
// (zod's modules declare no side effects, and esbuild leaves the rest out): building all of zod/mini's schema types
// at every start cost more than the rest of a read-only command's own modules (bench/startup.ts).
export { enum, pipe, refine, regex, string, transform } from 'zod/mini';
export type { ZodMiniType } from 'zod/mini';
