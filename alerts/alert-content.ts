// What content may do in an alert: nothing. Every value that reaches a webhook body passes through here, whoever
// builds the message (run alerts, checks, watches, up's did_not_run), so a scraped value cannot ping a channel,
// add a link or grow a body past what a receiver takes.
//  - Slack mrkdwn (also read by Mattermost and Discord's /slack endpoint): `&`, `<` and `>` escaped, which turns
//    `<!channel>`, `<@U…>` and `<url|text>` typed in content into plain text; `@channel`, `@here`, `@everyone`
//    and `@all` typed plainly (which Mattermost and Discord ping on) get a word joiner after the `@`. Links only
//    to http(s) URLs, the target encoded so that it cannot end the link early; any other URL is shown as text.
//  - JSON bodies: string values cut to MAX_WEBHOOK_VALUE_CHARS, and rows left out past MAX_WEBHOOK_JSON_BYTES,
//    with counts of both (`values_truncated`, `rows_omitted`, `truncated`). docs/alerts.md documents the figures.

/** The largest JSON webhook body sent, in bytes of UTF-8. */
export const MAX_WEBHOOK_JSON_BYTES = 256 * 1024;
/** The longest string value a JSON webhook body carries, in UTF-16 units (before its `…`). */
export const MAX_WEBHOOK_VALUE_CHARS = 4096;
/** A link target longer than this is shown as (cut) text: receivers refuse or mangle longer ones. */
const MAX_LINK_CHARS = 2000;

const WORD_JOINER = '\u2060';

/** `s` cut to at most `max` UTF-16 units plus `…`, never inside a surrogate pair. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = /[\uD800-\uDBFF]/.test(s.charAt(max - 1)) ? max - 1 : max;
  return `${s.slice(0, end)}…`;
}

/** Any value as Slack mrkdwn text that says what it is and does nothing, at most `max` characters (plus `…`). */
export function slackText(value: unknown, max = 1500): string {
  const out = cut(String(value), max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(channel|here|everyone|all)\b/gi, `@${WORD_JOINER}$1`);
  if (out.length <= max + 1) return out;
  // Escaping made it longer: cut again, before an entity rather than inside one.
  const amp = out.lastIndexOf('&', max - 1);
  return cut(out, amp > max - 5 ? amp : max);
}

/** A link to `url` labelled `label` when `url` is an http(s) URL; otherwise the label and the URL as text. */
export function slackLink(url: unknown, label: string): string {
  const text = slackText(label, 120);
  if (typeof url !== 'string' || !URL.canParse(url))
    return url === null || url === undefined ? text : `${text} (${slackText(url, 200)})`;
  const u = new URL(url);
  // WHATWG URL serialisation percent-encodes spaces, quotes and angle brackets, not `|`, which would end the target.
  const href = u.href.replace(/\|/g, '%7C');
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || href.length > MAX_LINK_CHARS)
    return `${text} (${slackText(url, 200)})`;
  return `<${href.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E')}|${text}>`;
}

/**
 * Lines joined with `\n` up to `maxChars` in all: whole lines only (a cut line could end inside an entity or a
 * link), then "and N more" for what did not fit.
 */
export function slackLines(lines: readonly string[], maxChars: number, more = 0): string {
  const kept: string[] = [];
  let used = 0;
  for (const [i, l] of lines.entries()) {
    const left = lines.length - i + more;
    const tail = `\nand ${left} more`.length;
    if (used + l.length + 1 + (i < lines.length - 1 || more > 0 ? tail : 0) > maxChars) {
      kept.push(`and ${left} more`);
      return kept.join('\n');
    }
    kept.push(l);
    used += l.length + 1;
  }
  if (more > 0) kept.push(`and ${more} more`);
  return kept.join('\n');
}

function cutValues(v: unknown, counter: { n: number }): unknown {
  if (typeof v === 'string') {
    if (v.length <= MAX_WEBHOOK_VALUE_CHARS) return v;
    counter.n++;
    return cut(v, MAX_WEBHOOK_VALUE_CHARS);
  }
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map((x) => cutValues(x, counter));
  if (v !== null && typeof v === 'object' && !(v instanceof Date))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutValues(x, counter)]));
  return v;
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/**
 * A JSON webhook body within the caps: long strings cut, then (for a body with rows) as many rows as fit in
 * MAX_WEBHOOK_JSON_BYTES. Adds `truncated` and `values_truncated`; with rows, `rows_omitted` (of `totalRows`, the
 * event's whole count) and `rows_truncated`.
 */
export function cappedJsonBody(
  body: Record<string, unknown>,
  rows?: { key: string; totalRows: number },
): Record<string, unknown> {
  const counter = { n: 0 };
  const all = rows ? ((body[rows.key] as unknown[] | undefined) ?? []) : [];
  const base = cutValues(rows ? { ...body, [rows.key]: [] } : body, counter) as Record<string, unknown>;
  if (!rows) return { ...base, truncated: counter.n > 0, values_truncated: counter.n };
  // Room for the counters added below: their largest forms.
  let used =
    bytes(base) +
    bytes({
      truncated: false,
      values_truncated: Number.MAX_SAFE_INTEGER,
      rows_omitted: Number.MAX_SAFE_INTEGER,
      rows_truncated: false,
    });
  const kept: unknown[] = [];
  for (const r of all) {
    const mine = { n: 0 };
    const c = cutValues(r, mine);
    const size = bytes(c) + 1;
    if (used + size > MAX_WEBHOOK_JSON_BYTES) break;
    kept.push(c);
    counter.n += mine.n;
    used += size;
  }
  const omitted = Math.max(0, rows.totalRows - kept.length);
  return {
    ...base,
    [rows.key]: kept,
    rows_truncated: omitted > 0,
    rows_omitted: omitted,
    truncated: omitted > 0 || counter.n > 0,
    values_truncated: counter.n,
  };
}
