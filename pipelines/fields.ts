// zod building blocks shared by the pipeline file schema (pipelines/schema.ts) and the request sections that
// each kind declares in kinds/<kind>.ts. Messages are written for the person editing the file.
import { z } from 'zod';

export const nonEmpty = z.string().trim().min(1, 'must not be empty');
export const positiveInt = z.int().positive();

export const absoluteUrl = z
  .string()
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), 'expected an absolute http(s) URL');

/** Runs a cross-field check only when the value is an object: zod calls refinements even after other fields failed. */
export const whenObject = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
};
