// Module hooks of module-trace.mjs: run on the loader's thread, they append each loaded module's URL to a file.
import fs from 'node:fs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function load(url, context, nextLoad) {
  if (file) fs.appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
