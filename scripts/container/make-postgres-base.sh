#!/usr/bin/env bash
# make-postgres-base.sh: a stand-in for the official `postgres:15-bookworm` image where no image registry can
# be reached, to try compose.yaml here (POSTGRES_VERSION=15 podman-compose up): Debian bookworm's
# PostgreSQL 15 with an entrypoint that does what the official one does on a first start
# (postgres-stand-in/). Built on the stand-in Node base (make-node-base.sh), which must exist.
# Does nothing when the tag exists already.
set -euo pipefail
tag="${1:-docker.io/library/postgres:15-bookworm}"
if podman image exists "$tag"; then
  echo "$tag exists"
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
podman build --isolation chroot --pull=never --format docker -t "$tag" "$here/postgres-stand-in" > /dev/null
echo "$tag: PostgreSQL 15 on Debian bookworm (stand-in)"
