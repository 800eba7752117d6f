# scrape-etl worker image. The sources are TypeScript run through tsx (a runtime dependency, see bin/scrape-etl.js),
# so there is no build step and `npm ci --omit=dev` keeps everything the command needs.
FROM node:20.18.1-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary for this platform; the toolchain is only the fallback for platforms
# without one, and stays in this stage.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20.18.1-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# The default SQLite database and CSV exports live under /app; the unprivileged `node` user owns them.
RUN mkdir -p /app/data /app/exports && chown -R node:node /app/data /app/exports
USER node
ENTRYPOINT ["node", "bin/scrape-etl.js"]
CMD ["worker"]
