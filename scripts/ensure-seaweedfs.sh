#!/usr/bin/env bash
# Prints the path of a SeaweedFS `weed` binary (Apache-2.0), built once from the Go module proxy into the cache when
# missing; progress goes to stderr. The lake tests (test/support/s3-server.ts) start `weed server -s3` with it as the
# S3-compatible store, and .ci/run runs this script so its time shows in the log on its own.
#   1. $SEAWEEDFS_BIN, when it is an executable file
#   2. ${XDG_CACHE_HOME:-~/.cache}/scrape-etl/seaweedfs-<version>/weed, filled by 3 earlier
#   3. go mod download of github.com/seaweedfs/seaweedfs@<version>, then `go build ./weed` in a writable copy of the
#      module folder (`go install …/weed@<version>` is refused: the module's go.mod has replace directives);
#      about 4 minutes on 2 cores with a warm module cache, more on a fresh machine
# The version (a Go pseudo-version: SeaweedFS's own tags are not semver) is in scripts/seaweedfs.version.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
version="$(tr -d '[:space:]' < "$repo/scripts/seaweedfs.version")"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/scrape-etl"
dir="$cache/seaweedfs-$version"

note() { echo "SeaweedFS: $*" >&2; }
use() { note "using $1 ($2)"; echo "$1"; exit 0; }

if [ -n "${SEAWEEDFS_BIN:-}" ]; then
  [ -x "$SEAWEEDFS_BIN" ] && [ -f "$SEAWEEDFS_BIN" ] || { note "SEAWEEDFS_BIN='$SEAWEEDFS_BIN' is not an executable file"; exit 1; }
  use "$SEAWEEDFS_BIN" '$SEAWEEDFS_BIN'
fi
if [ -x "$dir/weed" ] && [ -f "$dir/weed" ]; then use "$dir/weed" "$version, cached"; fi

command -v go >/dev/null || { note "Go is not installed (needed once to build $version); install Go or set SEAWEEDFS_BIN"; exit 1; }
start=$SECONDS
note "building $version into $dir (minutes, once)..."
mkdir -p "$cache"
staging="$(mktemp -d "$cache/seaweedfs-build.XXXXXX")"
trap 'chmod -R u+w "$staging" 2>/dev/null; rm -rf "$staging"' EXIT
# go mod download prints the module's read-only folder in the module cache; the build needs a writable copy.
src="$(cd "$staging" && go mod download -json "github.com/seaweedfs/seaweedfs@$version" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
[ -f "$src/LICENSE" ] && head -3 "$src/LICENSE" | grep -q 'Apache License' || { note "$src/LICENSE is not the Apache License"; exit 1; }
cp -r "$src" "$staging/src"
chmod -R u+w "$staging/src"
(cd "$staging/src" && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build -o "$staging/weed" ./weed) >&2
[ -x "$staging/weed" ] || { note "go build finished without $staging/weed"; exit 1; }
mkdir -p "$dir"
cp "$src/LICENSE" "$dir/LICENSE"
# Moved into place last, so an interrupted build never looks complete.
mv -f "$staging/weed" "$dir/weed"
use "$dir/weed" "go build $version, in $((SECONDS - start)) s"
