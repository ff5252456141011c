# Sourced by scripts/test (after scripts/_venv.sh): make the two lowest dependency sets
# pyproject allows, each resolved lowest-direct by uv as a user's `--resolution lowest-direct`
# install would, with the test tools at their newest that fit around them:
#   .venv-lowest       every extra (httpx, pydantic, langchain-core, llama-index-core, uvicorn,
#                      tiktoken, msgspec); the adapters' dependencies hold pydantic higher
#   .venv-lowest-core  the core alone (with the emulator and msgspec): pydantic's own floor
# Re-made only when pyproject.toml changed since the last install.
set -euo pipefail

lowest_venv() {  # VENV EXTRAS PACKAGE...: VENV on the lowest set of the project with EXTRAS
  local venv=$1 extras=$2 want start
  shift 2
  want=$(sha256sum pyproject.toml | cut -d' ' -f1)
  if [ -f "$venv"/.sse-connectors-installed ] \
     && [ "$(cat "$venv"/.sse-connectors-installed)" = "$want" ]; then
    return 0
  fi
  echo "sse-connectors: making $venv (a lowest dependency set; again only when" \
       "pyproject.toml changes)..." >&2
  start=$(date +%s)
  rm -rf "$venv"
  .venv/bin/uv venv --quiet --python .venv/bin/python "$venv"  # uv: from the dev extra
  echo "-e .[$extras]" > "$venv"/runtime.in
  .venv/bin/uv pip compile --quiet --python "$venv"/bin/python --resolution lowest-direct \
    "$venv"/runtime.in -o "$venv"/runtime.txt
  # Pin exactly the project's direct runtime dependencies at what lowest-direct chose; the
  # rest (transitive dependencies, test tools) resolve to their newest that fit around them.
  .venv/bin/python - "$venv" "$extras" > "$venv"/pins.txt <<'EOF'
import re, sys, tomllib
venv, extras = sys.argv[1], sys.argv[2].split(",")
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
reqs = project["dependencies"] + [r for e in extras for r in project["optional-dependencies"][e]]
names = {re.match(r"[A-Za-z0-9._-]+", r).group(0).lower().replace("_", "-") for r in reqs}
for line in open(f"{venv}/runtime.txt"):
    if "==" in line and line.split("==")[0].strip().lower() in names:
        print(line.strip())
EOF
  # httpx as an override, not only a constraint: langchain-tests (a test tool) asks for
  # httpx>=0.28.1, and the project's own floor is what this set is for.
  grep '^httpx==' "$venv"/pins.txt > "$venv"/overrides.txt
  .venv/bin/uv pip install --quiet --compile-bytecode --python "$venv"/bin/python \
    -c "$venv"/pins.txt --override "$venv"/overrides.txt "$@"
  echo "$want" > "$venv"/.sse-connectors-installed
  echo "sse-connectors: $venv made in $(( $(date +%s) - start )) s:" \
       "$(tr '\n' ' ' < "$venv"/pins.txt)" >&2
}

all_extras=$(.venv/bin/python -c 'import tomllib; print(",".join(e for e in tomllib.load(
  open("pyproject.toml", "rb"))["project"]["optional-dependencies"] if e not in ("dev", "all")))')
lowest_venv .venv-lowest "$all_extras" -e '.[dev]'
# tests/core's tools only: the adapters' test tools need the adapters' pydantic.
lowest_venv .venv-lowest-core emulator,fast -e '.[emulator,fast]' pytest pytest-asyncio \
  pytest-timeout pytest-benchmark hypothesis orjson httpx-sse
