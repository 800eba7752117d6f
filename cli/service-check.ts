// `run`'s one look at the scraping service before it starts a run its own process works on. A SCRAPER_BASE_URL that
// refuses the connection or names no host would otherwise be retried up to polling.deadline (6 hours by default):
// such an address is wrong, not down, so it fails here in seconds. Any HTTP answer means reachable, whatever its
// status; the token is not sent (the look costs nothing), and a slow answer is left to the run, which waits it out.
import http from 'node:http';
import https from 'node:https';

/** Errors that say the address itself is wrong (nothing listens, the host does not exist), with their wording. */
const WRONG_ADDRESS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'no such host',
  EAI_NONAME: 'no such host',
  EAI_FAIL: 'no such host',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

const LOOK_MS = 5000;

/** The sentence that says why the service cannot be reached and the fix, or undefined when it answered (or was slow). */
export async function serviceUnreachableProblem(baseUrl: string): Promise<string | undefined> {
  const code = await connectFailure(baseUrl);
  if (code === undefined) return undefined;
  return (
    `cannot reach the scraping service at ${baseUrl} (SCRAPER_BASE_URL): ${WRONG_ADDRESS[code]} (${code}); nothing was started. ` +
    "Fix: set SCRAPER_BASE_URL to the service's address (https://…, from your account), or start the service it names " +
    '(`scrape-etl simulate` for the local simulator)'
  );
}

function connectFailure(baseUrl: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      // A malformed URL is the client's own check (serviceSettingsProblem) to report.
      resolve(undefined);
      return;
    }
    const get = url.protocol === 'https:' ? https.request : http.request;
    const req = get(
      url,
      { method: 'HEAD', timeout: LOOK_MS, headers: { 'user-agent': 'scrape-etl (reachability check)' } },
      (res) => {
        res.resume();
        resolve(undefined);
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve(undefined);
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code !== undefined && err.code in WRONG_ADDRESS ? err.code : undefined),
    );
    req.end();
  });
}
