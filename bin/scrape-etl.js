#!/usr/bin/env node
// The package's command. The sources are TypeScript run through tsx's ESM loader, so there is no
// separate build step between `npm ci` and `npx scrape-etl`.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
