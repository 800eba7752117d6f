# scrape-etl worker image: a build stage compiles the TypeScript to dist/ (and prebuilds the workflow bundle),
# the runtime stage runs that JavaScript with production dependencies only; no TypeScript tooling at run time.
FROM node:20.18.1-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary for this platform; the toolchain is only the fallback for platforms
# without one, and stays in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# The sources come before `npm ci` because its `prepare` script builds them (npm run build).
COPY . .
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20.18.1-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
# The example pipelines, so `docker compose run --rm worker run pipelines/examples/<kind>.yaml` works as in a clone.
COPY --from=build /app/pipelines/examples ./pipelines/examples
COPY --from=build /app/pipelines/pipeline.schema.json ./pipelines/
# The default SQLite database and the exports (./data/exports, as in the example pipelines) live under /app/data;
# the unprivileged `node` user (uid 1000) owns them. A host folder bind-mounted there keeps its host owner, so it
# must be writable for uid 1000 (README, "Postgres warehouse and docker compose").
# /app/keys holds the secret key file (docs/security.md) in the compose file's shared `keys` volume: every worker
# container and every `docker compose run` must read the same key (SCRAPE_ETL_KEY_FILE), or each container would
# create its own in its own /app/data and refuse the others' runs. The volume takes this folder's owner and mode.
RUN mkdir -p /app/data/exports /app/keys && chown -R node:node /app/data /app/keys && chmod 700 /app/keys
USER node
ENTRYPOINT ["node", "bin/scrape-etl.js"]
CMD ["up"]
