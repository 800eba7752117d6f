#!/usr/bin/env bash
# Prints the path of a dbt executable with the postgres and duckdb adapters, installing dbt-core 1.11 from PyPI into
# a virtual environment in the cache when there is none (minutes once; instant when cached). dbt-core 1.12 fetches a
# parser from outside the package registries at install, so the version is held below it. A virtual environment
# rather than `pip install --target` (as for the Python readers): dbt is a command with its own dependency pins,
# which a folder shared on PYTHONPATH would mix with the readers'.
# test/support/dbt.ts runs this script; .ci/run runs it first so its time shows in the log on its own.
set -euo pipefail
cache="${XDG_CACHE_HOME:-$HOME/.cache}/scrape-etl"
venv="$cache/dbt-1.11"
requirements=('dbt-core>=1.11,<1.12' 'dbt-postgres' 'dbt-duckdb')

# The marker is written last: a venv an interrupted install left behind is removed and built again.
if [ -f "$venv/.complete" ] && [ -x "$venv/bin/dbt" ]; then
  echo "$venv/bin/dbt"
  exit 0
fi
mkdir -p "$cache"
echo "dbt: installing ${requirements[*]} into $venv" >&2
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${requirements[@]}" >&2
"$venv/bin/python" -c 'import dbt.adapters.postgres, dbt.adapters.duckdb'
"$venv/bin/dbt" --version >&2
touch "$venv/.complete"
echo "$venv/bin/dbt"
