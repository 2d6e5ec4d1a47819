/**
 * The order Jest starts suites in: longest first, so that no long suite starts last and
 * runs alone at the end while the other worker idles. Jest orders by the times it kept
 * from the last run in this folder, and with none (a fresh clone, CI) by file size, which
 * put the fault scenarios (short files, the longest suites) last. Without a kept time,
 * this uses test/suiteSeconds.json: each suite's seconds in a measured run (written by
 * `SUITE_TIMES=<file> npm test`, test/support/slowestSuites.cjs), and file size after it.
 * CommonJS: Jest loads the sequencer before any transform.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const MEASURED = require('../suiteSeconds.json');

class SuiteOrder extends Sequencer {
  sort(tests) {
    const root = path.resolve(__dirname, '../..');
    // As Jest's own sequencer does: the kept times also decide whether a small run goes in band.
    for (const test of tests) test.duration = this.time(test);
    const seconds = new Map(tests.map((t) => [t, t.duration != null ? t.duration / 1000 : MEASURED[path.relative(root, t.path)]]));
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      const failedB = this.hasFailed(b);
      if (failedA !== failedB) return failedA ? -1 : 1;
      const [sa, sb] = [seconds.get(a), seconds.get(b)];
      if ((sa == null) !== (sb == null)) return sa == null ? 1 : -1;
      if (sa != null && sb != null && sa !== sb) return sb - sa;
      return size(b) - size(a);
    });
  }
}

module.exports = SuiteOrder;
