# Sourced by scripts/test and scripts/demo: make .venv with the project and its dev extras.
# Re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "sse-connectors: creating .venv with $("$PY" --version 2>&1) (first run only)" >&2
  "$PY" -m venv .venv
fi
stamp=.venv/.sse-connectors-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "sse-connectors: installing the project and its dev extra into .venv" \
       "(about a minute on a fresh machine; again only when pyproject.toml changes)..." >&2
  start=$(date +%s)
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  echo "$want" > "$stamp"
  echo "sse-connectors: installed in $(( $(date +%s) - start )) s" >&2
fi
