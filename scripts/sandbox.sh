#!/usr/bin/env bash
# `npm start`: install what is missing, then run the local sandbox in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec node --import tsx scripts/sandbox.ts "$@"
