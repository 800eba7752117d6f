// `pdf`: PDF search. One create-and-run call starts one scraping run per keyword; each run's results (the PDF
// files the classifier kept) are loaded into pdf_results once the run has succeeded.
import { z } from 'zod';
import { nonEmpty, positiveInt } from '../pipelines/fields.js';
import { builtOnce } from '../lib/built-once.js';
import type { CreateAndWaitKind } from './types.js';

const request = builtOnce(() =>
  z.strictObject({
    name: nonEmpty.optional().describe('name of the scraping task; defaults to the pipeline name'),
    keywords: z
      .array(
        z.strictObject({
          keyword: nonEmpty.describe('search phrase for PDF files'),
          prompt: nonEmpty.describe('instruction that makes the classifier answer true or false per file'),
        }),
      )
      .min(1, 'needs at least one keyword'),
    unique: z.boolean().optional().describe('when true, previously scraped PDF files are not included'),
    expected_pdf: positiveInt.optional().describe('total expected PDF files'),
  }),
);

export const pdfKind: CreateAndWaitKind<'pdf'> = {
  kind: 'pdf',
  mode: 'create-and-wait',
  summary: 'PDF search: one scraping run per keyword, files kept by a true/false prompt',
  get request() {
    return request();
  },
  defaultsRequestName: true,
  requestOptional: false,
  endpoints: ['POST /api/scrapers/pdf/create-and-run', 'GET /api/scraping-runs/{id}', 'GET /api/results'],
  tables: ['scrapers', 'run_records', 'scraping_runs', 'pdf_results'],
  resultTable: 'pdf_results',
  create: (client, req, o) => client.createPdfScraper(req, o),
  // The expected total is split over the keywords' runs, so each run gets at least the floor share.
  expectedResultsPerRun: (req) =>
    req.expected_pdf === undefined ? undefined : Math.floor(req.expected_pdf / Math.max(1, req.keywords.length)),
  // One run per keyword (the spec implies one run record per keyword).
  expectedRuns: (req) => req.keywords.length,
};
