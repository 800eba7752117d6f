#!/usr/bin/env bash
# Prints the path of a Temporal CLI binary, building it once with Go when there is none.
# Order: $TEMPORAL_CLI_PATH, then the cache (kept outside git), then `go install` into the cache.
# v1.5.1 is pinned because later tags carry a `replace` directive that `go install` refuses.
set -euo pipefail
version=1.5.1
cache="${XDG_CACHE_HOME:-$HOME/.cache}/scrape-etl/temporal-$version"

if [ -n "${TEMPORAL_CLI_PATH:-}" ] && [ -x "$TEMPORAL_CLI_PATH" ]; then
  echo "$TEMPORAL_CLI_PATH"; exit 0
fi
if [ -x "$cache/temporal" ]; then
  echo "$cache/temporal"; exit 0
fi
command -v go >/dev/null || { echo "Go is needed to build the Temporal CLI (or set TEMPORAL_CLI_PATH)" >&2; exit 1; }
mkdir -p "$cache"
echo "building the Temporal CLI v$version with go install (takes a few minutes, once)..." >&2
GOBIN="$cache" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "github.com/temporalio/cli/cmd/temporal@v$version" >&2
echo "$cache/temporal"
