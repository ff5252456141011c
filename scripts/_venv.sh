# Sourced by scripts/test and scripts/demo: make .venv with the project and its dev extras, at
# the exact versions of requirements/newest.txt (each with its hashes), never whatever the
# index holds today: a release nobody here made cannot change what runs. Newer releases are
# taken in on purpose with scripts/refresh-lock; scripts/test prints the drift.
# Re-installs only when the lock or pyproject.toml changed since the last install.
set -euo pipefail
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "sse-connectors: creating .venv with $("$PY" --version 2>&1) (first run only)" >&2
  "$PY" -m venv .venv
fi
stamp=.venv/.sse-connectors-installed
want=$(cat requirements/newest.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "sse-connectors: installing the project and its dev extra into .venv from" \
       "requirements/newest.txt (about a minute on a fresh machine; again only when the lock" \
       "or pyproject.toml changes)..." >&2
  start=$(date +%s)
  # uv first, at its locked version and hashes, by the venv's own pip (ensurepip's, fixed by
  # the Python); then uv makes the venv exactly the lock (pip included, at its locked version).
  awk '/^uv==/ {keep = 1; print; next} keep && /^[[:space:]]/ {print; next} {keep = 0}' \
    requirements/newest.txt > .venv/uv-lock.txt
  .venv/bin/python -m pip install --quiet --require-hashes --no-deps -r .venv/uv-lock.txt
  .venv/bin/uv pip sync --quiet --require-hashes --python .venv/bin/python requirements/newest.txt
  # The project itself, editable, built with the locked hatchling (no build isolation: an
  # isolated build would fetch the newest hatchling).
  .venv/bin/uv pip install --quiet --no-deps --no-build-isolation --python .venv/bin/python -e .
  .venv/bin/python -m pip check >&2 || { echo "sse-connectors: the lock does not fit" \
    "pyproject.toml: run scripts/refresh-lock --keep" >&2; exit 1; }
  echo "$want" > "$stamp"
  echo "sse-connectors: installed in $(( $(date +%s) - start )) s" >&2
fi
