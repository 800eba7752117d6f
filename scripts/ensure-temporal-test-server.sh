#!/usr/bin/env bash
# Prints the path of an executable that starts Temporal's time-skipping test server on the port given as its first
# argument (what @temporalio/testing's TestWorkflowEnvironment.createTimeSkipping runs as an 'existing-path'
# executable); progress goes to stderr. The SDK would download a native build from temporal.download, which this
# project's machines cannot reach, so the same server is taken from Maven Central instead: the Java SDK's
# io.temporal:temporal-test-server jar (version in scripts/temporal-test-server/pom.xml), run by the JVM.
#   1. $TEMPORAL_TEST_SERVER_PATH (any executable taking the port first, e.g. the native build)
#   2. ${XDG_CACHE_HOME:-~/.cache}/scrape-etl/temporal-test-server-<version>/, filled by 3 earlier
#   3. mvn dependency:copy-dependencies of that pom into the cache (seconds; needs java and mvn)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
pom="$repo/scripts/temporal-test-server/pom.xml"
version="$(sed -n 's:.*<version>\([0-9][^<]*\)</version>.*:\1:p' "$pom" | tail -n 1)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/scrape-etl"
dir="$cache/temporal-test-server-$version"
launcher="$dir/temporal-test-server"

note() { echo "Temporal test server: $*" >&2; }
use() { note "using $1 ($2)"; echo "$1"; exit 0; }

if [ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ]; then
  [ -x "$TEMPORAL_TEST_SERVER_PATH" ] && [ -f "$TEMPORAL_TEST_SERVER_PATH" ] || { note "TEMPORAL_TEST_SERVER_PATH='$TEMPORAL_TEST_SERVER_PATH' is not an executable file"; exit 1; }
  use "$TEMPORAL_TEST_SERVER_PATH" '$TEMPORAL_TEST_SERVER_PATH'
fi
command -v java >/dev/null || { note "java is not installed (the test server is the Java SDK's): apt-get install default-jre-headless, or set TEMPORAL_TEST_SERVER_PATH"; exit 1; }
# The launcher is written last, so an interrupted copy never looks complete.
[ -x "$launcher" ] && [ -f "$dir/lib/temporal-test-server-$version.jar" ] && use "$launcher" "$version, cached"

command -v mvn >/dev/null || { note "mvn is not installed (needed once to fetch the $version jars from Maven Central): apt-get install maven, or set TEMPORAL_TEST_SERVER_PATH"; exit 1; }
start=$SECONDS
note "copying io.temporal:temporal-test-server:$version and its dependencies from Maven Central into $dir (seconds, once)..."
mkdir -p "$cache"
staging="$(mktemp -d "$cache/temporal-test-server.tmp-XXXXXX")"
trap 'rm -rf "$staging"' EXIT
mvn -q -B -f "$pom" dependency:copy-dependencies -DoutputDirectory="$staging/lib" -DincludeScope=runtime >&2
[ -f "$staging/lib/temporal-test-server-$version.jar" ] || { note "mvn finished without temporal-test-server-$version.jar in $staging/lib"; exit 1; }
# C1 only and the serial collector: the server lives for one test file, so the JVM's start-up CPU is what counts.
cat > "$staging/temporal-test-server" <<'LAUNCHER'
#!/bin/sh
here="$(cd "$(dirname "$0")" && pwd)"
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -cp "$here/lib/*" io.temporal.testserver.TestServer "$@"
LAUNCHER
chmod +x "$staging/temporal-test-server"
rm -rf "$dir"
mv -T "$staging" "$dir"
trap - EXIT
use "$launcher" "$version from Maven Central, in $((SECONDS - start)) s"
