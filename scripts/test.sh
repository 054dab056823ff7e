#!/usr/bin/env bash
# `npm test`: installs what is missing, then runs every suite — the TypeScript type check,
# unit tests, the Rust helper's tests, the Python input layer's tests and the end-to-end
# suite on the real stack — and prints one closing line with the totals.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh || exit 1

say() { printf '\n\033[1m[deskgate test]\033[0m %s\n' "$*"; }
passed=0; failed=0; broken=()
logdir=$(mktemp -d)

# run NAME PARSER COMMAND...: runs a suite, echoing its output, and adds its counts.
run() {
  local name=$1 parser=$2; shift 2
  say "$name: $*"
  "$@" 2>&1 | tee "$logdir/$name.log"
  local status=${PIPESTATUS[0]}
  read -r p f < <("$parser" "$logdir/$name.log")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
  [ "$status" -ne 0 ] && broken+=("$name")
}
node_counts() { echo "$(grep -E '^# pass ' "$1" | awk '{s+=$3} END {print s+0}') $(grep -E '^# fail ' "$1" | awk '{s+=$3} END {print s+0}')"; }
cargo_counts() { echo "$(grep -oE '[0-9]+ passed' "$1" | awk '{s+=$1} END {print s+0}') $(grep -oE '[0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')"; }
pytest_counts() { local line; line=$(grep -E '(passed|failed)' "$1" | tail -1); echo "$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0) $(echo "$line" | grep -oE '[0-9]+ (failed|error)' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')"; }
check_counts() { echo "0 0"; }

run typecheck check_counts npx tsc -p tsconfig.json
# Node 20's test runner takes no globs: list the files.
tests_in() { find "$@" -name '*.test.ts' -not -path '*/node_modules/*' | sort; }
run unit node_counts node --import tsx --test --test-reporter=tap $(tests_in packages services)
run capture-helper cargo_counts cargo test --release --manifest-path helpers/linux-capture/Cargo.toml
run input-runtime pytest_counts /usr/bin/python3 -m pytest -q runtime/tests
run e2e node_counts node --import tsx --test --test-reporter=tap --test-concurrency=1 $(tests_in tests/e2e)

rm -rf "$logdir"
say "suites with failures: ${broken[*]:-none}"
echo "total: $passed passed, $failed failed"
[ ${#broken[@]} -eq 0 ]
