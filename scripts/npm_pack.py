#!/usr/bin/env python3
"""Pack sojx for npm: the launcher package `sojx` (npm/sojx) and the platform package of one
binary, `sojx-<os>-<cpu>[-<libc>]`, as tarballs ready for `npm publish` or `npm install`.

usage: scripts/npm_pack.py BINARY OUTDIR [TARGET]

BINARY is a built sojx (target/dist/sojx from scripts/dist.sh, or a release archive's);
TARGET is the Rust target it was built for (default: rustc's host). The version of both
packages is Cargo.toml's, the one source of truth: the launcher's package.json must say the
same, and names the same version of every platform package (checked here, and by
tests/cli/install.rs). Prints the two tarballs' paths.

The release workflow (.github/workflows/release.yml) runs this once per target and publishes
the launcher once.
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Rust target → (npm os, npm cpu, libc or None, the binary's file name).
TARGETS = {
    "x86_64-unknown-linux-gnu": ("linux", "x64", "glibc", "sojx"),
    "aarch64-unknown-linux-gnu": ("linux", "arm64", "glibc", "sojx"),
    "x86_64-unknown-linux-musl": ("linux", "x64", "musl", "sojx"),
    "aarch64-unknown-linux-musl": ("linux", "arm64", "musl", "sojx"),
    "x86_64-apple-darwin": ("darwin", "x64", None, "sojx"),
    "aarch64-apple-darwin": ("darwin", "arm64", None, "sojx"),
    "x86_64-pc-windows-msvc": ("win32", "x64", None, "sojx.exe"),
}


def package_name(target):
    os_, cpu, libc, _ = TARGETS[target]
    suffix = {"glibc": "-gnu", "musl": "-musl", None: ""}[libc]
    return f"sojx-{os_}-{cpu}{suffix}"


def cargo_version():
    text = (ROOT / "Cargo.toml").read_text()
    m = re.search(r'^\[package\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.M | re.S)
    if not m:
        sys.exit("npm_pack.py: no [package] version in Cargo.toml")
    return m.group(1)


def launcher_manifest(version):
    """The launcher's package.json, checked against Cargo.toml's version and the targets."""
    manifest = json.loads((ROOT / "npm/sojx/package.json").read_text())
    want = {package_name(t): version for t in TARGETS}
    problems = []
    if manifest.get("version") != version:
        problems.append(f"version {manifest.get('version')!r}, Cargo.toml says {version!r}")
    if manifest.get("optionalDependencies") != want:
        problems.append(f"optionalDependencies {manifest.get('optionalDependencies')}, want {want}")
    if problems:
        sys.exit("npm_pack.py: npm/sojx/package.json disagrees: " + "; ".join(problems))
    return manifest


def pack(directory, out):
    """`npm pack` of a directory into out; the tarball's path."""
    res = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(out)], cwd=directory,
                         check=True, capture_output=True, text=True)
    return out / json.loads(res.stdout)[0]["filename"]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[3])
    binary, out = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    if len(sys.argv) == 4:
        target = sys.argv[3]
    else:
        host = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
        target = re.search(r"^host: (\S+)", host, re.M).group(1)
    if target not in TARGETS:
        sys.exit(f"npm_pack.py: no npm package for {target}; known: {', '.join(TARGETS)}")
    if not binary.is_file():
        sys.exit(f"npm_pack.py: {binary}: no such file; build it first with scripts/dist.sh, which "
                 f"prints the binary's path: python3 scripts/npm_pack.py \"$(scripts/dist.sh)\" {sys.argv[2]}")
    version = cargo_version()
    launcher_manifest(version)
    out.mkdir(parents=True, exist_ok=True)
    os_, cpu, libc, exe = TARGETS[target]
    name = package_name(target)
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        launcher = stage / "sojx"
        shutil.copytree(ROOT / "npm/sojx", launcher)
        shutil.copy(ROOT / "npm/README.md", launcher / "README.md")
        for lic in ("LICENSE-MIT", "LICENSE-APACHE"):
            shutil.copy(ROOT / lic, launcher / lic)
        platform = stage / name
        (platform / "bin").mkdir(parents=True)
        shutil.copy(binary, platform / "bin" / exe)
        for lic in ("LICENSE-MIT", "LICENSE-APACHE"):
            shutil.copy(ROOT / lic, platform / lic)
        (platform / "bin" / exe).chmod(0o755)
        manifest = {
            "name": name,
            "version": version,
            "description": f"The sojx binary for {target} (installed by the `sojx` package)",
            "license": "MIT OR Apache-2.0",
            "os": [os_],
            "cpu": [cpu],
            **({"libc": [libc]} if libc else {}),
            "files": [f"bin/{exe}", "LICENSE-MIT", "LICENSE-APACHE"],
            "preferUnplugged": True,
        }
        (platform / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
        for tarball in (pack(launcher, out), pack(platform, out)):
            print(tarball)


if __name__ == "__main__":
    main()
