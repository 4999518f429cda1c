#!/usr/bin/env bash
# The install step of action.yml: the release archive of sojx $SOJX_VERSION for this runner,
# from the releases of the action's own repository, checked against the
# release's SHA256SUMS, unpacked under $RUNNER_TOOL_CACHE and put on $GITHUB_PATH. Without a
# repository (the action used from a checkout, `uses: ./`), sojx is built from that checkout.
# SOJX_RELEASES overrides the download base (tests/cli/install.rs uses a file:// one).
set -euo pipefail

version=${SOJX_VERSION:?}
case "${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}" in
  Linux-X64 | Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux-ARM64 | Linux-aarch64) target=aarch64-unknown-linux-gnu ;;
  macOS-X64 | Darwin-x86_64) target=x86_64-apple-darwin ;;
  macOS-ARM64 | Darwin-arm64) target=aarch64-apple-darwin ;;
  Windows-X64) target=x86_64-pc-windows-msvc ;;
  *) echo "::error::sojx: no release for ${RUNNER_OS:-?}-${RUNNER_ARCH:-?}"; exit 3 ;;
esac

# `github.action_repository` is empty in composite actions (actions/runner#2525): the runner
# checks a used action out at RUNNER_WORK/_actions/OWNER/REPO/REF, which names it too.
repo=${SOJX_REPOSITORY:-}
if [ -z "$repo" ]; then
  case "${SOJX_ACTION_PATH:-}" in
    */_actions/*/*/*)
      rest=${SOJX_ACTION_PATH##*/_actions/}
      repo=$(printf '%s' "$rest" | cut -d/ -f1,2)
      ;;
  esac
fi

dest="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/sojx/$version/$target"
if [ -z "${SOJX_RELEASES:-}" ] && [ -z "$repo" ]; then
  echo "sojx: the action runs from a checkout; building it there"
  cargo install --locked --path "${SOJX_ACTION_PATH:?}" --root "$dest"
  echo "$dest/bin" >> "${GITHUB_PATH:?}"
  exit 0
fi
base=${SOJX_RELEASES:-https://github.com/$repo/releases/download/v$version}
name="sojx-$version-$target"
archive="$name.tar.gz"
[ "$target" = x86_64-pc-windows-msvc ] && archive="$name.zip"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "sojx: downloading $base/$archive"
curl -fsSL --retry 3 -o "$work/$archive" "$base/$archive"
curl -fsSL --retry 3 -o "$work/SHA256SUMS" "$base/SHA256SUMS"
want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")
if command -v sha256sum >/dev/null; then got=$(sha256sum "$work/$archive" | cut -d' ' -f1)
else got=$(shasum -a 256 "$work/$archive" | cut -d' ' -f1); fi
if [ -z "$want" ] || [ "$want" != "$got" ]; then
  echo "::error::sojx: $archive does not match the release's SHA256SUMS (${want:-not listed})"
  exit 3
fi
mkdir -p "$dest"
case "$archive" in
  *.zip) unzip -q -o "$work/$archive" -d "$dest" ;;
  *) tar xzf "$work/$archive" -C "$dest" ;;
esac
echo "$dest/$name" >> "${GITHUB_PATH:?}"
echo "sojx $version ($target) installed in $dest/$name"
