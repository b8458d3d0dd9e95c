// A Vitest reporter that writes what failed — each failed test and each file that could not run,
// with its project (pglite, postgres), and every error outside a test — to TEST_FAILURES_FILE, for
// test-all's closing summary (test-report.mjs).
import { writeFileSync } from 'node:fs';

const textOf = (error) => error.stack || error.message || String(error);

export default class FailureReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const failures = [];
    for (const module of testModules) {
      const where = { project: module.project.name || null, file: module.moduleId };
      for (const error of module.errors()) failures.push({ ...where, test: null, errors: [textOf(error)] });
      for (const test of module.children.allTests('failed')) {
        failures.push({ ...where, test: test.fullName, errors: (test.result().errors ?? []).map(textOf) });
      }
    }
    for (const error of unhandledErrors) {
      failures.push({
        project: null,
        file: null,
        test: 'an error outside the tests',
        errors: [textOf(error)],
      });
    }
    writeFileSync(process.env.TEST_FAILURES_FILE, JSON.stringify(failures));
  }
}
