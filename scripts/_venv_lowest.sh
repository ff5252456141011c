# Sourced by scripts/test (after scripts/_venv.sh): make the two lowest dependency sets
# pyproject allows, at the exact versions of their locks (scripts/locks.py says how each was
# resolved: the runtime dependencies at their floors, lowest-direct, the test tools at their
# newest that fit around them):
#   .venv-lowest       requirements/lowest.txt: every extra (httpx, pydantic, langchain-core,
#                      llama-index-core, uvicorn, tiktoken, msgspec, httpx2, opentelemetry-api)
#                      and the dev tools; the adapters' dependencies hold pydantic higher
#   .venv-lowest-core  requirements/lowest-core.txt: the core alone (with the emulator,
#                      msgspec and httpx2) at pydantic's own floor, and the tools tests/core
#                      needs
# Re-made only when its lock or pyproject.toml changed since the last install.
set -euo pipefail

lowest_venv() {  # VENV LOCK: VENV with exactly LOCK and the project (editable, no deps)
  local venv=$1 lock=$2 want start
  want=$(cat "$lock" pyproject.toml | sha256sum | cut -d' ' -f1)
  if [ -f "$venv"/.sse-connectors-installed ] \
     && [ "$(cat "$venv"/.sse-connectors-installed)" = "$want" ]; then
    return 0
  fi
  echo "sse-connectors: making $venv from $lock (again only when the lock or" \
       "pyproject.toml changes)..." >&2
  start=$(date +%s)
  rm -rf "$venv"
  .venv/bin/uv venv --quiet --python .venv/bin/python "$venv"  # uv: from the lock
  .venv/bin/uv pip sync --quiet --compile-bytecode --require-hashes \
    --python "$venv"/bin/python "$lock"
  .venv/bin/uv pip install --quiet --no-deps --no-build-isolation --python "$venv"/bin/python -e .
  echo "$want" > "$venv"/.sse-connectors-installed
  echo "sse-connectors: $venv made in $(( $(date +%s) - start )) s" >&2
}

lowest_venv .venv-lowest requirements/lowest.txt
lowest_venv .venv-lowest-core requirements/lowest-core.txt
