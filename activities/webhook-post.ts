// The one HTTP POST of a webhook delivery, shared by run alerts (notify.ts), watch events and check alerts
// (checks.ts): the same headers, body cancelled once read, a per-request timeout joined with the caller's signal.
// Each caller keeps its own policy for what an answer means (retry, 3xx, bookkeeping).
export interface WebhookPost {
  url: URL;
  event: string;
  idempotencyKey: string;
  body: string;
  timeoutMs: number;
  /** 'manual': a 3xx comes back as an answer (run alerts report it); 'error': fetch fails on it. */
  redirect: 'manual' | 'error';
  signal?: AbortSignal | undefined;
}

export async function postWebhook(p: WebhookPost): Promise<{ status: number; location: string | null }> {
  const res = await fetch(p.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': p.idempotencyKey, 'user-agent': 'scrape-etl', 'x-scrape-etl-event': p.event },
    body: p.body,
    redirect: p.redirect,
    signal: p.signal ? AbortSignal.any([AbortSignal.timeout(p.timeoutMs), p.signal]) : AbortSignal.timeout(p.timeoutMs),
  });
  const location = res.headers.get('location');
  await res.body?.cancel();
  return { status: res.status, location };
}

/** Why a POST got no answer: the socket error's code (ECONNREFUSED, …) or the error's name; never the URL. */
export function fetchFailureCause(err: unknown): string {
  return (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
}
