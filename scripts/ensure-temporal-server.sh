#!/usr/bin/env bash
# Prints the folder holding a Temporal server binary (`server`) and its SQL schema tool (`sql`), built once with
# `go install` into the cache when missing; progress goes to stderr. The production-topology tests
# (test/support/temporal-server.ts) and .ci/run use it; the version is the one in scripts/temporal-server.version,
# which docker-compose.yml's temporalio/auto-setup tag must equal (test/integration/deploy/compose.test.ts checks that).
#   1. $TEMPORAL_SERVER_BIN_DIR, when it holds both binaries
#   2. ${XDG_CACHE_HOME:-~/.cache}/scrape-etl/temporal-server-v<version>/bin, filled by 3 earlier
#   3. go install go.temporal.io/server/cmd/server@v<version> go.temporal.io/server/cmd/tools/sql@v<version>
#      (about 2 minutes with a warm Go module cache; several more on a fresh machine, which downloads the modules)
# The schema files the `sql` tool applies come from the same module, in $(go env GOMODCACHE); with a folder given
# by 1 they must be there too (the test support reads them from that module folder).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
version="$(tr -d '[:space:]' < "$repo/scripts/temporal-server.version")"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/scrape-etl"
dir="$cache/temporal-server-v$version/bin"

note() { echo "Temporal server: $*" >&2; }
has_both() { [ -x "$1/server" ] && [ -f "$1/server" ] && [ -x "$1/sql" ] && [ -f "$1/sql" ]; }
use() { note "using $1 ($2)"; echo "$1"; exit 0; }

if [ -n "${TEMPORAL_SERVER_BIN_DIR:-}" ]; then
  has_both "$TEMPORAL_SERVER_BIN_DIR" || { note "TEMPORAL_SERVER_BIN_DIR='$TEMPORAL_SERVER_BIN_DIR' lacks an executable server and sql"; exit 1; }
  use "$TEMPORAL_SERVER_BIN_DIR" '$TEMPORAL_SERVER_BIN_DIR'
fi
# The module source (schemas, config) must be present too: a cache copied without it is rebuilt below.
modsrc() { echo "$(go env GOMODCACHE)/go.temporal.io/server@v$version"; }
if has_both "$dir" && command -v go >/dev/null && [ -d "$(modsrc)/schema/postgresql/v12" ]; then
  use "$dir" "v$version, cached"
fi

command -v go >/dev/null || { note "Go is not installed (needed once to build v$version); install Go >= 1.24 or set TEMPORAL_SERVER_BIN_DIR"; exit 1; }
start=$SECONDS
note "building v$version with go install into $dir (minutes, once)..."
mkdir -p "$cache"
staging="$(mktemp -d "$cache/temporal-server-build.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
GOBIN="$staging" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install \
  "go.temporal.io/server/cmd/server@v$version" "go.temporal.io/server/cmd/tools/sql@v$version" >&2
has_both "$staging" || { note "go install finished without both binaries in $staging"; exit 1; }
mkdir -p "$dir"
# Moved into place one by one (server last), so an interrupted build never looks complete.
mv -f "$staging/sql" "$dir/sql"
mv -f "$staging/server" "$dir/server"
use "$dir" "go install v$version, in $((SECONDS - start)) s"
