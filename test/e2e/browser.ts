import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { repoRoot } from './harness.js';

/**
 * Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by playwright-core —
 * never a downloaded browser. One browser per test file, closed after it; each test takes a
 * fresh context (its own cookies).
 */
export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(repoRoot, 'test-output', 'screenshots');

let browser: Browser | null = null;
const contexts: BrowserContext[] = [];

export async function launchBrowser(): Promise<Browser> {
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return browser;
}

/** A fresh browser context (no cookies) with one page; `phone` is a 375 px wide touch screen; `noScript` turns JavaScript off; `bypassCsp` lets a test inject a script. */
export async function newPage(opts: { phone?: boolean; noScript?: boolean; bypassCsp?: boolean } = {}): Promise<Page> {
  const b = await launchBrowser();
  const screen = opts.phone
    ? { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }
    : { viewport: { width: 1280, height: 860 } };
  // bypassCsp: only to inject a test's own script (axe-core) into the page; Shop's CSP is tested apart.
  const context = await b.newContext({
    ...screen,
    javaScriptEnabled: !opts.noScript,
    bypassCSP: Boolean(opts.bypassCsp),
  });
  contexts.push(context);
  const page = await context.newPage();
  // A dialog (alert) is an injected script running: fail loudly rather than hang.
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return page;
}

/** Messages of every dialog a page opened (an XSS payload that ran shows up here). */
export const dialogs: string[] = [];

/** A full-page screenshot under test-output/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

afterAll(async () => {
  for (const c of contexts.splice(0)) await c.close().catch(() => {});
  await browser?.close();
  browser = null;
});

/** axe-core's script, injected into a page under test (never a page Shop serves). */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The page's serious and critical accessibility violations by axe-core's rules, as `rule: target` lines. */
export async function a11yProblems(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}
interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}
