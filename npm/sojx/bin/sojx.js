#!/usr/bin/env node
// The `sojx` command of the npm package: finds the binary that the package for this platform
// (an optional dependency, `sojx-<os>-<cpu>[-<libc>]`) installed, and runs it with this
// process's arguments, standard streams and environment. Its exit status comes back as this
// process's; a signal that ends it ends this process the same way; SIGINT, SIGTERM, SIGHUP and
// SIGQUIT sent to this process are passed on to it.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

/** The platform package's name for this machine, or null when sojx ships none. */
function platformPackage() {
  const { platform, arch } = process;
  const cpu = { x64: "x64", arm64: "arm64" }[arch];
  if (!cpu) return null;
  if (platform === "linux") {
    // glibc reports its version; musl (Alpine) does not.
    const report = process.report && process.report.getReport();
    const glibc = report && report.header && report.header.glibcVersionRuntime;
    return `sojx-linux-${cpu}-${glibc ? "gnu" : "musl"}`;
  }
  if (platform === "darwin") return `sojx-darwin-${cpu}`;
  if (platform === "win32" && cpu === "x64") return "sojx-win32-x64";
  return null;
}

/** The binary to run: $SOJX_BINARY, or the one the platform package installed. */
function binary() {
  if (process.env.SOJX_BINARY) return process.env.SOJX_BINARY;
  const name = platformPackage();
  if (!name) {
    fail(`sojx: no prebuilt binary for ${process.platform}-${process.arch}; install it with ` +
      "`cargo install sojx`, or set SOJX_BINARY to a sojx binary");
  }
  const exe = process.platform === "win32" ? "sojx.exe" : "sojx";
  try {
    return require.resolve(`${name}/bin/${exe}`);
  } catch {
    fail(`sojx: the package ${name} is not installed (npm skips optional dependencies with ` +
      "--omit=optional or --no-optional); reinstall sojx with them, or set SOJX_BINARY");
  }
}

/** Exit 3, the status of a failure of the caller's setup, with one line on stderr. */
function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(3);
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit" });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
for (const signal of forwarded) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => fail(`sojx: cannot start ${e.path || "the binary"}: ${e.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // End this process by the same signal, so that a shell sees 128+N as it would from sojx.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    // Node ignores or handles some signals itself (SIGPIPE; SIGUSR1 starts its inspector):
    // then the status a shell would have seen.
    process.exit(128 + (require("node:os").constants.signals[signal] || 0));
  }
  process.exit(code);
});
