// Waits, through the client over real HTTP, for a simulator run to leave 'running'.
import type { ApiResult, ScraperClient, ScrapingRunResponse } from '../../client/index.js';

export async function waitForRun(
  client: ScraperClient,
  runId: number | bigint,
  timeoutMs = 5000,
): Promise<ApiResult<ScrapingRunResponse>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.getScrapingRun(runId);
    if (res.data.data.status !== 'running') return res;
    if (Date.now() > deadline) throw new Error(`scraping run ${runId} still running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
