import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './destinations/postgres/schema.ts',
  out: './destinations/postgres/migrations',
});
