// The AI settings in the Tools tab (§13), the host mocked (mock-host.ts):
// the servers found on this PC, an address typed by hand and its refusals,
// an online service with its key, Test and each of its failures.
import { describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, calls, shot, windows } from './harness';

const win = windows();
/** The app with a scenario, on the Tools tab, once the AI section has read the settings and looked on this PC. */
async function tools(scenario: Record<string, unknown> = {}): Promise<Page> {
  const { page } = await win.open(scenario);
  await page.getByRole('tab', { name: scenario.language === 'fr' ? 'Outils' : 'Tools', exact: true }).click();
  await page.locator('[data-testid="ai-where"]').waitFor();
  await page.locator('[data-testid="ai-look"]:not([disabled])').waitFor();
  return page;
}

const text = (page: Page, testid: string) => page.locator(`[data-testid="${testid}"]`).innerText();
const OLLAMA = { url: 'http://127.0.0.1:11434/v1', models: ['llama3.2', 'qwen2.5:7b'] };
const OPENROUTER = 'https://openrouter.ai/api/v1';

describe('§13 AI settings', () => {
  test('no AI set and none on this PC: what to do, and Test says it with its code', async () => {
    const page = await tools();
    expect(await text(page, 'ai-where')).toBe('No AI is set yet: choose one on this PC, or type the address of an online service below.');
    // The servers looked for are the host's list (pc_servers), which may answer after the search.
    // Each with every port the host looks on (issue 34: llama.cpp's 8080 and 9931), none written here.
    await expect.poll(() => text(page, 'ai-pc-explain')).toBe('The app looks for Ollama (port 11434), LM Studio (port 1234), and llama.cpp (port 8080 or 9931).');
    expect(await text(page, 'ai-pc-none')).toBe('None of them answers. Start Ollama, LM Studio, or llama.cpp, then look again.');
    expect(await page.locator('[data-testid="ai-key"]').count()).toBe(0);
    expect(await page.getByLabel('Address', { exact: true }).getAttribute('placeholder')).toBe(OPENROUTER);
    await page.locator('[data-testid="ai-test"]').click();
    await expect.poll(() => text(page, 'ai-test-result')).toBe('No AI is set: choose one on this PC, or type an address and a model.');
    await page.locator('[data-testid="ai-test-details"] summary').click();
    expect(await text(page, 'ai-test-details')).toContain('ai_not_set');
    expect(await calls(page, 'find_pc_ai')).toHaveLength(1);
    expect(await axe(page)).toEqual([]);
    await shot(page, 'ai-none');
  });

  test('servers found on this PC: their models, one click uses one and tests it', async () => {
    const page = await tools({ pcAi: [OLLAMA, { url: 'http://127.0.0.1:1234/v1', models: [] }] });
    const servers = page.locator('[data-testid="ai-pc-server"]');
    expect(await servers.count()).toBe(2);
    expect(await servers.nth(0).locator('strong').innerText()).toBe('Ollama');
    expect(await servers.nth(1).innerText()).toContain('LM Studio');
    expect(await servers.nth(1).innerText()).toContain('It has no model yet');
    await page.getByRole('button', { name: 'Use qwen2.5:7b on Ollama' }).click();
    await expect.poll(() => text(page, 'ai-test-result')).toBe('Connected: 2 models');
    expect(await calls(page, 'set_ai')).toEqual([{ url: OLLAMA.url, model: 'qwen2.5:7b' }]);
    // The player's click: a server that does not say may be sent the probe request.
    expect(await calls(page, 'ai_test')).toEqual([{ probe: true }]);
    expect(await text(page, 'ai-where')).toContain('On this PC: what your plugins return stays on this PC.');
    expect(await text(page, 'ai-where')).toContain(`Address ${OLLAMA.url} · model qwen2.5:7b`);
    expect(await page.getByRole('button', { name: 'Use qwen2.5:7b on Ollama' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('[data-testid="ai-kept"]').count()).toBe(0);
    // A server on this PC asks no key: no key row to puzzle over.
    expect(await page.locator('[data-testid="ai-key"]').count()).toBe(0);
    // The model field offers the server's models.
    expect(await page.locator('datalist option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(OLLAMA.models);
    expect(await axe(page)).toEqual([]);
    await shot(page, 'ai-pc-found');
  });

  test('a refused address is said next to its field and nothing is kept; then one typed by hand is kept', async () => {
    const page = await tools();
    const url = page.getByLabel('Address', { exact: true });
    await url.fill('http://192.168.1.20:11434/v1');
    await page.getByLabel('Model', { exact: true }).fill('llama3.2');
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => text(page, 'ai-url-error')).toBe('This address is on your local network. An AI is either on this PC (127.0.0.1) or online at a public https address.');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    const described = await url.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).innerText()).toContain('local network');
    await url.fill('http://openrouter.ai/api/v1');
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => text(page, 'ai-url-error')).toContain('This address can\'t be used');
    expect(await text(page, 'ai-where')).toContain('No AI is set yet');
    expect(await axe(page)).toEqual([]);
    await shot(page, 'ai-refused-url');
    await url.fill('http://127.0.0.1:5001/v1');
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => text(page, 'ai-note')).toBe('Saved');
    expect(await page.locator('[data-testid="ai-url-error"]').count()).toBe(0);
    expect(await text(page, 'ai-where')).toContain('On this PC');
    expect((await calls(page, 'set_ai')).at(-1)).toEqual({ url: 'http://127.0.0.1:5001/v1', model: 'llama3.2' });
  });

  test('online: where it runs and which plugins are kept on this PC; the key is Set, replaced and cleared, never read back', async () => {
    const page = await tools();
    await page.getByLabel('Address', { exact: true }).fill(OPENROUTER);
    await page.getByLabel('Model', { exact: true }).fill('openai/gpt-4o-mini');
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => text(page, 'ai-where')).toContain('Online: what your plugins return is sent to this service.');
    // The official Todoist is kept on this PC (§13), the others are not.
    expect(await text(page, 'ai-kept')).toBe('Kept on this PC, so not used with this AI: Todoist.');
    expect(await text(page, 'ai-key-state')).toBe('Not set');
    const secret = 'sk-or-v1-do-not-show-me';
    await page.getByLabel('API key', { exact: true }).fill(secret);
    await page.locator('[data-testid="ai-key-save"]').click();
    await expect.poll(() => text(page, 'ai-key-state')).toBe('Set');
    expect(await calls(page, 'set_ai_key')).toEqual([{ key: secret }]);
    expect(await page.locator('[data-testid="ai-key-input"]').count()).toBe(0);
    const inPage = () => page.evaluate((s) => document.documentElement.outerHTML.includes(s)
      || [...document.querySelectorAll('input')].some((i) => i.value.includes(s)), secret);
    expect(await inPage()).toBe(false);
    expect(await axe(page)).toEqual([]);
    await shot(page, 'ai-online-key-set');
    await page.getByRole('button', { name: 'Replace API key' }).click();
    expect(await page.locator('[data-testid="ai-key-input"]').inputValue()).toBe('');
    expect(await text(page, 'ai-key-state')).toBe('Set');
    await page.getByLabel('API key', { exact: true }).fill('half typed');
    await page.locator('[data-testid="ai-key-cancel"]').click();
    expect(await calls(page, 'set_ai_key')).toHaveLength(1);
    await page.getByRole('button', { name: 'Clear API key' }).click();
    await expect.poll(() => text(page, 'ai-key-state')).toBe('Not set');
    expect(await calls(page, 'clear_ai_key')).toHaveLength(1);
    expect(await inPage()).toBe(false);
    await page.locator('[data-testid="ai-test"]').click();
    await expect.poll(() => text(page, 'ai-test-result')).toBe('Connected: 3 models');
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('openai/gpt-4o-mini');
    expect(await page.locator('[data-testid="ai-settings"]').innerText()).toContain('Choose among the service\'s 3 models, or type one.');
  });

  test('issue 34: Test says whether the model can use tools, and names a model that can; unknown is said too', async () => {
    const cannot = await tools({ pcAi: [OLLAMA], aiTools: { tools: false, tool_model: 'qwen2.5' } });
    await cannot.getByRole('button', { name: 'Use qwen2.5:7b on Ollama' }).click();
    await expect.poll(() => text(cannot, 'ai-test-result')).toBe('Connected: 2 models');
    expect(await text(cannot, 'ai-test-tools')).toBe('This model cannot use tools: your plugins will not be used. Choose another model, e.g. qwen2.5.');
    expect(await axe(cannot)).toEqual([]);
    const can = await tools({ pcAi: [OLLAMA], aiTools: { tools: true } });
    await can.getByRole('button', { name: 'Use qwen2.5:7b on Ollama' }).click();
    await expect.poll(() => text(can, 'ai-test-tools')).toBe('This model can use your plugins.');
    const unknown = await tools({ pcAi: [OLLAMA] });
    await unknown.getByRole('button', { name: 'Use qwen2.5:7b on Ollama' }).click();
    await expect.poll(() => text(unknown, 'ai-test-result')).toBe('Connected: 2 models');
    expect(await text(unknown, 'ai-test-tools')).toBe('Could not tell whether this model can use tools: the server does not say. If your plugins are never used, choose a model that supports tool calling.');
    // An online service is not asked: said so.
    const online = await tools({ ai: { url: OPENROUTER, model: 'openai/gpt-4o-mini', key_set: true } });
    await online.locator('[data-testid="ai-test"]').click();
    await expect.poll(() => text(online, 'ai-test-tools')).toContain('an online service is not asked');
    expect(await axe(online)).toEqual([]);
  });

  test('issue 34: an AI of this PC is tested as the section opens: whether its model can use tools shows without a click', async () => {
    const page = await tools({ ai: { url: OLLAMA.url, model: 'llama3.2' }, pcAi: [OLLAMA], aiTools: { tools: false, tool_model: 'qwen2.5' } });
    await expect.poll(() => text(page, 'ai-test-tools')).toBe('This model cannot use tools: your plugins will not be used. Choose another model, e.g. qwen2.5.');
    expect(await text(page, 'ai-test-result')).toBe('Connected: 2 models');
    // The section's own look sends no probe request: it may load the model.
    expect(await calls(page, 'ai_test')).toEqual([{ probe: false }]);
    const can = await tools({ ai: { url: OLLAMA.url, model: 'llama3.2' }, pcAi: [OLLAMA], aiTools: { tools: true } });
    await expect.poll(() => text(can, 'ai-test-tools')).toBe('This model can use your plugins.');
    // An online service is asked only by Test.
    const online = await tools({ ai: { url: OPENROUTER, model: 'openai/gpt-4o-mini', key_set: true } });
    expect(await calls(online, 'ai_test')).toEqual([]);
    expect(await online.locator('[data-testid="ai-test-tools"]').count()).toBe(0);
  });

  test('issue 34: one model is one model, in English and French', async () => {
    const one = { url: OLLAMA.url, models: ['llama3.2'] };
    const page = await tools({ pcAi: [one] });
    await page.getByRole('button', { name: 'Use llama3.2 on Ollama' }).click();
    await expect.poll(() => text(page, 'ai-test-result')).toBe('Connected: 1 model');
    expect(await page.locator('[data-testid="ai-settings"]').innerText()).toContain('The service has 1 model: choose it, or type another.');
    const fr = await tools({ language: 'fr', pcAi: [one] });
    await fr.getByRole('button', { name: 'Utiliser llama3.2 sur Ollama' }).click();
    await expect.poll(() => text(fr, 'ai-test-result')).toBe('Connecté : 1 modèle');
    expect(await fr.locator('[data-testid="ai-settings"]').innerText()).toContain('Le service a 1 modèle : choisissez-le, ou tapez-en un autre.');
  });

  test('issue 34: the longest answer, with the host\'s bounds; a refused one is said next to its field and nothing is kept', async () => {
    const page = await tools({ ai: { url: OPENROUTER, model: 'openai/gpt-4o-mini', key_set: true } });
    const field = page.getByLabel('Longest answer (tokens)', { exact: true });
    expect(await field.inputValue()).toBe('2048');
    expect(await text(page, 'ai-max-tokens-help')).toBe('A longer answer is cut, and says so. From 16 to 32768; 2048 unless you set another (leave it empty for 2048).');
    await page.getByLabel('Model', { exact: true }).fill('qwen/qwen-2.5-72b-instruct');
    await field.fill('many');
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => text(page, 'ai-max-tokens-error')).toBe('Type a whole number from 16 to 32768, or leave it empty for 2048.');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await field.getAttribute('aria-describedby')).toContain('-tokens-e');
    expect(await calls(page, 'set_ai'), 'a refused length keeps everything as it was').toEqual([]);
    expect(await text(page, 'ai-note')).toBe('');
    expect(await axe(page)).toEqual([]);
    await field.fill('300');
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => text(page, 'ai-note')).toBe('Saved');
    expect(await page.locator('[data-testid="ai-max-tokens-error"]').count()).toBe(0);
    expect(await calls(page, 'set_ai_max_tokens')).toEqual([{ maxTokens: 'many' }, { maxTokens: '300' }]);
    expect((await calls(page, 'set_ai')).at(-1)).toEqual({ url: null, model: 'qwen/qwen-2.5-72b-instruct' });
    expect(await field.inputValue()).toBe('300');
    // Empty: back to the default.
    await field.fill('');
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => field.inputValue()).toBe('2048');
    expect((await calls(page, 'set_ai_max_tokens')).at(-1)).toEqual({ maxTokens: null });
    // Saved again unchanged: not sent again.
    await page.locator('[data-testid="ai-save"]').click();
    await expect.poll(() => calls(page, 'set_ai').then((c) => c.length)).toBe(3);
    expect(await calls(page, 'set_ai_max_tokens')).toHaveLength(3);
  });

  test('Test with an address and a model typed but not saved keeps them first, then tests them', async () => {
    const page = await tools({ pcAi: [OLLAMA] });
    await page.getByLabel('Address', { exact: true }).fill(OLLAMA.url);
    await page.getByLabel('Model', { exact: true }).fill('llama3.2');
    await page.locator('[data-testid="ai-test"]').click();
    await expect.poll(() => text(page, 'ai-test-result')).toBe('Connected: 2 models');
    expect(await calls(page, 'set_ai')).toEqual([{ url: OLLAMA.url, model: 'llama3.2' }]);
    // Nothing typed since: Test again only tests.
    await page.locator('[data-testid="ai-test"]').click();
    await expect.poll(() => calls(page, 'ai_test').then((c) => c.length)).toBe(2);
    expect(await calls(page, 'set_ai')).toHaveLength(1);
  });

  test('a refused address typed then tested is said next to the field, and nothing is tested', async () => {
    const page = await tools();
    await page.getByLabel('Address', { exact: true }).fill('ftp://example.com/v1');
    await page.locator('[data-testid="ai-test"]').click();
    await expect.poll(() => text(page, 'ai-url-error')).toContain('This address can\'t be used');
    expect(await calls(page, 'ai_test')).toEqual([]);
    expect(await text(page, 'ai-test-result')).toBe('');
  });

  test('Test: each failure in words, its code as detail', async () => {
    const page = await tools({ ai: { url: 'http://127.0.0.1:11434/v1', model: 'llama3.2' }, pcAi: [OLLAMA] });
    const want: [string, string][] = [
      ['ai_not_listening', 'Nothing answers at http://127.0.0.1:11434/v1. Start Ollama (it listens on port 11434), then Test again.'],
      ['ai_key_refused', 'The service refused the API key. Copy the key again from your account, then Replace it.'],
      ['ai_model_unknown', 'The service doesn\'t know the model llama3.2: choose one from its list.'],
      ['ai_no_tools', 'The model llama3.2 can\'t use tools: choose a model that supports tool calling.'],
      ['ai_timeout', 'The AI did not answer in time. It may still be loading the model: try again in a moment.'],
      ['ai_redirect', 'This address sends elsewhere, which the app never follows: type the address it points to.'],
      ['ai_http', 'The service answered with an error: the technical details say which.'],
      ['ai_bad_answer', 'The answer is not that of an AI service: check the address (it usually ends in /v1).'],
    ];
    for (const [code, words] of want) {
      // The mock reads its scenario at each call: Test fails with this code now.
      await page.evaluate((c) => { (window as any).__SCENARIO__.aiTestFails = c; }, code);
      await page.locator('[data-testid="ai-test"]').click();
      await expect.poll(() => text(page, 'ai-test-result'), { message: code }).toBe(words);
      expect(await page.locator('[data-testid="ai-test-result"]').getAttribute('class'), code).toBe('field-error');
      expect(await page.locator('[data-testid="ai-test-details"]').textContent(), code).toContain(`${code}: the AI at`);
    }
    expect(await axe(page)).toEqual([]);
    await shot(page, 'ai-test-failed');
  });

  test('issue 34: llama.cpp set on 9931 and not answering is told to listen on 9931, not its usual 8080, in English and French', async () => {
    const LLAMA_9931 = 'http://127.0.0.1:9931/v1';
    for (const [language, words] of [
      ['en', `Nothing answers at ${LLAMA_9931}. Start llama.cpp (it listens on port 9931), then Test again.`],
      ['fr', `Rien ne répond à ${LLAMA_9931}. Démarrez llama.cpp (il écoute sur le port 9931), puis testez à nouveau.`],
    ]) {
      const page = await tools({ language, ai: { url: LLAMA_9931, model: 'qwen' }, aiTestFails: 'ai_not_listening' });
      expect(await text(page, 'ai-where'), language).toContain(LLAMA_9931);
      await page.locator('[data-testid="ai-test"]').click();
      await expect.poll(() => text(page, 'ai-test-result'), { message: language }).toBe(words);
    }
  });

  test('keyboard only: from the Tools tab to the address, the model, Enter saves, then Test', async () => {
    const page = await tools();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? '');
    await page.getByRole('tab', { name: 'Tools', exact: true }).focus();
    let guard = 0;
    while ((await focused()) !== 'ai-url' && guard++ < 20) await page.keyboard.press('Tab');
    expect(await focused()).toBe('ai-url');
    await page.keyboard.type('http://127.0.0.1:8080/v1');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('ai-model');
    await page.keyboard.type('qwen');
    await page.keyboard.press('Enter');
    await expect.poll(() => text(page, 'ai-note')).toBe('Saved');
    expect(await calls(page, 'set_ai')).toEqual([{ url: 'http://127.0.0.1:8080/v1', model: 'qwen' }]);
    while ((await focused()) !== 'ai-test' && guard++ < 40) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    // No server of this scenario lists qwen: Test names the model it does not know.
    await expect.poll(() => text(page, 'ai-test-result')).toBe('The service doesn\'t know the model qwen: choose one from its list.');
  });

  test('French: the section and its answers', async () => {
    const page = await tools({ language: 'fr', ai: { url: OPENROUTER, model: 'nope/model', key_set: true } });
    expect(await text(page, 'ai-where')).toContain('En ligne : ce que renvoient vos plugins est envoyé à ce service.');
    expect(await text(page, 'ai-kept')).toBe('Gardés sur ce PC, donc pas utilisés avec cette IA : Todoist.');
    expect(await text(page, 'ai-key-state')).toBe('Défini');
    await page.getByRole('button', { name: 'Tester', exact: true }).click();
    await expect.poll(() => text(page, 'ai-test-result')).toBe('Le service ne connaît pas le modèle nope/model : choisissez-en un dans sa liste.');
    expect(await axe(page)).toEqual([]);
  });
});
