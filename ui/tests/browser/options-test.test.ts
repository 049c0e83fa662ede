// Options' Test (§18, issue 23): a plugin whose read action needs values its schema does not give
// (the exchange-rates example's amount), or that has no action that only reads, is told so plainly
// with what to do, not as a failure in red; in English and French, from the keyboard.
import { describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, calls, windows } from './harness';

const win = windows();

/** Opens fx's Options in a scenario and presses Test with the keyboard; gives the result line. */
async function tested(scenario: Record<string, unknown>): Promise<{ page: Page; words: string; cls: string }> {
  const { page } = await win.open(scenario);
  await page.getByRole('tab', { name: 'Plugins', exact: true }).click();
  await page.locator('[data-testid="card-fx"] [data-testid="card-options"]').click();
  await page.locator('[data-testid="options-test"]').focus();
  await page.keyboard.press('Enter');
  const result = page.locator('[data-testid="options-test-result"]');
  await expect.poll(() => result.innerText()).not.toBe('');
  return { page, words: await result.innerText(), cls: (await result.getAttribute('class')) ?? '' };
}

describe("Options' Test that has nothing it may call", () => {
  test('a read action needing values says which, and where to try it, not in red', async () => {
    const { page, words, cls } = await tested({ testNeeds: true });
    expect(words).toBe('fx__convert needs a value for amount, from, and to, and Test does not make one up: '
      + 'ask your companion, or try it in Details › Try an action (developer mode).');
    expect(cls).not.toContain('field-error');
    expect(await calls(page, 'test_plugin')).toEqual([{ slug: 'fx' }]);
    expect(await axe(page)).toEqual([]);
  });

  test('in French', async () => {
    const { words, cls } = await tested({ testNeeds: true, language: 'fr' });
    expect(words).toBe("fx__convert a besoin d'une valeur pour amount, from et to, et Tester n'en invente pas : "
      + 'demandez à votre compagnon, ou essayez-la dans Détails › Essayer une action (mode développeur).');
    expect(cls).not.toContain('field-error');
  });

  test('a plugin with no action that only reads says so, not as a failure', async () => {
    const { words, cls } = await tested({ testNothing: true });
    expect(words).toBe("Nothing to test: none of this plugin's actions only reads. Ask your companion to use it, "
      + 'or try an action in Details › Try an action (developer mode).');
    expect(cls).not.toContain('field-error');
  });

  test('a real failure is still shown as one', async () => {
    const { cls } = await tested({ testFails: true });
    expect(cls).toContain('field-error');
  });
});
