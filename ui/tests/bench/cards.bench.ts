// Issue 12, "smooth with 200 plugins": My plugins with 200 cards, each step
// timed beside the same step with 20 cards in the same run, printed as the
// ratio 200 / 20 (speed targets are printed by a bench, never asserted by a
// timed test). What a player does there: open the tab, see one card change
// live (a folder saved), type in the search box, switch a filter.
//
// Targets: a live change touches one card, so it costs about the same
// whatever the count (ratio ≤ 2); drawing, searching and filtering touch
// every card, so they may grow with the count, but no more than it (ratio
// ≤ 10, the count's own ratio) and each stays within a frame-ish 100 ms;
// opening the window with 200 cards, under 5 s. The browser tests asserted
// two wall times (200 cards drawn under 5 s, a change under 500 ms) until
// issue 32: on a loaded machine a wall time fails at random, so they are
// this bench's figures now (open, change), and the tests check what is drawn.
// The page is the real built UI in the system Chromium (harness.ts).
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { open, start, stop } from '../browser/harness';

beforeAll(start);
afterAll(stop);

/** The mock host has 4 plugins of its own; `many` adds this many more. */
const SMALL = 16;
const LARGE = 196;
const ROUNDS = 9;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs `step` (a script body; `round` is its round) in the page ROUNDS times,
 * each timed to two frames later (the change painted). Sent as an expression
 * through the devtools protocol, which the page's CSP (no eval) allows.
 */
async function timed(page: Page, step: string): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    times.push(await page.evaluate(`(async () => {
      const round = ${round};
      const t = performance.now();
      ${step}
      await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
      return performance.now() - t;
    })()`));
  }
  return median(times);
}

/** A live change of one card (a folder saved), as the host reports it. */
const CHANGE = `const c = window.__mock.cards.get('fx');
  await window.__mock.emit('host-event', { kind: 'plugin_changed', slug: 'fx', change: 'folder_saved', card: { ...c, version: '1.' + round + '.0' } });`;
/** A letter typed into the search box (alternating, so each round changes what is shown). */
const SEARCH = `const box = document.querySelector('input[type="search"]');
  box.value = round % 2 ? 'Plugin 1' : 'Plugin';
  box.dispatchEvent(new Event('input', { bubbles: true }));`;
/** A filter switched (alternating between Enabled and All). */
const FILTER = `document.querySelector(round % 2 ? '[data-testid="filter-all"]' : '[data-testid="filter-enabled"]').click();`;

interface Row { open: number; change: number; search: number; filter: number }

async function measure(many: number): Promise<Row> {
  const opens: number[] = [];
  let row: Row | null = null;
  for (let i = 0; i < 3; i++) {
    const t = Date.now();
    const { page, context } = await open({ many });
    // The window opens on the Companion tab (issue 23): the cards are drawn once Plugins is clicked.
    await page.getByRole('tab', { name: 'Plugins', exact: true }).click();
    await page.locator('li.card').first().waitFor();
    opens.push(Date.now() - t);
    expect(await page.locator('li.card').count()).toBe(many + 4);
    if (i === 0) {
      const change = await timed(page, CHANGE);
      expect(await page.locator('[data-testid="card-fx"] [data-testid="card-version"]').innerText()).toBe(`version 1.${ROUNDS - 1}.0`);
      const search = await timed(page, SEARCH);
      // The last round typed "Plugin": every added card, and not all of the mock's own 4.
      const shown = await page.locator('li.card').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid') ?? ''));
      expect(shown.filter((id) => /^card-p\d{3}$/.test(id))).toHaveLength(many);
      expect(shown.length).toBeLessThan(many + 4);
      row = { open: 0, change, search, filter: await timed(page, FILTER) };
    }
    await context.close();
  }
  return { ...row!, open: median(opens) };
}

test('My plugins with 200 cards beside 20', async () => {
  const small = await measure(SMALL);
  const large = await measure(LARGE);
  const lines = (Object.keys(small) as (keyof Row)[]).map((k) =>
    `${k.padEnd(7)} 20 cards ${small[k].toFixed(1).padStart(7)} ms   200 cards ${large[k].toFixed(1).padStart(7)} ms   ratio ${(large[k] / small[k]).toFixed(2)}×`);
  console.log([
    'My plugins (medians; open: launch, then the Plugins tab, to cards drawn, 3 launches; the others: 9 rounds to the next painted frame)', ...lines,
    'targets: change ratio ≤ 2; open, search, filter ratio ≤ 10; change, search, filter within 100 ms; open with 200 cards within 5000 ms',
  ].join('\n'));
});
