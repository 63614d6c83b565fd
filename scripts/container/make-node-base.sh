#!/usr/bin/env bash
# make-node-base.sh NODE_MAJOR [TAG]: builds a stand-in for the official `node:<major>-bookworm-slim` image
# where no image registry can be reached (CI, this project's development machines), and tags it with the
# official name, so the very Containerfile a user builds is the one tested. Made of what is reachable: a
# Debian bookworm minbase root file system from debootstrap (Debian's mirror), Node from the npm registry
# (scripts/ci/install-node.sh) in /usr/local as the official image has it, with libatomic1 (Node needs it),
# its `node` user (uid 1000), and the host's CA bundle (NODE_EXTRA_CA_CERTS), through which this machine
# reaches the npm registry.
# Does nothing when an image of that tag exists already. Needs root, debootstrap and podman.
set -euo pipefail
major="$1"
tag="${2:-docker.io/library/node:${major}-bookworm-slim}"
if podman image exists "$tag"; then
  echo "$tag exists"
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
echo "debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase --include=libatomic1 bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; exit 1; }
cat > "$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
"$here/../ci/install-node.sh" "$major" "$work/node"
cp -a "$work/node/bin/." "$root/usr/local/bin/"
mkdir -p "$root/usr/local/include" "$root/usr/local/lib"
cp -a "$work/node/include/node" "$root/usr/local/include/"
cp -a "$work/node/lib/node_modules" "$root/usr/local/lib/"
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/host-ca-bundle.crt"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$root/var/lib/apt/lists/"* "$root/var/cache/apt/archives/"*.deb
version="$("$root/usr/local/bin/node" --version)"
tar -C "$root" -c . | podman import \
  --change "ENV NODE_VERSION=${version#v}" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-ca-bundle.crt' \
  --change 'CMD ["node"]' \
  - "$tag" > /dev/null
echo "$tag: Node $version on Debian bookworm (stand-in)"
