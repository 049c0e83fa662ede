// Issue 23, "What a new player tripped on": a card Active while every call fails, an event line
// without a name in Actions, the texts that stayed English in French, and the modals (the page
// behind scrolling, Install's reason out of sight, developer mode moving the page, Clear asking
// nothing). Each as the player sees it, with the host mocked.
import { describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, calls, emit, RESULTS, shot, windows } from './harness';
import * as real from './fixtures';

const win = windows();
/** The app with a scenario, on the Plugins tab. */
async function app(scenario: Record<string, unknown> = {}): Promise<Page> {
  const { page } = await win.open(scenario);
  // 'Plugins' in English and in French.
  await page.getByRole('tab', { name: 'Plugins', exact: true }).click();
  return page;
}

const text = (page: Page, sel: string) => page.locator(sel).innerText();
const fxCard = () => ({ ...real.cards.find((c) => c.slug === 'fx')!, has_icon: true });
/** The first element matching `sel` is wholly inside the window. */
const inView = (page: Page, sel: string) => page.evaluate((s) => {
  const r = document.querySelector(s)!.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
}, sel);
const top = (page: Page, sel: string) => page.evaluate((s) => document.querySelector(s)!.getBoundingClientRect().top, sel);

describe('§18: a card Active while its calls fail says so', () => {
  test('the count and the newest failure in words, the code as detail; one failure is singular; a success clears it', async () => {
    const page = await app();
    const fx = '[data-testid="card-fx"]';
    expect(await page.locator(`${fx} [data-testid="card-failing"]`).count()).toBe(0);
    await emit(page, 'host-event', { kind: 'plugin_changed', slug: 'fx', change: 'status', card: { ...fxCard(), failing: { calls: 3, code: 'HTTP_401', family: 'key_refused' } } });
    await expect.poll(() => text(page, `${fx} [data-testid="card-failing"]`))
      .toBe('Its last 3 calls failed: the service refused the key. Check it in Options. (code HTTP_401)');
    expect(await text(page, `${fx} [data-testid="card-status"]`)).toBe('Active');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'card-failing');
    await emit(page, 'host-event', { kind: 'plugin_changed', slug: 'fx', change: 'status', card: { ...fxCard(), failing: { calls: 1, code: 'DNS_FAILED', family: 'dns_failed' } } });
    await expect.poll(() => text(page, `${fx} [data-testid="card-failing"]`))
      .toBe('Its last call failed: the site\'s address could not be found. (code DNS_FAILED)');
    await emit(page, 'host-event', { kind: 'plugin_changed', slug: 'fx', change: 'status', card: { ...fxCard(), failing: null } });
    await expect.poll(() => page.locator(`${fx} [data-testid="card-failing"]`).count()).toBe(0);
  });

  test('Details says it too, under the status, in French as in English', async () => {
    for (const [language, words] of [
      ['en', 'Its last 3 calls failed: the service refused the key. Check it in Options. (code HTTP_401)'],
      ['fr', null],
    ] as const) {
      const page = await app({ language, fxFailing: { calls: 3, code: 'HTTP_401', family: 'key_refused' } });
      await page.locator('[data-testid="card-fx"] [data-testid="card-details"]').click();
      const said = await text(page, '[data-testid="details-failing"]');
      if (words) expect(said).toBe(words);
      else expect(said.startsWith('Ses 3 derniers appels ont échoué : ') && said.endsWith('HTTP_401)')).toBe(true);
      expect(said).toBe(await text(page, '[data-testid="card-fx"] [data-testid="card-failing"]'));
      await win.close();
    }
  });

  test('in French', async () => {
    const page = await app({ language: 'fr' });
    await emit(page, 'host-event', { kind: 'plugin_changed', slug: 'fx', change: 'status', card: { ...fxCard(), failing: { calls: 3, code: 'HTTP_401', family: 'key_refused' } } });
    await expect.poll(() => text(page, '[data-testid="card-fx"] [data-testid="card-failing"]')).toMatch(/^Ses 3 derniers appels ont échoué : .+ \(code HTTP_401\)$/);
    await emit(page, 'host-event', { kind: 'plugin_changed', slug: 'fx', change: 'status', card: { ...fxCard(), failing: { calls: 1, code: 'HTTP_401', family: 'key_refused' } } });
    await expect.poll(() => text(page, '[data-testid="card-fx"] [data-testid="card-failing"]')).toMatch(/^Son dernier appel a échoué : /);
  });
});

describe('§19 Actions: an event line shows its event only when it has one', () => {
  test('a bad token, journaled before any event was read: "event", the reason in words, no "-"', async () => {
    for (const [language, event, reason] of [
      ['en', 'event', 'refused: the program sent a wrong token (copy it again in the plugin\'s Details, Events)'],
      ['fr', 'événement', 'refusé : le programme a envoyé un mauvais jeton (recopiez-le dans les Détails du plugin, Événements)'],
    ] as const) {
      const page = await app({ language, journalSize: 3 });
      await page.getByRole('tab', { name: 'Actions', exact: true }).click();
      const rows = page.locator('[data-testid="journal-row"]');
      await expect.poll(() => rows.count()).toBe(3);
      const line = { ...real.journal[0], id: 4, at: Date.now(), plugin: 'pomodoro', action: '-', who: 'event', kind: 'event', outcome: 'refused', code: 'bad_token', subject: null, detail: null };
      await emit(page, 'host-event', { kind: 'journal_added', entry: line });
      await expect.poll(() => rows.count()).toBe(4);
      const cells = await rows.first().locator('td').allInnerTexts();
      expect(cells[2]).toBe(event);
      expect(cells[4]).toBe(reason);
      expect(cells.join(' ')).not.toContain(': -');
      if (language === 'en') await shot(page, 'journal-unnamed-event');
      await win.close();
    }
  });
});

describe('French: nothing left in English', () => {
  test('the first paint is already French (the language is read before it)', async () => {
    // Records the first text the app's root ever shows, before any script of the app runs.
    const opened = await win.open({ language: 'fr' }, false);
    await opened.page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        const root = document.getElementById('app');
        const shown = root?.innerText.trim();
        if (!shown) return;
        (window as any).__firstPaint = shown;
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    await opened.page.reload();
    await opened.page.waitForSelector('body[data-startup-ms]');
    const first = await opened.page.evaluate(() => (window as any).__firstPaint as string);
    expect(first).toContain('Compagnon');
    expect(first).not.toMatch(/\bCompanion\b|\bSettings\b|Language/);
  });

  test('the secrets banner, the catalog\'s official plugins, "1 plugin sur N", the file picker\'s type', async () => {
    const page = await app({ language: 'fr', secretsWarning: 'Secrets are kept only until this PC restarts: no keyring.' });
    const banner = await text(page, '[data-testid="secrets-warning"]');
    expect(banner).toContain('Les secrets ne sont gardés que jusqu\'au redémarrage de ce PC');
    expect(banner).not.toContain('Secrets are kept');
    const count = page.locator('.mine .count');
    const total = await page.locator('li.card').count();
    expect(await count.innerText()).toBe(`${total} plugins sur ${total}`);
    await page.locator('[data-testid="search"]').fill('Exchange');
    await expect.poll(() => count.innerText()).toBe(`1 plugin sur ${total}`);
    await shot(page, 'french-count');
    await page.getByRole('tab', { name: 'Catalogue', exact: true }).click();
    expect(await text(page, '[data-testid="catalog-todoist"]')).toContain('Lit, ajoute et termine les tâches de votre compte Todoist');
    expect(await text(page, '[data-testid="catalog-trello"]')).toContain('Lit l\'un de vos tableaux Trello');
    expect(await text(page, '[data-testid="catalog"], .catalog')).not.toContain('Reads');
    await page.locator('[data-testid="import-file"]').click();
    await expect.poll(() => calls(page, 'pick_plugin_file')).toEqual([{ filter: 'Plugin de compagnon' }]);
    await shot(page, 'french-catalog');
    // Its consent screen says it in French too.
    await page.locator('[data-testid="catalog-install-trello"]').click();
    await page.locator('[data-testid="consent"]').waitFor();
    expect(await text(page, '[data-testid="consent"]')).toContain('Lit l\'un de vos tableaux Trello');
    expect(await text(page, '[data-testid="consent"]')).not.toContain('Reads one of your Trello boards');
  });

  test('Try an action names an argument\'s type in words: "(nombre entier)", not "(integer)"', async () => {
    const page = await app({ language: 'fr', devMode: true });
    await page.locator('[data-testid="card-pomodoro"] [data-testid="card-details"]').click();
    await page.locator('[data-testid="try-tool"]').selectOption('pomodoro__start');
    const field = page.locator('.field', { has: page.locator('[data-testid="try-arg-minutes"]') });
    expect(await field.locator('label').innerText()).toBe('minutes (nombre entier)');
    expect(await text(page, '[data-testid="details"]')).not.toContain('(integer)');
    await shot(page, 'french-try-integer');
  });
});

describe('Modals', () => {
  test('the wheel does not scroll the page behind an open modal; the page scrolls again once it is closed', async () => {
    const page = await app({ many: 40 });
    const scrollY = () => page.evaluate(() => window.scrollY);
    // A card down the page (the click scrolls to it): the page is scrolled when its Details opens.
    await page.locator('[data-testid="card-p010"] [data-testid="card-details"]').click();
    await page.locator('[data-testid="details"]').waitFor();
    const y = await scrollY();
    expect(y).toBeGreaterThan(0);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).overflow)).toBe('hidden');
    await page.mouse.move(20, 400); // over the backdrop, beside the dialog
    await page.mouse.wheel(0, 600);
    await page.waitForTimeout(300);
    expect(await scrollY()).toBe(y);
    await page.keyboard.press('Escape');
    await page.locator('[data-testid="details"]').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).overflow)).not.toBe('hidden');
    expect(await scrollY()).toBe(y);
    await page.mouse.wheel(0, 300);
    await expect.poll(scrollY).toBeGreaterThan(y);
  });

  test('Install\'s reason for being disabled is beside the button, in view, on a long consent screen', async () => {
    const page = await app();
    await page.setViewportSize({ width: 1100, height: 560 });
    await page.evaluate(() => { (window as any).__nextPick = '/home/p/one-setting.json'; });
    await page.getByRole('tab', { name: 'Catalog', exact: true }).click();
    await page.locator('[data-testid="import-file"]').click();
    await page.locator('[data-testid="consent"]').waitFor();
    // Longer than the window: the dialog scrolls, its top is in view, its end is not.
    expect(await page.evaluate(() => {
      const d = document.querySelector('[data-testid="consent"]')!;
      return d.scrollHeight > d.clientHeight + 40 && d.scrollTop === 0;
    })).toBe(true);
    expect(await page.locator('[data-testid="consent-install"]').isDisabled()).toBe(true);
    expect(await inView(page, '[data-testid="consent-install"]')).toBe(true);
    expect(await inView(page, '[data-testid="consent-missing"]')).toBe(true);
    expect(await text(page, '[data-testid="consent-missing"]')).toBe(await page.evaluate(() => {
      const id = document.querySelector('[data-testid="consent-install"]')!.getAttribute('aria-describedby')!;
      return (document.getElementById(id) as HTMLElement).innerText;
    }));
    const [reason, button] = await Promise.all([top(page, '[data-testid="consent-missing"]'), top(page, '[data-testid="consent-install"]')]);
    expect(Math.abs(reason - button)).toBeLessThan(40);
    await page.screenshot({ path: `${RESULTS}/consent-install-reason.png` });
    await page.locator('[data-testid="setting-city"]').fill('Lyon');
    await expect.poll(() => page.locator('[data-testid="consent-missing"]').count()).toBe(0);
    expect(await page.locator('[data-testid="consent-install"]').isDisabled()).toBe(false);
  });

  test('turning developer mode on moves nothing below its switch', async () => {
    const page = await app();
    const marks = ['[role="tablist"].sub, .tabs.sub', '[data-testid="cards"]', '[data-testid="card-fx"]'];
    const before = await Promise.all(marks.map((m) => top(page, m)));
    await page.locator('[data-testid="dev-mode"]').click();
    await page.locator('[data-testid="load-folder"]').waitFor();
    expect(await Promise.all(marks.map((m) => top(page, m)))).toEqual(before);
    expect(await inView(page, '[data-testid="load-folder"]')).toBe(true);
    await shot(page, 'developer-on');
    await page.locator('[data-testid="dev-mode"]').click();
    await page.locator('[data-testid="load-folder"]').waitFor({ state: 'detached' });
    expect(await Promise.all(marks.map((m) => top(page, m)))).toEqual(before);
  });

  test('clearing a secret asks first, Cancel focused; Cancel clears nothing; Clear does', async () => {
    for (const language of ['en', 'fr'] as const) {
      const page = await app({ language, devMode: true });
      await page.locator('[data-testid="card-pomodoro"] [data-testid="card-options"]').click();
      await page.locator('[data-testid="secret-clear-token"]').click();
      const ask = page.locator('[data-testid="clear-confirm"]');
      await ask.waitFor();
      const title = await ask.locator('h2').innerText();
      const name = real.cards.find((c) => c.slug === 'pomodoro')!.name;
      expect(title).toBe(language === 'en' ? `Clear the Server token of ${name}?` : `Effacer « Server token » de ${name} ?`);
      expect(await ask.innerText()).toContain(language === 'en' ? 'The plugin will need setup again.' : 'Le plugin devra être configuré à nouveau.');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('clear-no');
      if (language === 'en') {
        expect(await axe(page)).toEqual([]);
        await shot(page, 'clear-secret-confirm');
      }
      await page.keyboard.press('Enter');
      await ask.waitFor({ state: 'detached' });
      expect(await calls(page, 'clear_secret')).toEqual([]);
      expect(await page.locator('[data-testid="options"]').isVisible()).toBe(true);
      await page.locator('[data-testid="secret-clear-token"]').click();
      await page.locator('[data-testid="clear-yes"]').click();
      await expect.poll(() => calls(page, 'clear_secret')).toEqual([{ slug: 'pomodoro', key: 'token' }]);
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('setting-token');
      await win.close();
    }
  });
});
