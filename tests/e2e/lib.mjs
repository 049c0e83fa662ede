// Helpers for the end-to-end tests of the real dcp-app window: a tauri-driver
// (which runs WebKitWebDriver, which runs the app) per profile, a tiny
// sequential test runner, and waits/clicks/screenshots on the contract's
// selectors (data-testid). Run through scripts/lib/e2e.sh, never alone: it
// provides Xvfb, the private D-Bus session and the environment below.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Builder, By, Capabilities } from 'selenium-webdriver';

export const env = {
  app: mustEnv('E2E_APP'), // target/debug/dcp-app
  dcplugin: mustEnv('E2E_DCPLUGIN'), // target/debug/dcplugin
  repo: mustEnv('E2E_REPO'), // repository root
  tmp: mustEnv('E2E_TMP'), // scratch folder, removed by e2e.sh
  shots: mustEnv('E2E_SHOTS'), // target/e2e-screenshots (e2e.sh --update-screenshots copies them to docs/screenshots)
  localServerDir: process.env.E2E_LOCAL_SERVER_DIR || '', // running copy of plugins-examples/local-server
  scriptedAi: process.env.E2E_SCRIPTED_AI || '', // target/debug/scripted-ai, the companion's AI (scripted-ai.mjs)
  twitchLike: process.env.E2E_TWITCH_LIKE || '', // target/debug/twitch-like, the Twitch chat's server (twitch-like.mjs)
  fails: process.env.E2E_FAILS || process.env.E2E_TMP, // screens at failure (kept)
};

function mustEnv(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`e2e: ${name} is not set; run scripts/lib/e2e.sh`);
    process.exit(2);
  }
  return v;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- runner

const tests = [];
/**
 * Registers a test; `opts.timeout` in ms (default 60 s); `opts.needs`: names
 * of earlier tests whose state it starts from: when one of them failed, this
 * one is not run and counts as failed ("not run").
 */
export function test(name, fn, opts = {}) {
  tests.push({ name, fn, timeout: opts.timeout ?? 60_000, needs: opts.needs ?? [] });
}

/** Runs the registered tests in order; prints one line each and the summary. */
export async function runAll() {
  let passed = 0;
  let failed = 0;
  const failures = [];
  const failedNames = new Set();
  // E2E_ONLY=regex runs only the matching tests (for debugging one step).
  const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : null;
  for (const t of tests) {
    if (only && !only.test(t.name)) continue;
    const missing = t.needs.filter((n) => failedNames.has(n));
    if (missing.length) {
      failed++;
      failedNames.add(t.name);
      failures.push(`${t.name}: not run (needs: ${missing.join('; ')})`);
      console.log(`FAIL ${t.name}: not run, it needs "${missing.join('", "')}"`);
      continue;
    }
    const t0 = Date.now();
    let timer;
    try {
      await Promise.race([
        t.fn(),
        new Promise((_, rej) => {
          timer = setTimeout(() => rej(new Error(`timed out after ${t.timeout} ms`)), t.timeout);
        }),
      ]);
      passed++;
      console.log(`ok   ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      failedNames.add(t.name);
      const msg = (e && e.message ? e.message : String(e)).split('\n')[0];
      failures.push(`${t.name}: ${msg}`);
      console.log(`FAIL ${t.name} (${Date.now() - t0} ms): ${msg}`);
      await onFailure(t.name);
    } finally {
      clearTimeout(timer);
    }
  }
  if (failures.length) {
    console.log('\nfailures:');
    for (const f of failures) console.log(`  - ${f}`);
  }
  return { passed, failed };
}

/** A screenshot of the failing screen, in the scratch folder (not docs/). */
async function onFailure(name) {
  if (!current) return;
  try {
    fs.mkdirSync(env.fails, { recursive: true });
    const file = path.join(env.fails, `FAILED-${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    fs.writeFileSync(file, Buffer.from(await withTimeout(current.driver.takeScreenshot(), 10_000, 'screenshot'), 'base64'));
    console.log(`     screen at failure: ${file}`);
    const body = await withTimeout(current.driver.executeScript('return document.body.innerText'), 5_000, 'page text');
    console.log(`     page text: ${String(body).replace(/\s+/g, ' ').slice(0, 400)}`);
  } catch (e) {
    console.log(`     (no screen at failure: ${e.message.split('\n')[0]})`);
  }
  // Close what the failed step left open (dialogs are modal: they would
  // block every later step), so the next tests start from the main screen.
  try {
    await withTimeout(current.driver.executeScript(
      `for (const d of document.querySelectorAll('dialog[open]')) {
         const b = d.querySelector('[data-testid="consent-cancel"], [data-testid="confirm-no"], [data-testid="close"]');
         if (b) b.click(); else d.close();
       }`), 5_000, 'closing dialogs');
    await sleep(300);
  } catch {
    /* nothing to close */
  }
}

function withTimeout(p, ms, what = 'operation') {
  let timer;
  return Promise.race([
    p,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// ------------------------------------------------------- driver and app

const children = new Set();
/** Keeps `child` to be killed with the others when the run ends. */
export function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}
/** Kills every process this file started (tauri-driver, second launches). */
export function killChildren() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
}
process.on('exit', killChildren);

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitPort(port, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.on('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
}

/**
 * The DCPLUGIN_TEST_* variables (dcp-net's test hooks, read once as the app
 * starts) for several loopback servers at once, each giving its own
 * { DCPLUGIN_TEST_DNS, DCPLUGIN_TEST_CONNECT, DCPLUGIN_TEST_CA }: the names and
 * rewrites joined by commas, the CAs concatenated in one PEM file (the app
 * reads a single one).
 */
export function testNetEnv(parts) {
  const join = (key) => parts.map((p) => p[key]).join(',');
  const ca = path.join(env.tmp, 'test-ca.pem');
  fs.writeFileSync(ca, parts.map((p) => fs.readFileSync(p.DCPLUGIN_TEST_CA, 'utf8').trimEnd() + '\n').join(''));
  return { DCPLUGIN_TEST_DNS: join('DCPLUGIN_TEST_DNS'), DCPLUGIN_TEST_CONNECT: join('DCPLUGIN_TEST_CONNECT'), DCPLUGIN_TEST_CA: ca };
}

/** The environment of one app profile: its own DCPLUGIN_PROFILE. */
export function profileEnv(profile) {
  return { ...process.env, DCPLUGIN_PROFILE: profile };
}

let current = null; // { driver, tauriDriver, profile, log }

/**
 * Starts tauri-driver with DCPLUGIN_PROFILE=profile and opens a session: the
 * app starts with `args`. Returns { driver, launchedAt, sessionMs }.
 */
export async function launch(profile, args = [], name = 'app') {
  await quit();
  fs.mkdirSync(profile, { recursive: true });
  const port = await freePort();
  let nativePort = await freePort();
  while (nativePort === port) nativePort = await freePort();
  const log = path.join(env.tmp, `tauri-driver-${name}.log`);
  const out = fs.openSync(log, 'a');
  const tauriDriver = track(
    spawn('tauri-driver', ['--port', String(port), '--native-port', String(nativePort)], {
      env: profileEnv(profile),
      stdio: ['ignore', out, out],
    }),
  );
  // tauri-driver answers before the WebKitWebDriver it starts does.
  await waitPort(port, 15_000);
  await waitPort(nativePort, 15_000);
  const caps = new Capabilities();
  caps.setBrowserName('wry');
  caps.set('tauri:options', { application: env.app, args });
  const launchedAt = Date.now();
  const driver = await withTimeout(
    new Builder().withCapabilities(caps).usingServer(`http://127.0.0.1:${port}/`).build(),
    60_000,
    'new WebDriver session (app launch)',
  );
  const sessionMs = Date.now() - launchedAt;
  await driver.manage().setTimeouts({ implicit: 0, script: 15_000, pageLoad: 30_000 });
  current = { driver, tauriDriver, profile, log };
  return { driver, launchedAt, sessionMs };
}

export function driver() {
  if (!current) throw new Error('no app session (an earlier step failed)');
  return current.driver;
}
export function currentProfile() {
  return current?.profile;
}

/** The processes under `pid` (children, grandchildren...), from /proc. */
function descendants(pid) {
  const parent = new Map();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(e), ppid);
    } catch {
      /* gone */
    }
  }
  const out = [];
  const walk = (p) => {
    for (const [c, pp] of parent) if (pp === p) { out.push(c); walk(c); }
  };
  walk(pid);
  return out;
}
const alive = (pid) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

/**
 * Ends the session (the app closes) and its tauri-driver, and waits until
 * WebKitWebDriver and the app have exited: a next launch must not find the
 * old window still holding the single-instance name.
 */
export async function quit() {
  if (!current) return;
  const { driver: d, tauriDriver } = current;
  current = null;
  const under = descendants(tauriDriver.pid);
  try {
    await withTimeout(d.quit(), 10_000, 'session quit');
  } catch {
    /* killed below */
  }
  tauriDriver.kill('SIGTERM');
  const end = Date.now() + 5_000;
  while (Date.now() < end && [tauriDriver.pid, ...under].some((p) => { try { return alive(p); } catch { return false; } })) {
    await sleep(100);
  }
  for (const p of [...under, tauriDriver.pid]) {
    try {
      if (alive(p)) process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/**
 * Starts `dcp-app ARGS` with DCPLUGIN_PROFILE=profile, outside WebDriver.
 * Returns { child, output(), ended }: `output()` is its stdout and stderr
 * so far; `ended` resolves with its exit code (or `signal NAME`).
 */
export function startApp(profile, args = []) {
  const child = track(spawn(env.app, args, { env: profileEnv(profile), stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const ended = new Promise((resolve) => child.on('exit', (c, s) => resolve(s ? `signal ${s}` : c)));
  return { child, output: () => output, ended };
}

/** Ends a process started by startApp and waits for it. */
export async function stopApp(app) {
  if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGTERM');
  await withTimeout(app.ended, 10_000, 'the app to end').catch(() => app.child.kill('SIGKILL'));
}

/**
 * A second `dcp-app PATH...` launch with the same profile: the running window
 * must take its arguments (single instance) and the launch must end at once.
 * Resolves with how it ended; a launch still running after 15 s is killed
 * (the hand-over did not work) and reported.
 */
export async function secondLaunch(...paths) {
  const app = startApp(current?.profile ?? env.tmp, paths);
  const code = await Promise.race([app.ended, sleep(15_000).then(() => 'still running after 15 s (killed)')]);
  if (code !== 0) {
    await stopApp(app);
    throw new Error(`second launch \`dcp-app ${paths.join(' ')}\` did not hand over to the window: ${code}; ${app.output().trim().slice(0, 300)}`);
  }
}

// ------------------------------------------------------------ the session bus

/** The names on the session bus (the run's private one, from dbus-run-session). */
export function busNames() {
  return new Promise((resolve, reject) => {
    execFile('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus',
      'org.freedesktop.DBus.ListNames'], { timeout: 10_000 }, (e, out) => {
      if (e) return reject(new Error(`dbus-send ListNames: ${e.message}`));
      resolve([...out.matchAll(/string "([^"]+)"/g)].map((m) => m[1]));
    });
  });
}

/**
 * A program that takes the bus name `name` and answers the single-instance
 * hand-over as a window would (bus-squatter.py). Resolves once it holds the
 * name with { lines, stop() }: `lines` gets each line it prints (`HANDED …`).
 */
export async function busSquatter(name) {
  const squatter = track(spawn('/usr/bin/python3', [path.join(env.repo, 'tests/e2e/bus-squatter.py'), name], {
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  const lines = [];
  let errors = '';
  squatter.stdout.on('data', (d) => lines.push(...String(d).split('\n').filter(Boolean)));
  squatter.stderr.on('data', (d) => (errors += d));
  await until(`bus-squatter.py holding ${name}`, async () => {
    if (squatter.exitCode !== null) throw new Error(`bus-squatter.py ended: ${lines.join(' ')} ${errors.trim().slice(0, 300)}`);
    return lines.includes('OWNED');
  }, 10_000);
  return { lines, stop: () => squatter.kill('SIGTERM') };
}

// ------------------------------------------------------------ page helpers

export const tid = (id) => `[data-testid="${id}"]`;

/** Waits until `css` matches a displayed element; returns it. */
export async function waitFor(css, ms = 10_000, root = null) {
  const d = driver();
  const end = Date.now() + ms;
  let lastErr;
  while (Date.now() < end) {
    try {
      const els = await (root ?? d).findElements(By.css(css));
      for (const el of els) if (await el.isDisplayed()) return el;
    } catch (e) {
      lastErr = e;
    }
    await sleep(50);
  }
  throw new Error(`no visible ${css} after ${ms} ms${lastErr ? ` (${lastErr.message.split('\n')[0]})` : ''}`);
}

/** Waits until `css` matches nothing visible. */
export async function waitGone(css, ms = 10_000) {
  const d = driver();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const els = await d.findElements(By.css(css));
    let visible = false;
    for (const el of els) {
      try {
        if (await el.isDisplayed()) visible = true;
      } catch {
        /* stale: gone */
      }
    }
    if (!visible) return;
    await sleep(50);
  }
  throw new Error(`${css} still visible after ${ms} ms`);
}

/** Waits until fn() returns a truthy value; returns it. */
export async function until(what, fn, ms = 10_000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e.message;
    }
    await sleep(100);
  }
  throw new Error(`${what} not seen after ${ms} ms (last: ${JSON.stringify(last)?.slice(0, 200)})`);
}

/** Clicks like a person; falls back to a DOM click for styled inputs
 * (a visually hidden checkbox under a drawn switch). */
export async function click(elOrCss, root = null) {
  // Given by its selector, an element that went stale is looked for again:
  // still there, the page re-drew it before the click (a card refreshed by a
  // host event), so it is clicked again; gone, the click itself removed it
  // (a dialog's button closing the dialog), which WebKit's driver can report
  // as stale after clicking. What follows the click checks its effect.
  for (let attempt = 0; ; attempt++) {
    const el = typeof elOrCss === 'string' ? await waitFor(elOrCss, 10_000, root) : elOrCss;
    try {
      await el.click();
      return;
    } catch (e) {
      const why = `${e.name} ${e.message}`;
      if (/stale/i.test(why) && typeof elOrCss === 'string' && root === null && attempt < 3) {
        const again = await driver().findElements(By.css(elOrCss));
        if (again.length === 0) return;
        continue;
      }
      if (!/not interactable|obscured|intercept/i.test(why)) throw e;
      await driver().executeScript('arguments[0].click()', el);
      return;
    }
  }
}

/** Types into a field (clears it first). */
export async function type(css, text, root = null) {
  const el = await waitFor(css, 10_000, root);
  await el.clear();
  await el.sendKeys(text);
  return el;
}

/** The on/off state of a switch: a checkbox, or role="switch" with aria-checked. */
export async function isOn(el) {
  return driver().executeScript(
    `const e = arguments[0];
     const i = e.matches('input') ? e : e.querySelector('input[type=checkbox]');
     if (i) return i.checked;
     return e.getAttribute('aria-checked') === 'true';`,
    el,
  );
}

export async function text(css, root = null) {
  return (await waitFor(css, 10_000, root)).getText();
}

/** Clicks a tab by its accessible name (role="tab"). */
export async function tab(name) {
  const el = await until(`tab "${name}"`, async () => {
    for (const t of await driver().findElements(By.css('[role="tab"]'))) {
      if ((await t.getText()).trim() === name && (await t.isDisplayed())) return t;
    }
    return null;
  });
  await click(el);
  await until(`tab "${name}" selected`, async () => (await el.getAttribute('aria-selected')) === 'true', 5_000);
}

/** Saves a PNG of the window as NAME.png in the run's screenshots folder (E2E_SHOTS). */
export async function shot(name) {
  // Let transitions, images and the compositor settle: two animation
  // frames, then a pause (a capture right after a first paint under Xvfb
  // can show the frame before it).
  await driver().executeAsyncScript(
    'const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done()));',
  );
  await sleep(600);
  const png = await driver().takeScreenshot();
  fs.mkdirSync(env.shots, { recursive: true });
  fs.writeFileSync(path.join(env.shots, `${name}.png`), Buffer.from(png, 'base64'));
}

/** The installed cards' slugs, in page order. */
export async function cardSlugs() {
  return driver().executeScript(
    // The cards themselves (li.card), not the card-* parts inside them.
    `return [...document.querySelectorAll('li.card[data-testid^="card-"]')].map(e => e.dataset.testid.slice(5));`,
  );
}

/**
 * On the consent screen: fills the given settings (key → value), answers any
 * unanswered radio question with its first choice, and clicks Install.
 */
export async function consentInstall(settings = {}) {
  const consent = await waitFor(tid('consent'), 15_000);
  for (const [k, v] of Object.entries(settings)) {
    const field = await waitFor(`${tid(`setting-${k}`)}`, 5_000, consent);
    const input = (await field.getTagName()) === 'input' || (await field.getTagName()) === 'textarea'
      ? field
      : await field.findElement(By.css('input, textarea'));
    await input.clear();
    await input.sendKeys(v);
  }
  // Questions (e.g. online AI models): pick the first answer where none is picked.
  await driver().executeScript(
    `const c = arguments[0]; const groups = {};
     for (const r of c.querySelectorAll('input[type=radio]')) (groups[r.name] ||= []).push(r);
     for (const rs of Object.values(groups)) if (!rs.some(r => r.checked)) rs[0].click();`,
    consent,
  );
  const install = await waitFor(tid('consent-install'), 5_000, consent);
  await until('Install enabled', async () => install.isEnabled(), 5_000);
  await click(install);
  await waitGone(tid('consent'), 15_000);
}

/** The selector of `id` inside the card of `slug`: one selector, so that a click
 * finds it again when a host event re-draws the card before the click. */
export const inCard = (slug, id) => `${tid(`card-${slug}`)} ${tid(id)}`;

/** The card of `slug` (waits for it). */
export async function card(slug, ms = 10_000) {
  return waitFor(tid(`card-${slug}`), ms);
}

/** Waits until the card's status reads `want` (case-insensitive prefix). */
export async function cardStatus(slug, want, ms = 10_000) {
  return until(
    `card ${slug} status "${want}"`,
    async () => {
      const c = await card(slug, 2_000);
      const s = (await (await c.findElement(By.css(tid('card-status')))).getText()).trim();
      return s.toLowerCase().startsWith(want.toLowerCase()) ? s : false;
    },
    ms,
  );
}

export async function cardStatusText(slug) {
  const c = await card(slug, 5_000);
  return (await (await c.findElement(By.css(tid('card-status')))).getText()).trim();
}

/** Runs `dcplugin ARGS` with the profile; resolves its stdout, rejects on failure. */
export function dcplugin(profile, args, input = '') {
  return new Promise((resolve, reject) => {
    const c = track(spawn(env.dcplugin, args, { env: profileEnv(profile), stdio: ['pipe', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`dcplugin ${args.join(' ')}: ${code}: ${err.trim()}`))));
    c.stdin.end(input);
  });
}

// ------------------------------------------------------- clipboard

/** The X clipboard's text, as a program the player pastes into gets it. */
export function readClipboard() {
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/python3', [path.join(env.repo, 'tests/e2e/read-clipboard.py')],
      { timeout: 10_000, env: { ...process.env, GDK_BACKEND: 'x11', NO_AT_BRIDGE: '1' } },
      (e, out, err) => (e ? reject(new Error(`read-clipboard.py: ${err.trim() || e.message}`)) : resolve(out)));
  });
}

// ------------------------------------------------------- drag and drop

const xdo = (...args) => new Promise((resolve, reject) => {
  execFile('xdotool', args.map(String), { timeout: 10_000 }, (e, out) => (e ? reject(new Error(`xdotool ${args.join(' ')}: ${e.message}`)) : resolve(out)));
});

/** The visible X windows named `title` (their ids); none is an empty list. */
export async function appWindows(title) {
  // xdotool search exits 1 when nothing matches.
  const out = await xdo('search', '--onlyvisible', '--name', `^${title}$`).catch(() => '');
  return out.trim().split('\n').filter(Boolean);
}

/**
 * Picks `file` in the native file chooser the app opens (GTK's), as a
 * player who types its path: waits for a window named `title` to show,
 * gives it the keyboard, opens its location field (Ctrl+L, which selects
 * what it holds), types the path and Enter. A chooser still open after
 * that (keys sent before it took them) is given them once more. Resolves
 * once it is gone.
 */
export async function pickInFileChooser(file, title) {
  const id = await until(`the file chooser "${title}"`, async () => (await appWindows(title))[0], 15_000);
  for (let attempt = 1; ; attempt++) {
    await xdo('windowfocus', '--sync', id);
    await sleep(800);
    await xdo('key', 'ctrl+l');
    await xdo('type', '--delay', 20, file);
    await sleep(400);
    await xdo('key', 'Return');
    try {
      await until(`the file chooser "${title}" closed`, async () => !(await appWindows(title)).length, 6_000);
      return;
    } catch (e) {
      if (attempt === 2) throw e;
    }
  }
}

/**
 * The app window's place on the screen (x, y, width, height), from X, once
 * exactly one visible window has that title. A window another launch left
 * (being destroyed as its process ends) makes xdotool fail with BadWindow
 * or answer two ids, either of which may be the wrong window: look again.
 */
export async function appWindowRect(title) {
  return until(`one visible X window named "${title}"`, async () => {
    const ids = await appWindows(title);
    if (ids.length !== 1) throw new Error(`${ids.length} visible X windows named "${title}"`);
    const g = Object.fromEntries((await xdo('getwindowgeometry', '--shell', ids[0])).trim().split('\n').map((l) => l.split('=')));
    return { x: Number(g.X), y: Number(g.Y), width: Number(g.WIDTH), height: Number(g.HEIGHT) };
  }, 15_000);
}

/**
 * Drags `file` with the real pointer from a small GTK window (drag-source.py,
 * a file manager's stand-in at `from`) to the screen point `to`, over the X
 * drag-and-drop protocol. While the button is still held over `to`,
 * `hover()` runs (to look at the window mid-drag); then the button is
 * released at `release` (default: `to`). Resolves with the source's report
 * lines (DRAG-BEGIN, DRAG-DATA-GET, DRAG-END, DRAG-FAILED reason...).
 *
 * The pauses are what a hand gives: GTK starts a drag only after the
 * pointer moved with the button down, and the target answers XdndPosition
 * asynchronously; a pointer that jumps and releases at once is dropped
 * nowhere.
 */
export async function dragFile(file, { from = { x: 1060, y: 760 }, to, release = to, hover = async () => {} }) {
  const source = track(spawn('/usr/bin/python3', [path.join(env.repo, 'tests/e2e/drag-source.py'), file, from.x, from.y], {
    env: { ...process.env, GDK_BACKEND: 'x11', NO_AT_BRIDGE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  const lines = [];
  let errors = '';
  source.stdout.on('data', (d) => lines.push(...String(d).split('\n').filter(Boolean)));
  source.stderr.on('data', (d) => (errors += d));
  try {
    const ready = await until('the drag source window', async () => {
      if (source.exitCode !== null) throw new Error(`drag-source.py ended: ${errors.trim().slice(0, 300)}`);
      return lines.find((l) => l.startsWith('READY '));
    }, 10_000);
    const [sx, sy, sw, sh] = ready.split(' ').slice(1).map(Number);
    const start = { x: sx + Math.floor(sw / 2), y: sy + Math.floor(sh / 2) };
    await xdo('mousemove', '--sync', start.x, start.y);
    await sleep(100);
    await xdo('mousedown', 1);
    await sleep(100);
    for (let i = 1; i <= 5; i++) {
      await xdo('mousemove', start.x + 4 * i, start.y + 2 * i);
      await sleep(20);
    }
    const at = { x: start.x + 20, y: start.y + 10 };
    for (let i = 1; i <= 10; i++) {
      await xdo('mousemove', Math.round(at.x + ((to.x - at.x) * i) / 10), Math.round(at.y + ((to.y - at.y) * i) / 10));
      await sleep(20);
    }
    const jiggle = async (ms) => {
      for (let t = 0; t < ms; t += 100) {
        await xdo('mousemove', to.x + ((t / 100) % 2 ? 1 : -1), to.y);
        await sleep(100);
      }
    };
    await jiggle(800);
    await hover();
    await jiggle(200);
    if (release !== to) {
      for (let i = 1; i <= 5; i++) {
        await xdo('mousemove', Math.round(to.x + ((release.x - to.x) * i) / 5), Math.round(to.y + ((release.y - to.y) * i) / 5));
        await sleep(40);
      }
    }
    await xdo('mousemove', release.x, release.y);
    await sleep(200);
    await xdo('mouseup', 1);
    await until('the drag to end', async () => lines.some((l) => l === 'DRAG-END'), 5_000);
    return lines;
  } finally {
    source.kill('SIGTERM');
  }
}
