// zod's functional build (`zod/mini`), as the settings definition (settings/definition.ts) uses it: every command reads
// its settings at start, and the bundle the build makes of this module (vendor/README.md) costs one file, where zod's
// own modules are dozens.
export { z } from 'zod/mini';
