// Jest reporter: writes each project's totals to dist/test-results/<project>.json so that
// `npm test` can print one closing line for the whole workspace.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }
  onRunComplete(contexts, results) {
    const [ctx] = [...contexts];
    const name = (ctx && ctx.config.displayName && ctx.config.displayName.name) || 'unknown';
    const dir = join(__dirname, '../../../dist/test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${name}.json`),
      JSON.stringify({
        project: name,
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        skipped: results.numPendingTests + results.numTodoTests,
        suitesFailed: results.numFailedTestSuites + results.numRuntimeErrorTestSuites,
        at: new Date().toISOString(),
      }),
    );
  }
}
module.exports = SummaryReporter;
