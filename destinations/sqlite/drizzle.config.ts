import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './destinations/sqlite/schema.ts',
  out: './destinations/sqlite/migrations',
});
