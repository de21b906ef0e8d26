# Shared by the set-up scripts: where the Debian 13 root lives and whether this host needs one.
# Sourced, not run.

# Which Debian fxview builds, tests and packages on (FXVIEW_DIST): trixie (Debian 13: LibTorch
# 2.6, Qt 6.8, the default) or sid (Debian unstable: LibTorch 2.14, Qt 6.11, Python 3.14; today's
# PyTorch). Each has its root, its build folder and its .deb.
FXVIEW_DIST="${FXVIEW_DIST:-trixie}"
case "$FXVIEW_DIST" in
  trixie) FXVIEW_DIST_NAME="Debian 13" ;;
  sid) FXVIEW_DIST_NAME="Debian sid" ;;
  *)
    echo "error: FXVIEW_DIST is '$FXVIEW_DIST'; fxview builds on trixie (the default) or sid." >&2
    exit 2
    ;;
esac
# The root is outside the checkout so that a fresh clone (CI) reuses it; ccache's folder sits
# beside it, outside the root, so rebuilds stay fast even if the root is remade.
if [ "$FXVIEW_DIST" = trixie ]; then
  FXVIEW_ROOT="${FXVIEW_ROOT:-/var/lib/fxview/debian13}"
else
  FXVIEW_ROOT="${FXVIEW_ROOT:-/var/lib/fxview/$FXVIEW_DIST}"
fi
FXVIEW_CCACHE_DIR="${FXVIEW_CCACHE_DIR:-$(dirname "$FXVIEW_ROOT")/ccache}"
# Written last by make-root: a root without it is half made and is made again.
FXVIEW_ROOT_STAMP="$FXVIEW_ROOT/.fxview-root-complete"

# The build folder of a checkout at $1: build/ for trixie, build-sid/ for sid (FXVIEW_BUILD_DIR
# overrides it).
fxview_build_dir() {
  if [ -n "${FXVIEW_BUILD_DIR:-}" ]; then
    echo "$FXVIEW_BUILD_DIR"
  elif [ "$FXVIEW_DIST" = trixie ]; then
    echo "$1/build"
  else
    echo "$1/build-$FXVIEW_DIST"
  fi
}

# The Debian packages fxview builds, tests and runs with (the same names in trixie and sid).
FXVIEW_PACKAGES=(
  cmake ninja-build g++ pkg-config ccache
  dpkg-dev file                 # scripts/package: dpkg-shlibdeps finds the .deb's dependencies
  libtorch-dev                  # LibTorch 2.6: find_package(Torch)
  libopenblas0-pthread          # LibTorch's BLAS: without it Debian falls back to the reference
                                # BLAS, ~30x slower (vit_b_16's forward 18.7 s)
  libgraphviz-dev graphviz
  nlohmann-json3-dev            # reads torch.export's serialized_exported_program.json
  zlib1g-dev                    # fxview-reader inflates a remote engine's program (issue 50)
  qt6-base-dev qt6-svg-dev
  qt6-svg-plugins               # the SVG icon engine: without it every toolbar icon is blank
  python3-torch python3-torchvision python3-torchaudio   # fixtures are written by real PyTorch
  python3-pip                   # the Python package installed as a person would (python_package)
  python3-dev python3-setuptools  # torch.compile's Inductor builds C++ against Python's headers
                                # (python_dynamo records Inductor's graphs)
  fonts-dejavu-core fontconfig  # text in the window and in exported pictures
  xauth                         # the app under an X server
)
# sid's fixtures include Hugging Face models made from configs (no weights are downloaded).
[ "$FXVIEW_DIST" = sid ] && FXVIEW_PACKAGES+=(python3-transformers)
# sid's root is the "server" the window's SSH tests reach: its sshd on 127.0.0.1 (tests/remote).
[ "$FXVIEW_DIST" = sid ] && FXVIEW_PACKAGES+=(openssh-server)

# Debian's major version of this system (0 when it is not Debian), e.g. 12 or 13.
debian_major() {
  local v
  v=$(cat /etc/debian_version 2>/dev/null || echo 0)
  case "$v" in
    trixie* | forky* | */sid) echo 13 ;; # testing/unstable name themselves, newer than 12
    *) echo "${v%%.*}" | tr -cd '0-9' ;;
  esac
}

# True when commands can run here directly: already inside the root, or a host of the chosen
# distribution (Debian 13 or newer for trixie; sid itself for sid).
host_is_new_enough() {
  [ -n "${FXVIEW_IN_ROOT:-}" ] && return 0
  if [ "$FXVIEW_DIST" = sid ]; then
    grep -q 'sid' /etc/debian_version 2>/dev/null
    return
  fi
  local major
  major=$(debian_major)
  [ -n "$major" ] && [ "$major" -ge 13 ]
}

# The Debian mirror the host's own apt uses (its first source of a Debian release's main
# archive, from /etc/apt/sources.list and sources.list.d, one-line and deb822 formats), so that
# the root is made from where this machine already gets its packages. FXVIEW_MIRROR overrides it.
host_debian_mirror() {
  local suites='^(buzz|rex|bo|hamm|slink|potato|woody|sarge|etch|lenny|squeeze|wheezy|jessie|stretch|buster|bullseye|bookworm|trixie|forky|duke|sid|stable|testing|unstable|oldstable)$'
  {
    [ -f /etc/apt/sources.list ] && cat /etc/apt/sources.list
    for f in /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && cat "$f"; done
  } 2>/dev/null | awk -v suites="$suites" '
    $1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                  if ($(i + 1) ~ suites) { print $i; exit } }'
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v suites="$suites" '
      function flush() {
        if (!done && deb && found && uri != "") { print uri; done = 1; exit }
        deb = found = 0; uri = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i ~ suites) found = 1 }
      END { flush() }' "$f"
  done
}

# Where the root's packages come from: FXVIEW_MIRROR, else the host's own Debian mirror.
fxview_mirror() {
  local mirror="${FXVIEW_MIRROR:-}"
  [ -n "$mirror" ] || mirror=$(host_debian_mirror | head -n 1)
  if [ -z "$mirror" ]; then
    echo "error: this host's apt sources name no Debian mirror; set FXVIEW_MIRROR to the URL of" \
      "a Debian mirror (the folder holding dists/ and pool/), then run this again." >&2
    return 1
  fi
  echo "${mirror%/}"
}

# Replaces this shell by COMMAND chrooted into ROOT (as root) in a private mount namespace
# (unshare --mount, private propagation: nothing mounted is seen outside, and every mount ends
# with the command). Each path of the newline-separated BINDS is bound at the same path inside,
# /etc/resolv.conf too (apt inside resolves names as the host does); COMMAND starts in CWD when
# the root has it, else in /. The host's PATH and Python variables name things not in the root.
exec_chrooted() {
  local root=$1 cwd=$2 binds=$3
  shift 3
  FXVIEW_CHROOT="$root" FXVIEW_BINDS="$binds" FXVIEW_CWD="$cwd" \
    exec unshare --mount --propagation private bash -euo pipefail -c '
    while IFS= read -r src; do
      [ -n "$src" ] && [ "$src" != / ] && [ -e "$src" ] || continue
      dst="$FXVIEW_CHROOT$src"
      if [ -d "$src" ]; then
        mkdir -p "$dst"
      else
        mkdir -p "$(dirname "$dst")"
        [ -e "$dst" ] || : >"$dst"
      fi
      mount --rbind "$src" "$dst"
    done <<<"$FXVIEW_BINDS"
    if [ -f /etc/resolv.conf ]; then
      [ -e "$FXVIEW_CHROOT/etc/resolv.conf" ] || : >"$FXVIEW_CHROOT/etc/resolv.conf"
      mount --bind "$(readlink -f /etc/resolv.conf)" "$FXVIEW_CHROOT/etc/resolv.conf"
    fi
    cwd="$FXVIEW_CWD"
    [ -d "$FXVIEW_CHROOT$cwd" ] || cwd=/
    exec chroot "$FXVIEW_CHROOT" /usr/bin/env \
      -u PYTHONPATH -u PYTHONHOME -u LD_LIBRARY_PATH -u VIRTUAL_ENV \
      -u FXVIEW_BINDS -u FXVIEW_CWD -u FXVIEW_CHROOT \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
  ' exec-chrooted "$@"
}

# debootstrap, installed with apt-get if the host lacks it.
need_debootstrap() {
  command -v debootstrap >/dev/null && return 0
  echo "Installing debootstrap"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
}

# Points a fresh root's apt at MIRROR's $FXVIEW_DIST, with the host's name resolution, and keeps
# package scripts from starting services in it. A mirror's sid may serve a Release file past its
# Valid-Until date (a snapshot): apt is told to take it.
prepare_debian_root() {
  local root=$1 mirror=$2
  echo "deb $mirror $FXVIEW_DIST main" | as_root tee "$root/etc/apt/sources.list" >/dev/null
  if [ "$FXVIEW_DIST" = sid ]; then
    echo 'Acquire::Check-Valid-Until "false";' |
      as_root tee "$root/etc/apt/apt.conf.d/99fxview-valid-until" >/dev/null
  fi
  printf '#!/bin/sh\nexit 101\n' | as_root tee "$root/usr/sbin/policy-rc.d" >/dev/null
  as_root chmod +x "$root/usr/sbin/policy-rc.d"
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Packages from the list above that dpkg does not have installed.
missing_packages() {
  local p
  for p in "${FXVIEW_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

# A shell command, for a clean root's `sh -c`, that installs PACKAGES with apt-get from the
# archive cache ARCHIVES, quietly; where it fails, it prints apt's last lines and the root's free
# space (a CI log otherwise says only "dpkg returned an error code") and fails.
apt_install_in_root_command() {
  local archives=$1 packages=$2
  printf '%s' "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
-o Dir::Cache::archives='$archives/' $packages >/tmp/apt-install.log 2>&1 || \
{ echo 'apt-get install $packages failed; its last lines:'; tail -n 40 /tmp/apt-install.log; \
df -h / $archives; exit 1; }"
}
