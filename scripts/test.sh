#!/usr/bin/env bash
# `npm test`: installs what is missing, then runs every suite — the TypeScript type check,
# unit tests, the Rust helper's tests, the Python input layer's tests, the end-to-end suites
# on the real stack with process desktops, then with container desktops and through
# `docker compose`, the Kubernetes manifests (offline and against a real API server), and the
# macOS helper's Swift tests (in a Debian 13 root: Debian 12 has no
# Swift) — and prints one closing line with the totals.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh || exit 1

say() { printf '\n\033[1m[deskgate test]\033[0m %s\n' "$*"; }
passed=0; failed=0; broken=(); timings=()
logdir=$(mktemp -d)
test_started=$SECONDS

# run NAME PARSER COMMAND...: runs a suite, echoing its output, and adds its counts.
run() {
  local name=$1 parser=$2; shift 2
  say "$name: $*"
  local started=$SECONDS
  "$@" 2>&1 | tee "$logdir/$name.log"
  local status=${PIPESTATUS[0]}
  timings+=("$name $((SECONDS - started)) s")
  read -r p f < <("$parser" "$logdir/$name.log")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
  [ "$status" -ne 0 ] && broken+=("$name")
}
node_counts() { echo "$(grep -E '^# pass ' "$1" | awk '{s+=$3} END {print s+0}') $(grep -E '^# fail ' "$1" | awk '{s+=$3} END {print s+0}')"; }
cargo_counts() { echo "$(grep -oE '[0-9]+ passed' "$1" | awk '{s+=$1} END {print s+0}') $(grep -oE '[0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')"; }
pytest_counts() { local line; line=$(grep -E '(passed|failed)' "$1" | tail -1); echo "$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || echo 0) $(echo "$line" | grep -oE '[0-9]+ (failed|error)' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')"; }
check_counts() { echo "0 0"; }
# XCTest: "Executed 17 tests, with 0 failures (0 unexpected) in …".
swift_counts() { local line; line=$(grep -E 'Executed [0-9]+ tests?, with [0-9]+ failures?' "$1" | tail -1); echo "$(echo "$line" | grep -oE 'Executed [0-9]+' | grep -oE '[0-9]+' || echo 0) $(echo "$line" | grep -oE 'with [0-9]+' | grep -oE '[0-9]+' || echo 0)"; }

# The Docker engine, the images and Compose v2 take minutes on a fresh machine: they are made
# in the background (at a lower priority) while the host suites run; the container suites wait
# for them. (At the suites' own priority it was ready sooner, but the run was no shorter and the
# host suites ran on busier cores: docs/testing.md.)
nice -n 10 bash scripts/install-containers.sh >"$logdir/containers-setup.log" 2>&1 &
containers_setup=$!
# What the Kubernetes manifests' checks need: kubeconform and its schemas, etcd and kube-apiserver
# for a server-side dry run, built from the Go module proxy once (minutes cold; cached in .deskgate/k8s).
nice -n 10 bash scripts/k8s/build-tools.sh validate >"$logdir/k8s-tools.log" 2>&1 &
k8s_tools=$!
# The Swift toolchain for the macOS helper's tests: a Debian 13 root made once (a few minutes cold).
nice -n 10 bash scripts/macos/swift-on-linux.sh install >"$logdir/swift-setup.log" 2>&1 &
swift_setup=$!

run typecheck check_counts npx tsc -p tsconfig.json
# Node 20's test runner takes no globs: list the files.
tests_in() { find "$@" -name '*.test.ts' -not -path '*/node_modules/*' | sort; }
# Three files at a time (Node's default is one per core less one: a single file on 2 cores);
# most of a unit file's time is waiting on the Redis it starts.
run unit node_counts node --import tsx --test --test-concurrency=3 --test-reporter=tap $(tests_in packages services)
run capture-helper cargo_counts cargo test --release --manifest-path helpers/linux-capture/Cargo.toml
run input-runtime pytest_counts /usr/bin/python3 -m pytest -q runtime/tests
# Suites that need the engine run after the setup; the rest run on process desktops first.
container_only='container-desktops|desktop-image|compose|container-live-view|container-shutdown'
# Three lanes: the end-to-end files mostly wait (on Xvfb, Chromium, workers starting), so three
# share two cores well (2 lanes: 651 s in the last fresh-machine run; 3: 487 s on a slower day).
run e2e node_counts node --import tsx scripts/test-lanes.ts --lanes 3 --alone sandbox.test.ts -- --import tsx --test --test-reporter=tap -- $(tests_in tests/e2e | grep -Ev "/($container_only)\.test\.ts$")

# waited NAME PID: waits for a background setup, noting how long the suites waited for it.
waited() { local started=$SECONDS; wait "$2"; local status=$?; timings+=("waiting for $1 $((SECONDS - started)) s"); return $status; }
say "waiting for the container setup (Docker engine, images, Compose v2)"
if waited container-setup "$containers_setup"; then
  tail -1 "$logdir/containers-setup.log"
  # The core suites again, every desktop a container, then the container-only suites — one at a
  # time: some check that no desktop container is left, which another file's would break.
  run e2e-containers node_counts env DESKGATE_DESKTOP_PROVIDER=container node --import tsx scripts/test-lanes.ts --lanes 1 -- --import tsx --test --test-reporter=tap -- \
    $(tests_in tests/e2e | grep -E "/(vertical-slice|gates|conformance|$container_only)\.test\.ts$")
else
  cat "$logdir/containers-setup.log"
  say "the container setup failed: the container suites did not run"
  failed=$((failed + 1)); broken+=(container-setup)
fi

# After the container suites: a cold build of kube-apiserver is the longest background setup,
# and it finishes while they run.
say "waiting for the Kubernetes tools (kubeconform, etcd, kube-apiserver)"
waited k8s-tools "$k8s_tools" || { cat "$logdir/k8s-tools.log"; say "the Kubernetes tools could not be built: validate.sh will say what is missing"; }
# Both overlays: kubeconform -strict offline, then a server-side dry run on a real API server (Pod Security included).
run k8s-manifests node_counts bash scripts/k8s/validate.sh

say "waiting for the Swift toolchain (Debian 13's swiftlang in a root of its own)"
if waited swift-setup "$swift_setup"; then
  run swift swift_counts bash scripts/macos/swift-on-linux.sh test
else
  cat "$logdir/swift-setup.log"
  say "the Swift toolchain could not be installed: the macOS helper's tests did not run"
  failed=$((failed + 1)); broken+=(swift-setup)
fi

# The background setups' logs are kept (each line of the container setup says how far in it
# was): where a cold machine spends its minutes.
kept=.deskgate/logs/test-setup
mkdir -p "$kept" && cp "$logdir"/{containers-setup,k8s-tools,swift-setup}.log "$kept"/ 2>/dev/null
rm -rf "$logdir"
say "time per step (${#timings[@]} steps, $((SECONDS - test_started)) s in all after the install):"
printf '  %s\n' "${timings[@]}"
echo "  (the background setups' logs: $kept/)"
say "suites with failures: ${broken[*]:-none}"
echo "total: $passed passed, $failed failed"
[ ${#broken[@]} -eq 0 ]
