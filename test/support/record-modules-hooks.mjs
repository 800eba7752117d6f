// The load hook of record-modules.mjs (runs on Node's loader thread, which shares the environment).
import fs from 'node:fs';

export async function load(url, context, nextLoad) {
  fs.appendFileSync(process.env.RECORD_MODULES_FILE, `${url}\n`);
  return nextLoad(url, context);
}
