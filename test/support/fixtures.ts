// The real service responses live in shared/ beside the repository (as on CI), never at a machine path.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REAL_FIXTURES = path.resolve(REPO_ROOT, '..', 'shared', 'fixtures', 'real');
