#!/usr/bin/env bash
# Turns a checkout into a runnable release, in place: the one recipe for every way Paygate is installed (by hand,
# the systemd units, the Dockerfile). Installs exactly the lockfile, builds every package, then drops the dev
# dependencies (tsx, the dev chains, the compilers), so what runs is server/dist and web/dist under plain node.
# Usage: deploy/install.sh   (from anywhere; needs node >= 20.19 and npm, and network access to the npm registry)
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
# npm ci runs the root `prepare` (client-core, the verifier, the dev chains, web/dist, the API docs in
# openapi/dist/docs: the @paygate/openapi package the server resolves, with the bundled contracts).
npm ci --no-audit --no-fund
# Every workspace, the server's dist included: the bin runs server/dist once it exists, never the sources.
npm run build
# From here on only runtime dependencies: a production process cannot load tsx or the dev chains.
npm prune --omit=dev --no-audit --no-fund

# The release must start without anything prune removed: the bin answers from server/dist.
test -f server/dist/cli.js || { echo "install: server/dist/cli.js is missing after the build" >&2; exit 1; }
test -f web/dist/checkout.html || { echo "install: web/dist/checkout.html is missing after the build" >&2; exit 1; }
test -f openapi/dist/docs/gateway.html || { echo "install: openapi/dist/docs/gateway.html is missing after the build" >&2; exit 1; }
node server/bin/paygate.js --help >/dev/null
echo "install: release ready in $((SECONDS - started)) s: $(pwd) (run: node server/bin/paygate.js start | worker)"
