// The end-to-end suite of the real app window (run by scripts/lib/e2e.sh).
// One profile walks a player's path: open a plugin file given on the command
// line, consent, install, switch off and on, details, options, catalog, a
// refused file, a file dragged onto the window, developer mode with a
// live-reloaded folder, an event posted through the door, Try an action
// against the local-server example, the actions journal; then the
// companion (issue 23), its AI the scripted server (scripted-ai.mjs): the AI
// set in Tools, a typed question answered with the local server's time, the
// call in Actions as typed, an R3 action confirmed and one cancelled, an
// event said, Live on Twitch pausing an R1 tool; the Twitch chat (issue 36)
// connected to the Twitch-like server (twitch-like.mjs), a viewer's !ask
// answered, then disconnected; uninstall. §2 is replayed
// and timed from a fresh profile. A profile with 100 installed plugins
// times the start-up. The
// window's own defences are checked on the way: its WebKit data in the
// profile, a remote page refused, a launch with another profile opening
// its own window, and a program holding the window's bus name handed nothing.
// Screenshots of each screen go to the build folder (target/e2e-screenshots/);
// `scripts/lib/e2e.sh --update-screenshots` copies them to docs/screenshots/.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { By, Key } from 'selenium-webdriver';
import {
  env, test, runAll, launch, quit, driver, secondLaunch, waitFor, waitGone, until, click, type, isOn,
  tab, shot, tid, consentInstall, card, inCard, cardStatus, cardStatusText, cardSlugs, dcplugin, sleep, killChildren,
  appWindowRect, appWindows, dragFile, pickInFileChooser, readClipboard, startApp, stopApp, busNames, busSquatter, testNetEnv,
} from './lib.mjs';
import { startPluginServer } from './plugin-server.mjs';
import { MODEL, offered, startScriptedAi, text, toolCalls } from './scripted-ai.mjs';
import { startTwitchLike } from './twitch-like.mjs';

const ex = (name) => path.join(env.repo, 'plugins-examples', name);
const profile = path.join(env.tmp, 'profile-main');
const pomodoroDir = path.join(env.tmp, 'pomodoro');
const TITLE = 'Desktop Companion Plugins';
/** The app's identifier (tauri.conf.json), the name of its default data folder. */
const IDENTIFIER = JSON.parse(fs.readFileSync(path.join(env.repo, 'src-tauri/tauri.conf.json'), 'utf8')).identifier;

const T = {
  C: 'app opens with a plugin file as argument: consent screen',
  I: 'Install: the card is Active in My plugins',
  D: 'Developer mode on shows the developer toolbar',
  P: 'load the pomodoro folder (second launch with the folder) and install it',
  L: 'load the local-server folder, give its token, install',
  T: 'Try an action: get_time answers from the local server',
  E: 'Events (§16): an event switched on opens the door, Copy gives the token, a program posts an event and the AI\'s message shows',
  A: 'Tools (§13): the AI typed by hand, the scripted server on 127.0.0.1; Test says Connected',
  Q: 'Companion (§3): a typed question, the AI calls get_time on the local server, the answer streams with its tool line',
  R: 'load the serious-note fixture (an R3 action on the local server) and install it',
  W: 'Live on Twitch (§12): the switch removes an R1 tool (My tasks\' list_tasks) from the next turn',
};
/** Pomodoro's event token, as the Events step copied it (the companion's event step posts with it). */
let pomodoroToken = '';

/** The Twitch-like server and the Exchange rates plugin's site (issue 36), started before the first
 * launch: the app reads where Twitch and api.frankfurter.dev are (the DCPLUGIN_TEST_* variables,
 * passed on to every launch) as it opens its profile. A server that did not start fails the Twitch
 * chat's step alone. */
const twitchLike = await startTwitchLike().catch((failed) => ({ failed }));
const fxSite = await startPluginServer().catch((failed) => ({ failed }));
Object.assign(process.env, testNetEnv([twitchLike, fxSite].filter((s) => s.env).map((s) => s.env)));

/**
 * The UI finished its first load (it sets body.dataset.startupMs after My
 * plugins is drawn). When it never does, says what the page shows and the
 * likely cause, instead of timing out on the next selector.
 */
async function uiAlive(ms = 15_000) {
  try {
    await until('document.body.dataset.startupMs', async () => driver().executeScript('return document.body.dataset.startupMs'), ms);
  } catch {
    const [text, frozen] = await driver().executeScript(
      'return [document.body.innerText.replace(/\\s+/g, " ").slice(0, 200), Object.isFrozen(Object.prototype)]',
    );
    throw new Error(
      `the UI never finished loading (no body.dataset.startupMs after ${ms} ms; page: "${text}")` +
        (frozen
          ? '; Object.prototype is frozen (tauri.conf.json app.security.freezePrototype): Preact copies vnodes with a for-in assign that writes `constructor` and throws on a frozen prototype, so no state update ever renders'
          : ''),
    );
  }
}

/** POSTs an event to pomodoro's door on 127.0.0.1:8440; resolves { status, body }. */
function postEvent(token, event) {
  const body = JSON.stringify(event);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port: 8440, path: '/v1/events/pomodoro', method: 'POST', timeout: 5_000,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('the door did not answer in 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Picks the first option of a <select> whose value or text matches `re`, as a person would. */
async function selectOption(select, re) {
  const options = await select.findElements(By.css('option'));
  for (const o of options) {
    if (re.test(await o.getAttribute('value')) || re.test(await o.getText())) {
      await o.click();
      await until(`option ${re} selected`, async () => re.test(await select.getAttribute('value')) || o.isSelected(), 3_000);
      return;
    }
  }
  throw new Error(`no option matching ${re}`);
}

/** Plugins tab, then its sub-tab. */
async function goPlugins(sub = 'My plugins') {
  await tab('Plugins');
  await tab(sub);
}

/** What the events section of an open Details says of the door, in words. */
async function doorState(events) {
  return (await (await waitFor(tid('door-state'), 2_000, events)).getText()).trim();
}

/** Sets a switch (checkbox or role="switch") to `on`, waiting for it to hold. */
async function setSwitch(css, on, root = null) {
  const el = await waitFor(css, 10_000, root);
  if ((await isOn(el)) !== on) await click(el);
  await until(`${css} ${on ? 'on' : 'off'}`, async () => (await isOn(await waitFor(css, 2_000, root))) === on, 10_000);
}

// ------------------------------------------------------------ (1) a file

test('app opens with a plugin file as argument: consent screen', async () => {
  fs.rmSync(profile, { recursive: true, force: true });
  await launch(profile, [path.join(ex('exchange-rates'), 'manifest.json')], 'main');
  await uiAlive();
  const consent = await waitFor(tid('consent'), 20_000);
  const t = await consent.getText();
  if (!/Exchange rates/.test(t)) throw new Error(`consent does not name the plugin: ${t.slice(0, 200)}`);
  await shot('consent');
});

test('Install: the card is Active in My plugins', async () => {
  await consentInstall();
  await goPlugins('My plugins');
  await cardStatus('fx', 'Active', 15_000);
  await shot('my-plugins');
}, { needs: [T.C] });

test('the WebKit data stays in the profile, private (0700), and nothing goes to the shared data folder', async () => {
  const dir = path.join(profile, 'webview');
  if (!fs.existsSync(dir)) throw new Error(`no ${dir}: the window keeps its WebKit data elsewhere`);
  const mode = (fs.statSync(dir).mode & 0o777).toString(8);
  if (mode !== '700') throw new Error(`${dir} has mode ${mode}, not 700`);
  if (!fs.readdirSync(dir).length) throw new Error(`${dir} is empty: WebKit wrote its data elsewhere`);
  // XDG_DATA_HOME is the run's own folder (e2e.sh): what Tauri would share between profiles lands there.
  const shared = path.join(process.env.XDG_DATA_HOME, IDENTIFIER);
  if (fs.existsSync(shared)) throw new Error(`${shared} was made: ${fs.readdirSync(shared).join(', ')}`);
}, { needs: [T.C] });

test('switch the plugin off and on', async () => {
  const sw = async () => (await card('fx')).findElement(By.css(tid('card-switch')));
  await setSwitch(tid('card-switch'), false, await card('fx'));
  const off = await until('status no longer Active', async () => {
    const s = await cardStatusText('fx');
    return s.toLowerCase() !== 'active' ? s : false;
  });
  if (await isOn(await sw())) throw new Error('switch still on');
  await shot('my-plugins-off');
  await setSwitch(tid('card-switch'), true, await card('fx'));
  await cardStatus('fx', 'Active');
  console.log(`     status when off: "${off}"`);
}, { needs: [T.I] });

test('Details opens and closes', async () => {
  await click(inCard('fx', 'card-details'));
  const d = await waitFor(tid('details'));
  const t = await d.getText();
  if (!/api\.frankfurter\.dev/.test(t)) console.log('     note: details do not name the site api.frankfurter.dev');
  await shot('details');
  await click(tid('close'), d);
  await waitGone(tid('details'));
}, { needs: [T.I] });

test('Options opens and closes', async () => {
  await click(inCard('fx', 'card-options'));
  const o = await waitFor(tid('options'));
  // fx has no settings: no Save; its Test button is always there (not
  // pressed: the site's one call is the Twitch chat's step's to count).
  await waitFor(tid('options-test'), 5_000, o);
  await shot('options');
  await click(tid('close'), o);
  await waitGone(tid('options'));
}, { needs: [T.I] });

test('Catalog lists the official plugins', async () => {
  await goPlugins('Catalog');
  await waitFor(tid('import-file'));
  await shot('catalog');
});

test('the window stays on the app: a remote page, a file or a data: page is refused', async () => {
  await goPlugins('My plugins');
  await card('fx');
  const own = await driver().executeScript('return location.href');
  for (const away of ['https://example.invalid/', 'file:///etc/hostname', 'data:text/html,<h1>elsewhere</h1>']) {
    // Navigated from a timer, so that the script returns before the page would go.
    await driver().executeScript('const to = arguments[0]; setTimeout(() => { location = to; }, 0);', away);
    await sleep(1_500);
    const now = await driver().executeScript('return location.href');
    if (now !== own) throw new Error(`location = '${away}' left the app: the window shows ${now}`);
    await card('fx', 5_000);
  }
}, { needs: [T.I] });

test('Tools tab: the master switch for tools', async () => {
  await tab('Tools');
  await waitFor(tid('tools-enabled'));
  await shot('tools');
  await tab('Plugins');
});

test('a broken file given to the running app is refused with technical details', async () => {
  const bad = path.join(env.tmp, 'broken.json');
  const m = JSON.parse(fs.readFileSync(path.join(ex('exchange-rates'), 'manifest.json'), 'utf8'));
  m._meta['com.desktopaicompanion'].slug = 'Bad Slug!';
  m._meta['com.desktopaicompanion'].tools.convert.request.url = 'http://api.frankfurter.dev/v1/latest';
  fs.writeFileSync(bad, JSON.stringify(m, null, 2));
  await secondLaunch(bad);
  const r = await waitFor(tid('import-refusal'), 15_000);
  const tech = await waitFor(tid('technical-details'), 5_000, r);
  await click(await tech.findElement(By.css('summary')));
  await until('technical details open', async () => (await tech.getAttribute('open')) !== null, 5_000);
  await shot('refusal');
  const close = await r.findElements(By.css(tid('close')));
  if (close.length) await click(close[0]);
});

test('a launch with another profile opens its own window and hands this one nothing', async () => {
  const other = path.join(env.tmp, 'profile-other');
  fs.rmSync(other, { recursive: true, force: true });
  const before = (await appWindows(TITLE)).length;
  const app = startApp(other, [path.join(ex('my-tasks'), 'manifest.json')]);
  try {
    await until('a second app window', async () => {
      const code = app.child.exitCode;
      if (code !== null) throw new Error(`the launch ended (${code}) instead of opening its own window: ${app.output().trim().slice(0, 300)}`);
      return (await appWindows(TITLE)).length > before;
    }, 30_000);
    if (!fs.existsSync(path.join(other, 'host.sqlite'))) throw new Error('the other launch did not open its own profile');
    await sleep(1_000);
    if ((await driver().findElements(By.css(tid('consent')))).length) throw new Error('the other profile\'s file reached this window');
  } finally {
    await stopApp(app);
    // Its window goes with its process, but X destroys it a moment later.
    await until('the other profile\'s window gone', async () => (await appWindows(TITLE)).length === before, 10_000);
  }
}, { needs: [T.C] });

test('a plugin file dragged from a file manager onto the window: a drop hint, then its consent screen', async () => {
  await goPlugins('My plugins');
  const r = await appWindowRect('Desktop Companion Plugins');
  const to = { x: r.x + Math.floor(r.width / 2), y: r.y + Math.floor(r.height / 2) };
  const file = path.join(ex('my-tasks'), 'manifest.json');
  const hint = async () => {
    const overlay = await waitFor(tid('drop-overlay'), 5_000);
    const words = await overlay.getText();
    if (words !== 'Drop a plugin file to import it') throw new Error(`drop hint reads "${words}"`);
  };
  const dropped = await dragFile(file, { to, hover: async () => { await hint(); await shot('drop'); } });
  if (!dropped.includes('DRAG-DATA-GET')) throw new Error(`the window never asked for the file: ${dropped}`);
  const consent = await waitFor(tid('consent'), 15_000);
  if (!(await consent.getText()).includes('My tasks')) throw new Error('the consent screen is not the dropped file\'s');
  await waitGone(tid('drop-overlay'), 5_000);
  await click(tid('consent-cancel'), consent);
  await waitGone(tid('consent'));

  // Released outside the window: the hint goes when the drag leaves, and
  // nothing is imported (the drop above shows a consent screen within 15 s;
  // here none comes in 3 s).
  const missed = await dragFile(file, { to, release: { x: r.x + r.width + 100, y: r.y + 50 }, hover: hint });
  if (!missed.includes('DRAG-FAILED no-target')) throw new Error(`the drag did not end outside the window: ${missed}`);
  await waitGone(tid('drop-overlay'), 5_000);
  await sleep(3_000);
  if ((await driver().findElements(By.css(tid('consent')))).length) throw new Error('a drop outside the window opened a consent screen');
}, { needs: [T.C] });

// ------------------------------------------- (2) developer mode, live reload

test('Developer mode on shows the developer toolbar', async () => {
  await goPlugins('My plugins');
  await setSwitch(tid('dev-mode'), true);
  await waitFor(tid('load-folder'));
  await waitFor(tid('reload-plugins'));
  await waitFor(tid('open-plugins-folder'));
});

test('load the pomodoro folder (second launch with the folder) and install it', async () => {
  fs.rmSync(pomodoroDir, { recursive: true, force: true });
  fs.cpSync(ex('pomodoro'), pomodoroDir, { recursive: true });
  await secondLaunch(pomodoroDir);
  await consentInstall({ token: 'e2e-test-token-0123456789' });
  await goPlugins('My plugins');
  await card('pomodoro', 15_000);
  await shot('developer');
}, { needs: [T.D] });

test('saving the folder manifest reloads the card live', async () => {
  const file = path.join(pomodoroDir, 'manifest.json');
  const m = JSON.parse(fs.readFileSync(file, 'utf8'));
  m.version = '1.0.1';
  m.display_name = 'Pomodoro timer (edited)';
  m.description = 'Edited by the end-to-end test: a focus timer, reloaded live.';
  const before = await (await card('pomodoro')).getText();
  if (before.includes('(edited)')) throw new Error('card already shows the new name');
  fs.writeFileSync(file, JSON.stringify(m, null, 2));
  const after = await until('the card named "Pomodoro timer (edited)"', async () => {
    const t = await (await card('pomodoro', 2_000)).getText();
    return t.includes('Pomodoro timer (edited)') ? t : false;
  }, 15_000);
  await shot('developer-reloaded');
  console.log(`     card after reload: ${after.replace(/\s+/g, ' ').slice(0, 160)}`);
  // The new version is read too (the card does not show it; Details does).
  await click(inCard('pomodoro', 'card-details'));
  const d = await waitFor(tid('details'));
  await until('Details showing version 1.0.1', async () => (await d.getText()).includes('1.0.1'), 5_000);
  await click(tid('close'), d);
  await waitGone(tid('details'));
}, { needs: [T.P] });

test(T.E, async () => {
  await goPlugins('My plugins');
  await click(inCard('pomodoro', 'card-details'));
  const d = await waitFor(tid('details'));
  const events = await waitFor(tid('events-section'), 5_000, d);
  const door = () => doorState(events);
  await until('the door closed: no event on', async () => (await door()) === 'Off: no event is switched on', 5_000);
  await setSwitch(tid('event-switch-focus_done'), true, events);
  const open = await until('the door open', async () => {
    const words = await door();
    if (/used by another program/.test(words)) throw new Error(`port 8440 is taken on this machine: "${words}"`);
    return words === 'Waiting for events' ? words : false;
  }, 10_000);
  await driver().executeScript('arguments[0].scrollIntoView({block: "start"})', events);
  await shot('events');

  // Copy puts the token on the clipboard from Rust; the window never shows it.
  await click(tid('token-copy'), events);
  await until('"Token copied"', async () => (await events.getText()).includes('Token copied to the clipboard.'), 5_000);
  const token = await readClipboard();
  if (!/^[0-9a-f]{64}$/.test(token)) throw new Error(`the clipboard holds no event token: "${token.slice(0, 80)}"`);
  const page = await driver().executeScript('return document.documentElement.outerHTML');
  if (page.includes(token)) throw new Error('the event token is in the page');
  pomodoroToken = token;

  // A program on this PC posts an event with it (docs/events.md). Plain
  // HTTP as curl or urllib send it: Node's fetch adds the Sec-Fetch-*
  // headers of a browser, which the door refuses (browser_request).
  const answer = await postEvent(token, { event: 'focus_done', text: 'Session 1 of 4 done.' });
  if (answer.status !== 202) throw new Error(`the door answered ${answer.status}: ${answer.body}`);
  const said = await until('the last event message in the Developer section', async () => {
    const turns = await d.findElements(By.css(tid('last-turn')));
    const t = turns.length ? await turns[0].getText() : '';
    return t.includes('Session 1 of 4 done.') ? t : false;
  }, 10_000);
  console.log(`     door: "${open}"; the AI read: ${said.replace(/\s+/g, ' ').slice(0, 160)}`);

  await setSwitch(tid('event-switch-focus_done'), false, events);
  await until('the door closed again', async () => (await door()) === 'Off: no event is switched on', 10_000);
  await click(tid('close'), d);
  await waitGone(tid('details'));
}, { needs: [T.P] });

// ------------------------------------ (3) Try an action on the local server

test('load the local-server folder, give its token, install', async () => {
  if (!env.localServerDir) throw new Error('E2E_LOCAL_SERVER_DIR not set: the local server is not running');
  const token = fs.readFileSync(path.join(env.localServerDir, 'token.txt'), 'utf8').trim();
  await secondLaunch(env.localServerDir);
  const consent = await waitFor(tid('consent'), 15_000);
  const t = await consent.getText();
  if (!/8420/.test(t)) console.log('     note: the consent screen does not show the port 8420');
  await shot('consent-local-server');
  await consentInstall({ token });
  await goPlugins('My plugins');
  await cardStatus('mypc', 'Active', 15_000);
}, { needs: [T.D] });

test('Try an action: get_time answers from the local server', async () => {
  await click(inCard('mypc', 'card-details'));
  const d = await waitFor(tid('details'));
  const dev = await waitFor(tid('dev-section'), 10_000, d);
  const select = await waitFor(tid('try-tool'), 5_000, dev);
  await selectOption(select, /get_time/);
  await click(tid('try-run'), dev);
  const result = await until('a result with the time', async () => {
    const r = await waitFor(tid('try-result'), 1_000, dev);
    const t = await r.getText();
    return /\d{1,2}:\d{2}/.test(t) ? t : false;
  }, 20_000);
  await driver().executeScript('arguments[0].scrollIntoView({block: "center"})', await waitFor(tid('try-result'), 1_000, dev));
  await shot('try-action');
  console.log(`     result: ${result.replace(/\s+/g, ' ').slice(0, 160)}`);
  await click(tid('close'), d);
  await waitGone(tid('details'));
}, { needs: [T.L] });

test('Try an action: add_note writes a note through the local server', async () => {
  await click(inCard('mypc', 'card-details'));
  const d = await waitFor(tid('details'));
  const dev = await waitFor(tid('dev-section'), 10_000, d);
  await selectOption(await waitFor(tid('try-tool'), 5_000, dev), /add_note/);
  const note = `written by the e2e test ${Date.now()}`;
  const field = await dev.findElements(By.css(tid('try-arg-text')));
  if (field.length) await type(tid('try-arg-text'), note, dev);
  else await type(tid('try-args'), JSON.stringify({ text: note }), dev);
  await click(tid('try-run'), dev);
  await until('a result saying saved', async () => /saved/.test(await (await waitFor(tid('try-result'), 1_000, dev)).getText()), 20_000);
  const notes = path.join(env.localServerDir, 'notes.txt');
  await until('the note in notes.txt', async () => fs.existsSync(notes) && fs.readFileSync(notes, 'utf8').includes(note), 5_000);
  if (!field.length) console.log('     note: no try-arg-text field (the details carry no input schema): arguments typed as JSON');
  await click(tid('close'), d);
  await waitGone(tid('details'));
}, { needs: [T.L] });

test('Actions lists the call just made', async () => {
  await goPlugins('Actions');
  await until('a journal row', async () => (await driver().findElements(By.css(tid('journal-row')))).length > 0, 10_000);
  await shot('actions');
}, { needs: [T.T] });

// ------------------------------------------- (3b) the companion (issue 23)

/** The companion's AI for the main profile: one port, a new script (and record) per step. */
const companionAi = { server: null, port: 0 };
async function aiAnswers(turns) {
  await companionAi.server?.stop();
  companionAi.server = await startScriptedAi(turns, companionAi.port);
  companionAi.port = companionAi.server.port;
  return companionAi.server;
}

/**
 * The companion is idle: no turn runs and no message waits (the Stop button is gone, issue 33), so
 * the next message is answered at once and its exchange is the last.
 */
async function idle() {
  await waitFor(tid('companion-send'), 2_000);
  await until('the companion idle (no Stop button)', async () => !(await driver().findElements(By.css(tid('companion-stop')))).length, 15_000);
}

/**
 * A new conversation, once the host has answered: the old one goes only then, and a question sent
 * before would go with it (issue 32).
 */
async function newConversation() {
  await tab('Companion');
  await idle();
  await click(tid('companion-new'));
  await until('an empty conversation', async () => !(await driver().findElements(By.css(tid('exchange')))).length, 5_000);
}

/** Types `words` in the Companion tab and presses Enter, as a player does; resolves with the new exchange. */
async function send(words) {
  await tab('Companion');
  await idle();
  const before = (await driver().findElements(By.css(tid('exchange')))).length;
  const box = await waitFor(tid('companion-text'));
  await box.clear();
  await box.sendKeys(words, Key.ENTER);
  return until('the new exchange in the conversation', async () => {
    const all = await driver().findElements(By.css(tid('exchange')));
    return all.length > before ? all[all.length - 1] : false;
  }, 10_000);
}

/**
 * Watches the last exchange's answer from inside the page (no WebDriver
 * round trip between two looks) until it is over: every text it showed, in
 * order, without the "Companion:" label.
 */
async function watchAnswer(ms = 14_000) {
  const { seen, over } = await driver().executeAsyncScript(
    `const [ms, done] = [arguments[0], arguments[arguments.length - 1]];
     const seen = [];
     const t0 = Date.now();
     (function poll() {
       const all = document.querySelectorAll('[data-testid="exchange"]');
       const a = all.length ? all[all.length - 1].querySelector('[data-testid="answer"]') : null;
       const words = a ? a.textContent.replace(/^\\s*Companion:\\s*/, '') : '';
       if (a && seen[seen.length - 1] !== words) seen.push(words);
       if (a && a.getAttribute('aria-busy') === 'false') return done({ seen, over: true });
       if (Date.now() - t0 > ms) return done({ seen, over: false });
       setTimeout(poll, 15);
     })();`,
    ms,
  );
  if (!over) throw new Error(`the answer was not over after ${ms} ms (it showed: ${JSON.stringify(seen).slice(0, 300)})`);
  return seen;
}

/** The lines of the last exchange with this testid (tool-line, confirm-line), their text. */
async function linesOf(testid) {
  const all = await driver().findElements(By.css(tid('exchange')));
  const lines = await all[all.length - 1].findElements(By.css(tid(testid)));
  return Promise.all(lines.map((l) => l.getText()));
}

/** Scrolls the conversation's last exchange into view, the box to type in below it (for a screenshot). */
async function showLast() {
  await driver().executeScript(`const all = document.querySelectorAll('[data-testid="exchange"]');
    all[all.length - 1]?.scrollIntoView({ block: 'center' });`);
}

/** The journal's rows as text, newest first. */
async function journalRows() {
  return Promise.all((await driver().findElements(By.css(tid('journal-row')))).map((r) => r.getText()));
}

test(T.A, async () => {
  const ai = await aiAnswers([]);
  await tab('Tools');
  const section = await waitFor(tid('ai-settings'));
  await type(tid('ai-url'), ai.url, section);
  await type(tid('ai-model'), MODEL, section);
  await click(tid('ai-test'), section);
  const said = await until('Test saying Connected', async () => {
    const words = (await (await waitFor(tid('ai-test-result'), 1_000, section)).getText()).trim();
    if (words && !/^Connected/.test(words)) throw new Error(`Test says "${words}"`);
    return words;
  }, 15_000);
  const where = await (await waitFor(tid('ai-where'), 2_000, section)).getText();
  if (!where.includes(ai.url)) throw new Error(`the AI section does not show the address kept: ${where}`);
  if (!ai.received().some((r) => r.method === 'GET' && r.path === '/v1/models')) throw new Error('Test never asked the AI for its models');
  await driver().executeScript('arguments[0].scrollIntoView({block: "start"})', section);
  await shot('ai-settings');
  console.log(`     Test: "${said}"; ${where.replace(/\s+/g, ' ').slice(0, 120)}`);
}, { needs: [T.I] });

test(T.Q, async () => {
  const pieces = ['Your PC ', 'answered: ', 'I read its clock ', 'just now.'];
  const ai = await aiAnswers([toolCalls([['call_time', 'mypc__get_time', '{}']]), text(pieces, 400)]);
  const question = 'What time is it on my PC?';
  // A conversation of its own (the Events step above left an event turn that had no AI to answer it).
  await newConversation();
  await send(question);
  const seen = await watchAnswer();
  const whole = pieces.join('');
  if (seen[seen.length - 1].trim() !== whole.trim()) throw new Error(`the answer reads "${seen[seen.length - 1]}", not "${whole}"`);
  const partial = seen.filter((s) => s && s !== seen[seen.length - 1] && whole.startsWith(s.trim()));
  if (!partial.length) throw new Error(`the answer never showed a part before the whole (seen: ${JSON.stringify(seen)})`);
  const tools = await linesOf('tool-line');
  if (tools.length !== 1 || !/My PC \(local server\) · tell the time on your PC: done/.test(tools[0])) throw new Error(`tool lines: ${JSON.stringify(tools)}`);
  // What the AI was offered and read: the question, get_time among the tools, the local server's time.
  const [first, second] = ai.chats();
  if (!first || !JSON.stringify(first.messages).includes(question)) throw new Error('the AI never got the question');
  if (!offered(first).includes('mypc__get_time')) throw new Error(`get_time not offered: ${offered(first)}`);
  const read = (second?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
  if (!read.some((c) => /\d{1,2}:\d{2}/.test(c))) throw new Error(`the AI did not read the time: ${JSON.stringify(read).slice(0, 300)}`);
  await shot('companion');
  // The tool line opened: what was sent and what the AI read (where the build has the disclosure).
  const [line] = await driver().findElements(By.css(tid('tool-line')));
  const opener = await line.findElements(By.css(tid('tool-open')));
  if (opener.length) {
    await click(opener[0]);
    const call = await waitFor(tid('tool-call'), 5_000, line);
    const opened = await call.getText();
    if (!opened.includes('http://127.0.0.1:8420/time') || !/\d{1,2}:\d{2}/.test(opened)) throw new Error(`the tool line opened shows: ${opened.slice(0, 300)}`);
    await driver().executeScript('arguments[0].scrollIntoView({block: "center"})', line);
    await shot('tool-line');
  } else {
    console.log('     note: no tool-open on the tool line in this build: what was sent and read not opened');
  }
  console.log(`     streamed as ${seen.length} texts: ${seen.map((s) => JSON.stringify(s.trim())).join(' → ').slice(0, 200)}; tool line: "${tools[0]}"; the AI read: ${read[0].replace(/\s+/g, ' ').slice(0, 120)}`);
}, { needs: [T.L, T.A] });

test('Companion (issue 33): Stop mid-stream keeps the words so far, marked stopped; the next message is answered', async () => {
  const story = ['Once upon a time ', 'there was ', 'a very ', 'long ', 'story.'];
  const ai = await aiAnswers([text(story, 1500), text(['Fine, stopped.'])]);
  await newConversation();
  const exchange = await send('Tell me a long story.');
  await until('the first words of the story', async () => (await (await exchange.findElement(By.css(tid('answer')))).getText()).includes('Once upon'), 10_000);
  const pressed = Date.now();
  await click(tid('companion-stop'));
  await until('the turn marked stopped', async () => (await exchange.findElements(By.css(tid('turn-stopped')))).length > 0, 5_000);
  await idle();
  const stopMs = Date.now() - pressed;
  const words = await (await exchange.findElement(By.css(tid('answer')))).getText();
  if (!words.includes('Once upon') || words.includes('story.')) throw new Error(`the stopped answer reads "${words}"`);
  const stopped = await (await exchange.findElement(By.css(tid('turn-stopped')))).getText();
  await showLast();
  await shot('companion-stopped');
  await send('Just say fine.');
  const seen = await watchAnswer();
  if (seen[seen.length - 1].trim() !== 'Fine, stopped.') throw new Error(`the next answer reads "${seen[seen.length - 1]}"`);
  if (ai.chats().length !== 2) throw new Error(`the AI was asked ${ai.chats().length} times, not 2`);
  console.log(`     Stop to idle: ${stopMs} ms (WebDriver round trips included); kept "${words.replace(/\s+/g, ' ')}", "${stopped}"`);
}, { needs: [T.A] });

test('Actions (§3, §19): the companion\'s call, who asked = Typed', async () => {
  await goPlugins('Actions');
  const row = await until('a journal row of get_time asked by typing', async () => (await journalRows()).find((r) => /My PC/.test(r) && /Typed/.test(r)), 10_000);
  if (!/done/i.test(row)) throw new Error(`the row does not say done: ${row}`);
  await shot('companion-actions');
  console.log(`     row: ${row.replace(/\s+/g, ' ')}`);
}, { needs: [T.Q] });

test(T.R, async () => {
  const token = fs.readFileSync(path.join(env.localServerDir, 'token.txt'), 'utf8').trim();
  const dir = path.join(env.tmp, 'serious-note');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(env.repo, 'tests/e2e/fixtures/serious-note'), dir, { recursive: true });
  await secondLaunch(dir);
  await consentInstall({ token });
  await goPlugins('My plugins');
  await cardStatus('seriousnote', 'Active', 15_000);
}, { needs: [T.D] });

test('R3 (§12): a serious action confirmed is sent, one cancelled reaches nothing', async () => {
  const notes = path.join(env.localServerDir, 'notes.txt');
  // e2e.sh keeps the server's output (one line per request) beside its copy of the example.
  const serverLog = path.join(path.dirname(env.localServerDir), 'local-server.log');
  const posts = () => (fs.readFileSync(serverLog, 'utf8').match(/"POST \/note /g) ?? []).length;
  const noted = () => (fs.existsSync(notes) ? fs.readFileSync(notes, 'utf8') : '');
  const yes = `confirmed in the e2e run ${Date.now()}`;
  const no = `cancelled in the e2e run ${Date.now()}`;
  const ai = await aiAnswers([
    toolCalls([['call_yes', 'seriousnote__send_note', JSON.stringify({ text: yes })]]), text(['The note is written.']),
    toolCalls([['call_no', 'seriousnote__send_note', JSON.stringify({ text: no })]]), text(['Fine, nothing was written.']),
  ]);

  await send(`Write a note that says: ${yes}`);
  let ask = await waitFor(tid('ask'), 15_000);
  const request = await (await waitFor(tid('ask-request'), 2_000, ask)).getText();
  if (!request.startsWith('POST http://127.0.0.1:8420/note') || !request.includes(yes)) throw new Error(`the dialog shows: ${request}`);
  if (!request.includes('[secret]')) throw new Error(`the token is not shown as [secret]: ${request}`);
  const focused = await driver().executeScript('return document.activeElement?.dataset.testid');
  if (focused !== 'ask-cancel') throw new Error(`focus is on ${focused}, not Cancel`);
  if (!/\d+ s/.test(await (await waitFor(tid('ask-left'), 1_000, ask)).getText())) throw new Error('no countdown');
  // Confirm is armed a second after the dialog is painted (issue 32): a
  // click before that would be a press begun on the page behind.
  const confirm = await waitFor(tid('ask-confirm'), 2_000, ask);
  await until('Confirm armed', async () => confirm.isEnabled(), 5_000);
  await shot('r3-dialog');
  await click(confirm);
  await waitGone(tid('ask'));
  await watchAnswer();
  const confirmed = await linesOf('confirm-line');
  if (!confirmed.some((l) => /^You confirmed Serious note \(e2e\)/.test(l))) throw new Error(`confirm lines: ${JSON.stringify(confirmed)}`);
  await until('the confirmed note in notes.txt', async () => noted().includes(yes), 5_000);

  const before = posts();
  await send(`Write a note that says: ${no}`);
  ask = await waitFor(tid('ask'), 15_000);
  await click(tid('ask-cancel'), ask);
  await waitGone(tid('ask'));
  await watchAnswer();
  const declined = await linesOf('confirm-line');
  if (!declined.some((l) => /^You cancelled Serious note \(e2e\)/.test(l))) throw new Error(`confirm lines: ${JSON.stringify(declined)}`);
  await sleep(1_000);
  if (noted().includes(no)) throw new Error('the cancelled note reached notes.txt');
  if (posts() !== before) throw new Error(`the local server got ${posts() - before} POST /note after the cancel`);
  // The AI was told each outcome: the last tool message of the request after each question.
  const chats = ai.chats();
  const told = [chats[1], chats[3]].map((c) => String((c?.messages ?? []).filter((m) => m.role === 'tool').at(-1)?.content ?? ''));
  if (!/saved/.test(told[0])) throw new Error(`the AI did not read the confirmed call's answer: ${told[0].slice(0, 200)}`);
  if (/saved/.test(told[1])) throw new Error(`the AI read an answer for the cancelled call: ${told[1].slice(0, 200)}`);
  await showLast();
  await shot('companion-r3');
  // Actions says, for each, who asked and what the player answered.
  await goPlugins('Actions');
  const rows = await until('both serious calls in Actions', async () => {
    const mine = (await journalRows()).filter((r) => r.includes('Serious note'));
    return mine.length >= 2 ? mine : false;
  }, 10_000);
  if (!rows.some((r) => /Typed/.test(r) && /you confirmed it/.test(r))) throw new Error(`no confirmed row: ${JSON.stringify(rows)}`);
  if (!rows.some((r) => /Typed/.test(r) && /you did not confirm it/.test(r))) throw new Error(`no declined row: ${JSON.stringify(rows)}`);
  await shot('r3-actions');
  console.log(`     lines: ${JSON.stringify(declined)}; POST /note on the server: ${before} before the cancel, ${posts()} after; the AI read after the cancel: ${told[1].replace(/\s+/g, ' ').slice(0, 120)}`);
  console.log(`     Actions: ${rows.map((r) => r.replace(/\s+/g, ' ')).join(' | ')}`);
}, { needs: [T.R, T.A], timeout: 90_000 });

test('Events (§16): an event posted while the companion is idle is said in the conversation, from the program, with the answer', async () => {
  if (!pomodoroToken) throw new Error('no event token (the Events step did not copy it)');
  const ai = await aiAnswers([text(['Well done: ', 'that focus session is over. ', 'Time for a break.'], 200)]);
  await goPlugins('My plugins');
  await click(inCard('pomodoro', 'card-details'));
  const d = await waitFor(tid('details'));
  const events = await waitFor(tid('events-section'), 5_000, d);
  await setSwitch(tid('event-switch-focus_done'), true, events);
  // The switch holds at once; the door opens once the host has taken it. An event posted before
  // then is refused: on a loaded machine the host's answer can come late (issue 32).
  await until('the door open', async () => (await doorState(events)) === 'Waiting for events', 10_000);
  await click(tid('close'), d);
  await waitGone(tid('details'));
  await tab('Companion');
  const before = (await driver().findElements(By.css(tid('exchange')))).length;
  const answer = await postEvent(pomodoroToken, { event: 'focus_done', text: 'Session 2 of 4 done.' });
  if (answer.status !== 202) throw new Error(`the door answered ${answer.status}: ${answer.body}`);
  await until('the event in the conversation', async () => (await driver().findElements(By.css(tid('exchange')))).length > before, 15_000);
  const seen = await watchAnswer();
  const all = await driver().findElements(By.css(tid('exchange')));
  const said = await (await all[all.length - 1].findElement(By.css(tid('said')))).getText();
  if (!/^Pomodoro timer.* \(your program\):/.test(said) || !said.includes('Session 2 of 4 done.')) throw new Error(`the exchange reads "${said}"`);
  if (!seen[seen.length - 1].includes('Time for a break.')) throw new Error(`the answer reads "${seen[seen.length - 1]}"`);
  const [turn] = ai.chats();
  if (offered(turn).length) throw new Error(`an event turn offered tools: ${offered(turn)}`);
  await showLast();
  await shot('companion-event');
  console.log(`     "${said}" → "${seen[seen.length - 1].trim()}"`);
}, { needs: [T.E, T.A] });

test(T.W, async () => {
  await secondLaunch(path.join(ex('my-tasks'), 'manifest.json'));
  await consentInstall({ api_token: 'e2e-not-a-real-token' });
  await goPlugins('My plugins');
  await cardStatus('mytasks', 'Active', 15_000);
  const ai = await aiAnswers([text(['Not live: every action is offered.']), text(['Live: your tasks stay off stream.'])]);
  // A new conversation, so the screenshot shows the switch, what it pauses and both turns.
  await newConversation();
  await send('What can you do?');
  await watchAnswer();
  await setSwitch(tid('companion-live'), true);
  const paused = await (await waitFor(tid('companion-paused'), 5_000)).getText();
  if (!paused.includes('My tasks')) throw new Error(`the tab says: ${paused}`);
  await send('And now that I am live?');
  await watchAnswer();
  await shot('companion-live');
  await setSwitch(tid('companion-live'), false);
  const [off, on] = ai.chats().map(offered);
  if (!off?.includes('mytasks__list_tasks')) throw new Error(`list_tasks not offered before the switch: ${off}`);
  if (on?.includes('mytasks__list_tasks')) throw new Error(`list_tasks still offered while live: ${on}`);
  if (!on?.includes('mytasks__add_task')) throw new Error(`add_task (R2) not offered while live: ${on}`);
  console.log(`     "${paused}"; offered before: ${off.length} tools, while live: ${on.length} (list_tasks gone, add_task kept)`);
}, { needs: [T.A] });

// ------------------------------------------ (3c) the Twitch chat (issue 36)
// After the Live on Twitch step, which installed My tasks (its R1 action is what stream mode pauses).

test('Twitch chat (§12): the channel connected in Tools, stream mode on; a viewer\'s !ask answered with an R0 call, R1 paused; then disconnected', async () => {
  if (twitchLike.failed) throw twitchLike.failed;
  if (fxSite.failed) throw fxSite.failed;
  const channel = 'e2e_streamer';
  const yen = fxSite.rate('EUR', 'JPY', 20);
  const ai = await aiAnswers([
    toolCalls([['call_fx', 'fx__convert', JSON.stringify({ amount: 20, from: 'EUR', to: 'JPY' })]]),
    text([`About ${Math.round(yen).toLocaleString('en')} yen, `, 'at today\'s rate.'], 100),
  ]);
  const sitesBefore = fxSite.requests().length;
  await newConversation();
  await tab('Tools');
  const section = await waitFor(tid('twitch'));
  const state = async () => (await (await waitFor(tid('twitch-state'), 2_000, section)).getText()).trim();
  if (!(await state()).startsWith('Not connected')) throw new Error(`before connecting the section says: ${await state()}`);
  await type(tid('twitch-channel'), 'E2E_Streamer', section);
  await click(tid('twitch-connect'), section);
  const connected = await until('Connected in the Tools section', async () => {
    const words = await state();
    if (/^Not connected|^Reconnecting/.test(words)) throw new Error(words);
    return words.startsWith(`Connected to #${channel}`) ? words : false;
  }, 30_000);
  await twitchLike.joined(channel);
  const streamMode = await (await waitFor(tid('twitch-stream-mode'), 2_000, section)).getText();
  if (!streamMode.startsWith('Stream mode is on')) throw new Error(`stream mode reads: ${streamMode}`);
  await driver().executeScript('arguments[0].scrollIntoView({block: "start"})', section);
  await shot('twitch-tools');

  await tab('Companion');
  const line = await (await waitFor(tid('companion-twitch'), 5_000)).getText();
  if (line !== `Twitch chat #${channel} connected · stream mode on`) throw new Error(`the status line reads: ${line}`);
  const live = await waitFor(tid('companion-live'));
  if (!(await isOn(live)) || (await live.isEnabled())) throw new Error('the Live on Twitch switch is not on and locked while the chat is connected');
  const paused = await (await waitFor(tid('companion-paused'), 5_000)).getText();
  if (!paused.includes('My tasks')) throw new Error(`the tab says: ${paused}`);

  const before = (await driver().findElements(By.css(tid('exchange')))).length;
  await twitchLike.say(channel, 'ada_l', 'Ada_L', '!ask what is 20 euros in yen?');
  await until('the viewer\'s turn in the conversation', async () => (await driver().findElements(By.css(tid('exchange')))).length > before, 20_000);
  const seen = await watchAnswer(20_000);
  const all = await driver().findElements(By.css(tid('exchange')));
  const said = await (await all[all.length - 1].findElement(By.css(tid('said')))).getText();
  if (said !== 'Ada_L (Twitch chat): what is 20 euros in yen?') throw new Error(`the exchange reads "${said}"`);
  if (!seen[seen.length - 1].includes(`About ${Math.round(yen).toLocaleString('en')} yen`)) throw new Error(`the answer reads "${seen[seen.length - 1]}"`);
  const tools = await linesOf('tool-line');
  if (tools.length !== 1 || !tools[0].startsWith('Exchange rates · ') || !tools[0].endsWith(': done')) throw new Error(`tool lines: ${JSON.stringify(tools)}`);
  // The call reached the plugin's site, once (§12: one call per chat message), with the viewer's numbers.
  const calls = fxSite.requests().slice(sitesBefore);
  const query = JSON.stringify({ base: 'EUR', symbols: 'JPY', amount: '20' });
  if (calls.length !== 1 || calls[0].path !== '/v1/latest' || JSON.stringify(calls[0].query) !== query) throw new Error(`the site received: ${JSON.stringify(calls)}`);
  // R0 only (§12): the public-data action offered; My tasks' (R1, R2) and the PC's (R2) never.
  const [asked] = ai.chats();
  const tools0 = offered(asked);
  if (!tools0.includes('fx__convert')) throw new Error(`fx__convert (R0) not offered to a chat turn: ${tools0}`);
  const beyond = tools0.filter((t) => /^(mytasks|mypc|seriousnote)__/.test(t));
  if (beyond.length) throw new Error(`a chat turn was offered more than R0: ${beyond}`);
  if (!JSON.stringify(asked.messages).includes('Twitch chat')) throw new Error('the AI did not read the words as a viewer\'s');
  // The AI's second request carries what the site answered.
  const read = ai.chats()[1]?.messages?.filter((m) => m.role === 'tool') ?? [];
  if (read.length !== 1 || !JSON.stringify(read[0].content).includes(String(yen))) throw new Error(`the AI read: ${JSON.stringify(read).slice(0, 300)}`);
  await showLast();
  await shot('twitch-companion');

  await goPlugins('Actions');
  const rows = await until('the chat\'s call in Actions', async () => {
    const mine = (await journalRows()).filter((r) => r.includes('Exchange rates') && r.includes('Twitch chat'));
    return mine.length ? mine : false;
  }, 10_000);
  const outcomes = await Promise.all((await driver().findElements(By.css(tid('journal-row')))).map(async (r) =>
    ((await r.getText()).includes('Twitch chat') ? (await r.findElement(By.css(tid('journal-outcome-cell')))).getText() : null)));
  const chatOutcomes = outcomes.filter((o) => o !== null);
  if (chatOutcomes.length !== 1 || chatOutcomes[0].trim() !== 'done') throw new Error(`the chat's calls in Actions: ${JSON.stringify(rows)} (outcomes ${JSON.stringify(chatOutcomes)})`);

  await tab('Tools');
  await click(tid('twitch-disconnect'), await waitFor(tid('twitch')));
  await until('Not connected in the Tools section', async () => (await (await waitFor(tid('twitch-state'), 2_000)).getText()).trim() === 'Not connected', 10_000);
  await tab('Companion');
  if ((await driver().findElements(By.css(tid('companion-twitch')))).length) throw new Error('the status line stays after Disconnect');
  if (!(await (await waitFor(tid('companion-live'))).isEnabled())) throw new Error('the Live on Twitch switch stays locked after Disconnect');
  console.log(`     "${connected}"; "${said}" → "${seen[seen.length - 1].trim()}"; ${tools[0]}; offered: ${tools0.join(', ')}`);
  console.log(`     the site received ${calls[0].path}?${new URLSearchParams(calls[0].query)}; the AI read ${yen}`);
  console.log(`     Actions: ${rows[0].replace(/\s+/g, ' ').slice(0, 160)}`);
}, { needs: [T.A, T.W], timeout: 120_000 });

// ------------------------------------------------------------- (4) uninstall

test('Uninstall asks to confirm, then the card is gone', async () => {
  await goPlugins('My plugins');
  await click(inCard('fx', 'card-uninstall'));
  await click(tid('confirm-yes'));
  await waitGone(tid('card-fx'), 10_000);
  const left = await cardSlugs();
  if (left.includes('fx')) throw new Error(`fx still listed: ${left}`);
  await quit();
}, { needs: [T.I] });

// ------------------------------------- (4b) §2 replayed from a fresh profile

test('§2 replayed as a player, from a fresh profile: Import a plugin (the local-server manifest), install, ask, the answer, the line in Actions; timed', async () => {
  const fresh = path.join(env.tmp, 'profile-first-plugin');
  fs.rmSync(fresh, { recursive: true, force: true });
  const ai = await startScriptedAi([toolCalls([['call_time', 'mypc__get_time', '{}']]), text(['It is ', 'the time ', 'your PC gave.'], 100)]);
  // §2 starts from a companion that already talks: its AI is set before the
  // launch (dcplugin ai, not timed), as the player's companion already has one.
  await dcplugin(fresh, ['ai', '--url', ai.url, '--model', MODEL]);
  const token = fs.readFileSync(path.join(env.localServerDir, 'token.txt'), 'utf8').trim();
  const { launchedAt } = await launch(fresh, [], 'first-plugin');
  const marks = [];
  const mark = (what) => marks.push(`${what} ${((Date.now() - launchedAt) / 1000).toFixed(1)} s`);
  try {
    await uiAlive();
    // The window opens on the Companion tab; with no plugin it offers the Catalog.
    await waitFor(tid('companion-no-plugin'), 10_000);
    mark('window on the Companion tab');
    // A server on the PC needs developer mode (§15). Then §2 step 2: Plugins,
    // Catalog, Import a plugin, the manifest picked in the file chooser.
    await goPlugins('My plugins');
    await setSwitch(tid('dev-mode'), true);
    // The toolbar shows once the host has turned developer mode on; the import needs it (issue 32).
    await waitFor(tid('load-folder'));
    await goPlugins('Catalog');
    await click(tid('import-file'));
    await pickInFileChooser(path.join(env.localServerDir, 'manifest.json'), 'Open File');
    await waitFor(tid('consent'), 15_000);
    mark('consent screen');
    await consentInstall({ token });
    await cardStatus('mypc', 'Active', 15_000);
    mark('installed');
    await send('What time is it on my PC?');
    const seen = await watchAnswer();
    if (!seen[seen.length - 1].includes('your PC gave.')) throw new Error(`the answer reads "${seen[seen.length - 1]}"`);
    const tools = await linesOf('tool-line');
    if (!tools.some((l) => /: done$/.test(l))) throw new Error(`tool lines: ${JSON.stringify(tools)}`);
    mark('answered');
    await goPlugins('Actions');
    const row = await until('the call in Actions, typed', async () => (await journalRows()).find((l) => /My PC/.test(l) && /Typed/.test(l)), 10_000);
    mark('seen in Actions');
    await shot('first-plugin-actions');
    const s = (Date.now() - launchedAt) / 1000;
    console.log(`     ${marks.join('; ')}; row: ${row.replace(/\s+/g, ' ')}`);
    console.log(`§2 replayed in ${s.toFixed(1)} s from the launch to the call seen in Actions (target: under 2 minutes of a player's clicks and typing). ` +
      'It covers the app starting, developer mode on, Import a plugin with the path typed in the file chooser, consent with the token, Install, the question typed, the answer, Actions; ' +
      'the test clicks and types at machine speed, so a player\'s reading and typing come on top. The AI was set before the launch.');
  } finally {
    await quit();
    await ai.stop();
  }
}, { timeout: 120_000 });

// ------------------------------------------------- (5) start-up, 100 plugins

test('start-up with 100 installed plugins', async () => {
  const big = path.join(env.tmp, 'profile-100');
  const manifests = path.join(env.tmp, 'manifests-100');
  fs.rmSync(big, { recursive: true, force: true });
  fs.mkdirSync(manifests, { recursive: true });
  const base = JSON.parse(fs.readFileSync(path.join(ex('exchange-rates'), 'manifest.json'), 'utf8'));
  for (let i = 1; i <= 100; i++) {
    const n = String(i).padStart(3, '0');
    const m = structuredClone(base);
    m.name = `fx-rates-${n}`;
    m.display_name = `Exchange rates ${n}`;
    m._meta['com.desktopaicompanion'].slug = `fx${n}`;
    const file = path.join(manifests, `fx${n}.json`);
    fs.writeFileSync(file, JSON.stringify(m));
    await dcplugin(big, ['import', '--yes', '--cloud', 'allow', file]);
  }
  const listed = (await dcplugin(big, ['list'])).split('\n').filter((l) => /^fx\d{3}\s/.test(l)).length;
  if (listed !== 100) throw new Error(`dcplugin list shows ${listed} plugins, not 100`);

  // Three launches; the median is printed (a busy 2-core machine makes any
  // single one noisy), with each run's numbers.
  const runs = [];
  let shown = 0;
  for (let i = 0; i < 3; i++) {
    const { launchedAt, sessionMs } = await launch(big, [], 'startup');
    // The first view drawn (the Companion tab, where the window opens),
    // polled in the page so the wait costs no round trips.
    await driver().executeAsyncScript(
      `const done = arguments[arguments.length - 1];
       const t0 = Date.now();
       (function poll() {
         const c = document.querySelector('[data-testid="companion-text"]');
         if (c && c.getClientRects().length) return done(true);
         if (Date.now() - t0 > 12000) return done(false);
         requestAnimationFrame(poll);
       })();`,
    );
    const wallMs = Date.now() - launchedAt;
    const startupMs = Number(await until('document.body.dataset.startupMs', async () => driver().executeScript('return document.body.dataset.startupMs'), 10_000));
    await goPlugins('My plugins');
    shown = (await cardSlugs()).length;
    runs.push({ startupMs, wallMs, sessionMs });
    if (i === 0) await shot('startup-100');
    await quit();
  }
  const median = (k) => runs.map((r) => r[k]).sort((x, y) => x - y)[1];
  const startupMs = median('startupMs');
  console.log(`     runs: ${runs.map((r) => `ui_ready ${r.startupMs} ms, first view ${r.wallMs} ms (session ${r.sessionMs} ms)`).join('; ')}`);
  console.log(`startup with 100 plugins: ${startupMs} ms (target < 1000 ms); wall time from launch request to the first view (Companion tab) drawn: ${median('wallMs')} ms (medians of 3 launches); cards drawn: ${shown}`);
  if (shown !== 100) throw new Error(`${shown} cards drawn, not 100`);
  // The target is printed, not enforced: on a busy 2-core machine (builds
  // running beside) a debug build can miss it by chance.
  if (Number(startupMs) >= 1000) console.log(`     note: ${startupMs} ms is over the 1000 ms target`);
}, { timeout: 180_000 });

// ------------------------------------- (6) a program holding the window's name

test('a program holding the window\'s bus name is handed nothing: the launch opens its own window and says why', async () => {
  const squatted = path.join(env.tmp, 'profile-squatted');
  fs.rmSync(squatted, { recursive: true, force: true });
  // The profile's window name: the one that appears on the bus while its window runs.
  const earlier = new Set(await busNames());
  const app = startApp(squatted);
  let name;
  try {
    name = await until('the window\'s single-instance name on the bus', async () => {
      if (app.child.exitCode !== null) throw new Error(`the app ended: ${app.output().trim().slice(0, 300)}`);
      return (await busNames()).find((n) => !earlier.has(n) && n.startsWith(`${IDENTIFIER}.`) && n.endsWith('.SingleInstance'));
    }, 30_000);
  } finally {
    await stopApp(app);
  }
  const squatter = await busSquatter(name);
  const file = path.join(ex('exchange-rates'), 'manifest.json');
  const launch2 = startApp(squatted, [file]);
  try {
    await until('the launch\'s own window', async () => {
      const code = launch2.child.exitCode;
      if (code !== null) throw new Error(`the launch ended (${code}) with no window: ${launch2.output().trim().slice(0, 300)}; the squatter got ${squatter.lines.join(' | ')}`);
      return (await appWindows(TITLE)).length > 0;
    }, 30_000);
    const said = launch2.output();
    if (!/held by another program/.test(said)) throw new Error(`the launch did not say why it opened its own window: "${said.trim().slice(0, 300)}"`);
    if (squatter.lines.some((l) => l.startsWith('HANDED'))) throw new Error(`the squatter was handed: ${squatter.lines.join(' | ')}`);
    console.log(`     ${name}: ${said.trim().split('\n').find((l) => /held by another program/.test(l)).slice(0, 160)}…`);
  } finally {
    await stopApp(launch2);
    squatter.stop();
  }
}, { timeout: 90_000 });

// ----------------------------------------------------------------- run

let result;
try {
  result = await runAll();
} finally {
  await quit().catch(() => {});
  killChildren();
}
if (result.failed) console.log(`(screens at failure here, logs too once e2e.sh ends: ${env.fails})`);
console.log(`${result.passed} passed, ${result.failed} failed`);
process.exit(result.failed ? 1 : 0);
