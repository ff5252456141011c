# Sourced by scripts/test and scripts/demo: make .venv with the project and its dev extras.
# Re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.sse-connectors-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  echo "$want" > "$stamp"
fi
