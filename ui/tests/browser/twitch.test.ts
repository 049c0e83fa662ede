// The Twitch chat (issue 36), the host mocked (mock-host.ts answers the chat's
// commands and reports its state as `twitch` host events, as the host does):
// the Tools tab's section connects a channel and shows its state in words,
// stream mode while connected, the prefix, the pause switch, the ignored
// viewers and what was dropped; the Companion tab shows the chat's status
// line, the Live switch on and locked, and a viewer's turn as its lines come.
import { describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import type { TurnLine } from '../../src/ui/companion';
import { axe, calls, emit, shot, windows } from './harness';

const win = windows();
const text = (page: Page, testid: string) => page.locator(`[data-testid="${testid}"]`).innerText();
const OLLAMA = { url: 'http://127.0.0.1:11434/v1', model: 'llama3.2' };

/** The app on the Tools tab, its Twitch section drawn. */
async function tools(scenario: Record<string, unknown> = {}): Promise<Page> {
  const { page } = await win.open(scenario);
  await page.getByRole('tab', { name: scenario.language === 'fr' ? 'Outils' : 'Tools', exact: true }).click();
  await page.locator('[data-testid="twitch-state"]').waitFor();
  return page;
}

/** The app on the Companion tab. */
async function companion(scenario: Record<string, unknown> = {}): Promise<Page> {
  const { page } = await win.open(scenario);
  await page.getByRole('tab', { name: scenario.language === 'fr' ? 'Compagnon' : 'Companion', exact: true }).click();
  await page.locator('[data-testid="companion-text"]').waitFor();
  return page;
}

/** Turns Pause chat turns on. The switch shows what the host reports, so it turns on when the host's
 * status arrives, not at the click: Playwright's `check()` wants the change at once and fails on a
 * loaded machine. */
async function pause(page: Page): Promise<void> {
  const paused = page.getByRole('switch', { name: 'Pause chat turns' });
  await paused.click();
  await expect.poll(() => paused.isChecked()).toBe(true);
}

/** A viewer's turn as the window's shell emits it: the `viewer` line first, then the `twitch` turn, its answer. */
const VIEWER_TURN: TurnLine[] = [
  { type: 'viewer', name: 'Ada_L', text: 'what is 20 euros in yen?' },
  { type: 'turn', id: 't9', source: 'twitch', text: 'what is 20 euros in yen?' },
  {
    type: 'tool', step: 1, tool: 'fx__convert', args: { amount: 20 }, outcome: 'done', code: null, reason: null, family: null,
    plugin: 'Exchange rates', hint: 'convert money between currencies', sent: null, for_ai: '{"amount":20}',
  },
  { type: 'reply', text: 'About 3,400 yen.' },
  { type: 'end', steps: 1 },
];

describe('issue 36: the Twitch chat in the Tools tab', () => {
  test('connect a channel: Connecting, then Connected with stream mode on; Disconnect: Not connected', async () => {
    const page = await tools();
    expect(await text(page, 'twitch-state')).toBe('Not connected');
    expect(await text(page, 'twitch-where')).toBe('The app connects to irc.chat.twitch.tv, port 6697.');
    const channel = page.getByLabel('Your Twitch channel', { exact: true });
    await channel.fill('#MyChannel');
    await channel.press('Enter');
    await expect.poll(() => text(page, 'twitch-state')).toContain('Connecting to #mychannel…');
    await expect.poll(() => text(page, 'twitch-state')).toContain('Connected to #mychannel');
    expect(await text(page, 'twitch-stream-mode')).toContain('Stream mode is on while the chat is connected');
    expect(await calls(page, 'twitch_connect')).toEqual([{ channel: '#MyChannel' }]);
    expect(await channel.isDisabled()).toBe(true);
    expect(await axe(page)).toEqual([]);
    await shot(page, 'twitch-tools-connected');

    await page.locator('[data-testid="twitch-disconnect"]').click();
    await expect.poll(() => text(page, 'twitch-state')).toBe('Not connected');
    expect(await page.locator('[data-testid="twitch-stream-mode"]').count()).toBe(0);
    expect(await calls(page, 'twitch_disconnect')).toHaveLength(1);
  });

  test('a connect answered after its Connected report still shows Connected: the reports decide, in their order', async () => {
    const page = await tools({ twitchFast: true });
    await page.getByLabel('Your Twitch channel', { exact: true }).fill('mychannel');
    await page.locator('[data-testid="twitch-connect"]').click();
    await expect.poll(() => calls(page, 'twitch_connect')).toHaveLength(1);
    // The answer (Connecting) comes 300 ms after the report of Connected.
    await page.waitForTimeout(600);
    expect(await text(page, 'twitch-state')).toContain('Connected to #mychannel');
  });

  test('a name the host refuses is said next to the field; a connection that fails says it reconnects, and why', async () => {
    const page = await tools({ twitchDown: 'network' });
    const channel = page.getByLabel('Your Twitch channel', { exact: true });
    await channel.fill('my channel');
    await page.locator('[data-testid="twitch-connect"]').click();
    await expect.poll(() => text(page, 'twitch-channel-error')).toBe('This is not a Twitch channel name. Type the name from your channel\'s address, twitch.tv/name: letters, digits and _, up to 25.');
    expect(await channel.getAttribute('aria-invalid')).toBe('true');
    expect(await text(page, 'twitch-state')).toBe('Not connected');
    await channel.fill('mychannel');
    await page.locator('[data-testid="twitch-connect"]').click();
    await expect.poll(() => text(page, 'twitch-state'))
      .toContain('Reconnecting to #mychannel in 4 s — Twitch could not be reached (check your internet connection).');
    expect(await page.locator('[data-testid="twitch-channel-error"]').count()).toBe(0);
  });

  test('the prefix, the pause switch and the ignored viewers are the host\'s; what was dropped shows in small print', async () => {
    const page = await tools({ twitchChannel: 'mychannel', twitchDropped: { cooldown: 3, deleted: 1 } });
    expect(await text(page, 'twitch-counts')).toBe('2 questions answered, 1 waiting. Not answered: 3 too soon after the same viewer\'s last, 1 deleted by a moderator.');
    const prefix = page.getByLabel('Prefix', { exact: true });
    expect(await prefix.inputValue()).toBe('!ask');
    await prefix.fill('!bad prefix');
    await page.locator('[data-testid="twitch-prefix-save"]').click();
    await expect.poll(() => text(page, 'twitch-prefix-error')).toBe('This prefix can\'t be used. Use 1 to 20 characters without spaces, like !ask.');
    await prefix.fill('!q');
    await prefix.press('Enter');
    await expect.poll(() => page.locator('[data-testid="twitch-prefix-error"]').count()).toBe(0);
    expect(await calls(page, 'twitch_settings')).toContainEqual({ prefix: '!q', paused: null, ignore: null, unignore: null });
    expect(await page.locator('#' + await prefix.getAttribute('aria-describedby')).innerText()).toContain('starts with !q');

    await pause(page);
    await expect.poll(() => calls(page, 'twitch_settings')).toContainEqual({ prefix: null, paused: true, ignore: null, unignore: null });
    expect(await text(page, 'twitch-state')).toContain('Connected to #mychannel');

    expect(await text(page, 'twitch-ignored-none')).toBe('No viewer is ignored.');
    const login = page.getByLabel('Viewer\'s name', { exact: true });
    await login.fill('Some_Troll');
    await login.press('Enter');
    await expect.poll(() => page.locator('[data-testid="twitch-ignored"] li').allInnerTexts()).toEqual([expect.stringContaining('some_troll')]);
    expect(await login.inputValue()).toBe('');
    await page.getByRole('button', { name: 'Stop ignoring some_troll' }).click();
    await expect.poll(() => text(page, 'twitch-ignored-none')).toBe('No viewer is ignored.');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'twitch-tools-settings');
  });

  test('French: every word of the section', async () => {
    const page = await tools({ language: 'fr', twitchChannel: 'machaine' });
    expect(await text(page, 'twitch-state')).toContain('Connecté à #machaine');
    expect(await text(page, 'twitch-stream-mode')).toContain('Le mode stream est activé');
    expect(await page.getByRole('button', { name: 'Déconnecter' }).count()).toBe(1);
  });
});

describe('issue 36: the Twitch chat in the Companion tab', () => {
  test('while connected: the status line, the Live switch on and locked, a viewer\'s turn then its answer', async () => {
    const page = await companion({ ai: OLLAMA, twitchChannel: 'mychannel' });
    await expect.poll(() => text(page, 'companion-twitch')).toBe('Twitch chat #mychannel connected · stream mode on');
    const live = page.locator('[data-testid="companion-live"]');
    expect(await live.isChecked()).toBe(true);
    expect(await live.isDisabled()).toBe(true);
    // What is paused while live shows, as with the switch.
    await expect.poll(() => text(page, 'companion-paused')).toContain('Todoist');

    for (const line of VIEWER_TURN) await emit(page, 'companion-turn', line);
    const said = page.locator('[data-testid="said"]');
    await expect.poll(() => said.allInnerTexts()).toEqual(['Ada_L (Twitch chat): what is 20 euros in yen?']);
    await expect.poll(() => text(page, 'answer')).toBe('Companion: About 3,400 yen.');
    expect(await text(page, 'tool-line')).toBe('Exchange rates · convert money between currencies: done');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'twitch-companion');

    // The page sends its switch; the shell makes the turn live while the chat is connected.
    await page.locator('[data-testid="companion-text"]').fill('hello');
    await page.locator('[data-testid="companion-text"]').press('Enter');
    await expect.poll(() => calls(page, 'companion_say')).toEqual([{ text: 'hello', live: false }]);
  });

  test('paused: the status line says so; disconnected: no line, and the switch is the player\'s again', async () => {
    const page = await companion({ twitchChannel: 'mychannel' });
    await page.getByRole('tab', { name: 'Tools', exact: true }).click();
    await pause(page);
    await page.getByRole('tab', { name: 'Companion', exact: true }).click();
    await expect.poll(() => text(page, 'companion-twitch')).toBe('Twitch chat #mychannel connected · chat turns paused · stream mode on');
    await page.getByRole('tab', { name: 'Tools', exact: true }).click();
    await page.locator('[data-testid="twitch-disconnect"]').click();
    await expect.poll(() => text(page, 'twitch-state')).toBe('Not connected');
    await page.getByRole('tab', { name: 'Companion', exact: true }).click();
    expect(await page.locator('[data-testid="companion-twitch"]').count()).toBe(0);
    const live = page.locator('[data-testid="companion-live"]');
    expect(await live.isChecked()).toBe(false);
    expect(await live.isDisabled()).toBe(false);
  });

  test('French: the status line and the viewer\'s line', async () => {
    const page = await companion({ language: 'fr', ai: OLLAMA, twitchChannel: 'machaine' });
    await expect.poll(() => text(page, 'companion-twitch')).toBe('Chat Twitch #machaine connecté · mode stream activé');
    for (const line of VIEWER_TURN) await emit(page, 'companion-turn', line);
    await expect.poll(() => page.locator('[data-testid="said"]').allInnerTexts()).toEqual(['Ada_L (chat Twitch) : what is 20 euros in yen?']);
  });
});
