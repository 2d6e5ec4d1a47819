/**
 * Accessibility scans with axe-core for the browser suites. The library is injected
 * through the debugger protocol (page.evaluate of its source), as the console's
 * Content Security Policy allows no inline script.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  /** The name the suite gave the page scanned. */
  readonly page: string;
  readonly id: string;
  readonly impact: string;
  readonly nodes: string[];
}

/** Every violation axe-core finds on the page as it is now. */
export async function axeViolations(page: Page, name: string): Promise<Violation[]> {
  await page.evaluate(AXE);
  // A string, evaluated in the page: the suites compile without the DOM's types.
  const found = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact || 'unknown', nodes: v.nodes.map((n) => JSON.stringify(n.target)) })))",
  )) as Array<Omit<Violation, 'page'>>;
  return found.map((v) => ({ page: name, ...v }));
}

/** The violations a suite allows none of. */
export const serious = (v: Violation): boolean => v.impact === 'serious' || v.impact === 'critical';
