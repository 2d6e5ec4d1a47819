/**
 * A Jest reporter: after a run, the ten suites that took longest, with their seconds,
 * and the run's wall time (issue #31: where `npm test`'s minutes go, printed by every
 * run, CI's included, so that the next cut is chosen from figures). CommonJS: Jest
 * loads reporters before any transform.
 */
class SlowestSuites {
  onRunComplete(_contexts, results) {
    const suites = results.testResults
      .map((r) => ({ file: r.testFilePath.replace(`${process.cwd()}/`, ''), seconds: (r.perfStats.end - r.perfStats.start) / 1000 }))
      .filter((s) => Number.isFinite(s.seconds))
      .sort((a, b) => b.seconds - a.seconds);
    if (suites.length < 2) return;
    const wall = (Date.now() - results.startTime) / 1000;
    const total = suites.reduce((sum, s) => sum + s.seconds, 0);
    const lines = suites.slice(0, 10).map((s) => `  ${s.seconds.toFixed(1).padStart(7)} s  ${s.file}`);
    // SUITE_TIMES=<file> keeps every suite's seconds, to compare two runs suite by suite.
    if (process.env.SUITE_TIMES) require('node:fs').writeFileSync(process.env.SUITE_TIMES, `${JSON.stringify({ wall, suites }, null, 1)}\n`);
    process.stderr.write(`\nSlowest suites (${suites.length} suites, ${total.toFixed(0)} s of suite time in ${wall.toFixed(0)} s of wall time):\n${lines.join('\n')}\n`);
  }
}
module.exports = SlowestSuites;
