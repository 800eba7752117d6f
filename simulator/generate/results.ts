// `content` of result records, one JSON object per scraper kind. Each result is a pure function of
// (seed, scraper name, keyword or query, index within the run), so ground truth needs no state.
import { rngFor } from '../random.js';
import type { Sentiment } from '../validate.js';
import {
  COMPANIES,
  EMOJI,
  FIRST_NAMES,
  LANGUAGES,
  LAST_NAMES,
  LOREM,
  PDF_TOPICS,
  POST_PHRASES,
  SOCIAL_PLATFORMS,
  CITIES,
  words,
} from './words.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

export interface GeneratedResult {
  scraped_url: string;
  content: JsonObject;
}

function slug(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, '-')
      .slice(0, 60) || 'item'
  );
}

export function pdfResult(
  seed: number,
  scraperName: string,
  keyword: string,
  prompt: string,
  index: number,
): GeneratedResult {
  const rng = rngFor(seed, 'pdf', scraperName, keyword, index);
  const company = rng.pick(COMPANIES);
  const year = rng.int(2015, 2026);
  const topic = rng.pick(PDF_TOPICS);
  const title = `${company} ${topic} ${year}: ${keyword}`;
  const host = `${slug(company)}.example`;
  const pdfUrl = `https://${host}/files/${year}/${slug(keyword)}-${rng.hex(8)}.pdf`;
  const pages = rng.int(1, 420);
  const authorCount = rng.int(1, 4);
  const authors: JsonObject[] = [];
  for (let a = 0; a < authorCount; a++) {
    authors.push({
      name: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
      affiliation: rng.chance(0.7) ? company : rng.pick(COMPANIES),
      email: rng.chance(0.4) ? `author${a + 1}@${host}` : null,
    });
  }
  return {
    scraped_url: pdfUrl,
    content: {
      pdf_url: pdfUrl,
      title,
      keyword,
      prompt,
      // The service keeps only files its classifier accepted, so the answer on a kept result is true.
      classifier: { answer: true, confidence: rng.float(0.55, 0.999, 3), model: 'sim-classifier-1' },
      pages,
      size_bytes: pages * rng.int(20_000, 250_000),
      language: rng.pick(LANGUAGES),
      published_year: year,
      authors,
      summary: words(() => rng.pick(LOREM), rng.int(12, 30)),
    },
  };
}

export function leadsSearchEngineResult(
  seed: number,
  query: { url?: string; keywords?: string },
  index: number,
): GeneratedResult {
  const queryKey = query.url ?? query.keywords ?? '';
  // The same search finds the same people, whichever scraper asks: repeated runs of one query return the same
  // leads, as a real search would (that is what merge keys are for).
  const rng = rngFor(seed, 'leads-se', queryKey, index);
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const company = rng.pick(COMPANIES);
  const domain = `${slug(company)}.example`;
  const place = rng.pick(CITIES);
  const page = Math.floor(index / 10) + 1;
  const sourceUrl =
    query.url !== undefined
      ? new URL(`/contact/${rng.hex(6)}`, query.url).toString()
      : `https://${domain}/about?ref=${rng.hex(6)}`;
  const profiles: JsonObject[] = rng.sample(SOCIAL_PLATFORMS, rng.int(0, 3)).map((platform) => {
    const handle = `${slug(first)}${slug(last)}${rng.int(1, 99)}`;
    return { platform, handle, url: `https://${platform}.example/${handle}` };
  });
  return {
    scraped_url: sourceUrl,
    content: {
      name: `${first} ${last}`,
      job_title: rng.pick([
        'CEO',
        'CTO',
        'Head of Sales',
        'Marketing Manager',
        'Founder',
        'Procurement Lead',
        'Data Lead',
      ]),
      company,
      email: rng.chance(0.85) ? `${slug(first)}.${slug(last)}@${domain}` : null,
      phone: rng.chance(0.6)
        ? `+${rng.int(1, 99)} ${rng.int(100, 999)} ${rng.int(1000, 9999)} ${rng.int(100, 999)}`
        : null,
      website: `https://${domain}`,
      address:
        place.city === 'Remote'
          ? null
          : `${rng.int(1, 250)} ${rng.pick(LAST_NAMES)} Street, ${place.city}, ${place.country}`,
      source_url: sourceUrl,
      search_query: queryKey,
      search_page: page,
      social_profiles: profiles,
    },
  };
}

const SENTIMENT_CYCLE: ReadonlyArray<Exclude<Sentiment, 'all'>> = ['positive', 'neutral', 'negative'];

export function socialResult(
  seed: number,
  scraperName: string,
  keywords: string,
  sentimentType: Sentiment,
  index: number,
): GeneratedResult {
  const rng = rngFor(seed, 'social', scraperName, keywords, sentimentType, index);
  const sentiment = sentimentType === 'all' ? rng.pick(SENTIMENT_CYCLE) : sentimentType;
  const topic = keywords.split(',')[rng.int(0, Math.max(0, keywords.split(',').length - 1))]?.trim() || keywords;
  const handle = `${slug(rng.pick(FIRST_NAMES))}_${rng.hex(4)}`;
  // Built as text: post ids are 19 digits, beyond what a double holds exactly.
  const postId = `17${String(rng.int(0, 99_999_999)).padStart(8, '0')}${String(index).padStart(9, '0')}`;
  const postUrl = `https://social.example/${handle}/status/${postId}`;
  const score =
    sentiment === 'positive'
      ? rng.float(0.3, 1, 3)
      : sentiment === 'negative'
        ? rng.float(-1, -0.3, 3)
        : rng.float(-0.29, 0.29, 3);
  const hashtags = rng.sample(['#AI', '#ML', '#data', '#tech', '#startup', '#news', '#opensource'], rng.int(0, 3));
  return {
    scraped_url: postUrl,
    content: {
      post_id: postId,
      post_url: postUrl,
      text: `${rng.pick(POST_PHRASES[sentiment])} ${topic} ${rng.pick(EMOJI)} ${words(() => rng.pick(LOREM), rng.int(4, 14))}`,
      author: {
        handle,
        display_name: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
        followers: rng.int(0, 250_000),
        verified: rng.chance(0.1),
      },
      sentiment,
      sentiment_score: score,
      posted_at: new Date(Date.UTC(2026, 0, 1) + rng.int(0, 320 * 86_400) * 1000).toISOString(),
      metrics: {
        likes: rng.int(0, 5000),
        reposts: rng.int(0, 800),
        replies: rng.int(0, 300),
        views: rng.int(100, 500_000),
      },
      hashtags,
      keywords,
    },
  };
}
