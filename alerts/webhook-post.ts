// The one webhook delivery, shared by run alerts (notify.ts), watch events and check alerts (checks.ts) and up's
// did_not_run (monitor/missed-fires.ts): the same headers, body cancelled once read, a per-request timeout joined
// with the caller's signal, and ONE policy for what an answer means, so that a receiver answering a redirect or a
// 503 is reported the same way whichever event it was sent:
//  - 2xx: delivered;
//  - 3xx: neither followed (a POST to wherever a receiver points is not ours to send) nor retried, reported with
//    its Location (without the query, which may hold a token) so the pipeline file can be given the final URL;
//  - 408, 425, 429, 5xx, no answer, network errors: worth another attempt;
//  - other 4xx: will not change, reported at once.
// Callers keep only their own bookkeeping (notify_deliveries, retries within their bound, how they report).
export interface WebhookPost {
  url: URL;
  event: string;
  idempotencyKey: string;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** Why a delivery failed, as a metric label (bounded set: scrape_etl_alert_delivery_failures_total{reason}). */
export type DeliveryFailureReason = 'config' | 'redirect' | 'http_4xx' | 'http_5xx' | 'timeout' | 'network';

export type WebhookOutcome =
  | { ok: true; status: number }
  /** `text`: what happened, without the URL (the caller says which webhook and host). `status`: the metric label. */
  | { ok: false; retryable: boolean; reason: DeliveryFailureReason; text: string; status: string };

/** Statuses worth another attempt: the receiver may answer differently later. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** A redirect's target as said in a message: its length bounded, its query (which may hold a token) left out. */
export function shortLocation(location: string): string {
  const cut = location.split('?')[0] ?? location;
  return cut.length > 200 ? `${cut.slice(0, 200)}…` : cut;
}

/** One POST and what its answer means under the shared policy (see the file's comment). Never throws for HTTP. */
export async function deliverWebhook(p: WebhookPost): Promise<WebhookOutcome> {
  let status: number;
  let location: string | null;
  try {
    ({ status, location } = await postWebhook(p));
  } catch (err) {
    // The URL's value is never in the message: node's fetch errors do not carry it, and the caller names the host.
    const timedOut = (err as Error).name === 'TimeoutError';
    const text = timedOut ? `no answer within ${Math.round(p.timeoutMs / 100) / 10} s` : fetchFailureCause(err);
    return { ok: false, retryable: true, reason: timedOut ? 'timeout' : 'network', text, status: 'error' };
  }
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status >= 300 && status < 400) {
    const to = location ? `redirect to ${shortLocation(location)}` : 'a redirect without a Location';
    return {
      ok: false,
      retryable: false,
      reason: 'redirect',
      text: `HTTP ${status}, ${to} (not followed: put the final URL in the pipeline file)`,
      status: String(status),
    };
  }
  return {
    ok: false,
    retryable: retryableStatus(status),
    reason: status >= 500 ? 'http_5xx' : 'http_4xx',
    text: `HTTP ${status}`,
    status: String(status),
  };
}

/** The bare request: a 3xx comes back as an answer (never followed), its Location with it. */
export async function postWebhook(p: WebhookPost): Promise<{ status: number; location: string | null }> {
  const res = await fetch(p.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': p.idempotencyKey,
      'user-agent': 'scrape-etl',
      'x-scrape-etl-event': p.event,
    },
    body: p.body,
    redirect: 'manual',
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
