#!/usr/bin/env bash
# Podman and the base images of `npm run test:compose`, built on this machine without a registry.
# Idempotent: a tool already installed, an image already built or a root filesystem already
# bootstrapped is kept, so only the first run on a machine pays for them (a few minutes).
#
# Images (names passed in by scripts/test-compose.mjs, which also puts them in the compose override):
#   MM_BASE_IMAGE      Debian bookworm minbase (debootstrap from the machine's apt mirror)
#   MM_NODE_IMAGE      the base plus the host's Node.js and npm, and the `node` user the Dockerfile runs as
#   MM_POSTGRES_IMAGE  the base plus Debian's PostgreSQL, with an entrypoint reading POSTGRES_* as the
#                      official image does
#   MM_REDIS_IMAGE     the base plus Debian's Redis
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MM_COMPOSE_CACHE:-/var/cache/mm-compose}
: "${MM_BASE_IMAGE:?}" "${MM_NODE_IMAGE:?}" "${MM_POSTGRES_IMAGE:?}" "${MM_REDIS_IMAGE:?}"
export DEBIAN_FRONTEND=noninteractive

say() { printf '  [images] %s\n' "$*"; }

# --- Podman from Debian's packages -------------------------------------------------------------
missing=()
for tool in podman podman-compose runc debootstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} (apt-get)"
  apt-get update -qq
  apt-get install -y -qq podman podman-compose runc debootstrap >/dev/null
fi

# This machine kind has hybrid cgroups, which crun refuses (runc copes), and no CAP_SYS_RESOURCE, so
# a container may not ask for more open files or processes than the host's hard limits.
conf=/etc/containers/containers.conf
wanted='[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"'
if [ "$(cat "$conf" 2>/dev/null)" != "$wanted" ]; then
  [ -f "$conf" ] && [ ! -f "$conf.before-mm-compose" ] && cp "$conf" "$conf.before-mm-compose"
  mkdir -p /etc/containers
  printf '%s\n' "$wanted" >"$conf"
  say "wrote $conf (runc, ulimits within the host's)"
fi
podman info >/dev/null

# --- Debian base: debootstrap once, keep the tree in the cache -----------------------------------
if ! podman image exists "$MM_BASE_IMAGE"; then
  rootfs=$cache/rootfs-bookworm
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  if [ ! -x "$rootfs/usr/bin/apt-get" ] || [ ! -f "$rootfs/.complete" ]; then
    say "debootstrap bookworm minbase from $mirror into $rootfs"
    rm -rf "$rootfs"
    mkdir -p "$cache"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
      { tail -20 "$cache/debootstrap.log"; exit 1; }
    # apt inside images built from this base uses the same mirror as the host
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" >"$rootfs/etc/apt/sources.list"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb
    touch "$rootfs/.complete"
  fi
  say "importing $MM_BASE_IMAGE"
  tar -C "$rootfs" --exclude=./.complete -c . | podman import -q --change 'CMD ["/bin/bash"]' - "$MM_BASE_IMAGE" >/dev/null
fi

# --- Node.js: the host's own binary and npm on the base ------------------------------------------
if ! podman image exists "$MM_NODE_IMAGE"; then
  say "building $MM_NODE_IMAGE from the host's $(/usr/bin/node --version)"
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' EXIT
  mkdir -p "$ctx/usr/bin" "$ctx/usr/lib/node_modules"
  cp /usr/bin/node "$ctx/usr/bin/"
  cp -a /usr/lib/node_modules/npm "$ctx/usr/lib/node_modules/"
  cp "$here/node.Containerfile" "$ctx/Containerfile"
  podman build -q --build-arg "BASE=$MM_BASE_IMAGE" -t "$MM_NODE_IMAGE" "$ctx" >/dev/null
  rm -rf "$ctx"
  trap - EXIT
fi

# --- PostgreSQL and Redis from Debian's packages -------------------------------------------------
if ! podman image exists "$MM_POSTGRES_IMAGE"; then
  say "building $MM_POSTGRES_IMAGE (apt-get in the build)"
  podman build -q --network host --build-arg "BASE=$MM_BASE_IMAGE" -t "$MM_POSTGRES_IMAGE" "$here/postgres" >/dev/null
fi
if ! podman image exists "$MM_REDIS_IMAGE"; then
  say "building $MM_REDIS_IMAGE (apt-get in the build)"
  podman build -q --network host --build-arg "BASE=$MM_BASE_IMAGE" -t "$MM_REDIS_IMAGE" "$here/redis" >/dev/null
fi
say "ready: $MM_BASE_IMAGE $MM_NODE_IMAGE $MM_POSTGRES_IMAGE $MM_REDIS_IMAGE"
