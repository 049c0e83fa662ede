import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const UI = resolve(__dirname, '../..');
const DIST = join(UI, 'dist');
export const RESULTS = join(UI, 'test-results');

// The app's CSP (src-tauri/tauri.conf.json), sent by the test server so a violation shows.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'";
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml' };

let server: Server;
let browser: Browser;
let mockScript = '';
let axeScript = '';
export let base = '';

export async function start(): Promise<void> {
  if (!existsSync(join(DIST, 'index.html'))) throw new Error('ui/dist is missing: run npm run build first');
  await mkdir(RESULTS, { recursive: true });
  const out = await build({ entryPoints: [join(__dirname, 'mock-host.ts')], bundle: true, format: 'iife', write: false, target: 'es2021' });
  mockScript = out.outputFiles[0].text;
  axeScript = await readFile(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/favicon.ico') { res.writeHead(204).end(); return; }
    let path = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    if (!path || path.endsWith('/')) path += 'index.html';
    const file = join(DIST, path);
    if (!file.startsWith(DIST)) { res.writeHead(403).end(); return; }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP });
      res.end(body);
    } catch { res.writeHead(404).end(); }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    // playwright-core gives every launch a fresh temporary --user-data-dir of its own.
  });
}

export async function stop(): Promise<void> {
  await browser?.close();
  await new Promise((ok) => (server ? server.close(ok) : ok(undefined)));
}

export interface Opened { page: Page; context: BrowserContext; problems: string[] }

/** Opens the built app with the mock host and a scenario; waits for My plugins (or the first screen). */
export async function open(scenario: Record<string, unknown> = {}, wait = true): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, locale: 'en-GB', timezoneId: 'UTC' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  // UI_TEST_LATE_MS: the mock host answers late, as under load (mock-host.ts).
  await page.addInitScript(`window.__SCENARIO__ = ${JSON.stringify(scenario)}; window.__LATE_MS__ = ${Number(process.env.UI_TEST_LATE_MS ?? 0) || 0};
    document.addEventListener('securitypolicyviolation', (e) => { (window.__csp = window.__csp || []).push(e.violatedDirective + ' ' + e.blockedURI); });`);
  await page.addInitScript(mockScript);
  // tauri.conf.json sets freezePrototype: the app must work with Object.prototype frozen.
  await page.addInitScript('Object.freeze(Object.prototype);');
  await page.goto(base);
  if (wait) await page.waitForSelector('body[data-startup-ms]');
  return { page, context, problems };
}

/** A test file's windows, one at a time: the server and browser started for the file, and each
 * test's window closed and checked (CSP, page errors) after it, or earlier by `close`. */
export function windows(): { open: typeof open; close: () => Promise<void> } {
  let current: Opened | null = null;
  const close = async () => {
    if (!current) return;
    const opened = current;
    current = null;
    await closeChecked(opened);
  };
  beforeAll(start);
  afterAll(stop);
  afterEach(close);
  return { open: async (scenario = {}, wait = true) => (current = await open(scenario, wait)), close };
}

/** Closes an opened page and checks what it must never have done: break the CSP or throw. */
export async function closeChecked({ page, problems, context }: Opened): Promise<void> {
  const csp = await cspViolations(page);
  await context.close();
  expect(csp, 'CSP violations').toEqual([]);
  expect(problems, 'page errors').toEqual([]);
}

/** Serious or critical axe violations on the page as it is now. */
export async function axe(page: Page): Promise<string[]> {
  await page.evaluate(axeScript);
  const found = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 3) }));
  });
  return found.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => `${v.id} (${v.impact}): ${v.help} @ ${v.nodes.join(', ')}`);
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage: true });
}

export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as any).__csp ?? []);
}

/** The arguments of each call of `cmd` so far, oldest first. */
export const calls = (page: Page, cmd: string): Promise<Record<string, any>[]> =>
  page.evaluate((c) => (window as any).__mock.calls.filter((x: any) => x.cmd === c).map((x: any) => x.args), cmd);

export const emit = (page: Page, event: string, payload: unknown) =>
  page.evaluate(([e, p]) => (window as any).__mock.emit(e, p), [event, payload] as const);
