import { describe, expect, test } from 'vitest';
import { translator } from '../../src/i18n';
import type { AiCode, AiSettings, AiTest, ApiError, KnownServer } from '../../src/types';
import { isAiCode, keptOnPc, lookedForWords, maxTokensWords, noneWords, placeWords, problemWords, testWords, toolsWords } from '../../src/ui/ai-words';

const t = translator('en');
const tf = translator('fr');
const EVERY_CODE: AiCode[] = [
  'ai_not_set', 'ai_bad_url', 'ai_private_address', 'ai_not_listening', 'ai_key_refused', 'ai_model_unknown', 'ai_no_tools',
  'ai_timeout', 'ai_redirect', 'ai_http', 'ai_bad_answer',
];
/** Settings as the host sends them: where the AI runs and the known server there are its facts. */
const BOUNDS = { min: 16, max: 32768, default: 2048 };
const settings = (url: string | null, model: string | null, server?: AiSettings['server']): AiSettings =>
  ({ url, model, where: url === null ? null : url.startsWith('https://openrouter') ? 'online' : 'pc', key_set: false, server, max_tokens: 2048, max_tokens_bounds: BOUNDS });
const OLLAMA: KnownServer = { server: 'ollama', name: 'Ollama', port: 11434, ports: [11434] };
const LM_STUDIO: KnownServer = { server: 'lm_studio', name: 'LM Studio', port: 1234, ports: [1234] };
const LLAMA_CPP: KnownServer = { server: 'llama_cpp', name: 'llama.cpp', port: 8080, ports: [8080, 9931] };
const failed = (code: AiCode): AiTest => ({ ok: false, where: 'pc', models: [], code, message: 'the host says', tools: null });

describe('§13 the servers the app looks for on this PC, from the host\'s list', () => {
  const servers = [OLLAMA, LM_STUDIO, LLAMA_CPP];
  test('each with every port it is looked for on (issue 34), then the ones to start, in English and French', () => {
    expect(lookedForWords(t, 'en', servers)).toBe('The app looks for Ollama (port 11434), LM Studio (port 1234), and llama.cpp (port 8080 or 9931).');
    expect(noneWords(t, 'en', servers)).toBe('None of them answers. Start Ollama, LM Studio, or llama.cpp, then look again.');
    expect(lookedForWords(tf, 'fr', servers)).toBe('L\'application cherche Ollama (port 11434), LM Studio (port 1234) et llama.cpp (port 8080 ou 9931).');
    expect(noneWords(tf, 'fr', servers)).toBe('Aucun ne répond. Démarrez Ollama, LM Studio ou llama.cpp, puis cherchez à nouveau.');
  });
  test('a server the host adds is named with no change here', () => {
    const more = [...servers, { server: 'jan', name: 'Jan', port: 1337, ports: [1337] }] as unknown as typeof servers;
    expect(lookedForWords(t, 'en', more)).toContain('Jan (port 1337)');
  });
});

describe('§13 what went wrong, in words', () => {
  test('each code has its own sentence, in English and French, never the generic one', () => {
    for (const tr of [t, tf]) {
      const said = EVERY_CODE.map((c) => problemWords(tr, c, settings('http://127.0.0.1:11434/v1', 'llama3.2', OLLAMA)));
      expect(new Set(said).size, said.join('\n')).toBe(EVERY_CODE.length);
      expect(said).not.toContain(problemWords(tr, 'ai_what', null));
      for (const s of said) expect(s).not.toMatch(/\{\w+\}/);
    }
  });
  test('nothing listening says which server the host knows there to start, and on which port', () => {
    expect(problemWords(t, 'ai_not_listening', settings('http://127.0.0.1:11434/v1', 'm', OLLAMA)))
      .toBe('Nothing answers at http://127.0.0.1:11434/v1. Start Ollama (it listens on port 11434), then Test again.');
    expect(problemWords(t, 'ai_not_listening', settings('http://127.0.0.1:1234/v1', 'm', LM_STUDIO))).toContain('Start LM Studio (it listens on port 1234)');
    expect(problemWords(t, 'ai_not_listening', settings('http://127.0.0.1:5001/v1', 'm'))).toBe('Nothing answers at http://127.0.0.1:5001/v1. Start the AI server on this PC, then Test again.');
    expect(problemWords(t, 'ai_not_listening', settings('https://openrouter.ai/api/v1', 'm'))).toContain('Check the address and your internet connection');
    expect(problemWords(tf, 'ai_not_listening', settings('http://127.0.0.1:8080/v1', 'm', LLAMA_CPP))).toContain('Démarrez llama.cpp (il écoute sur le port 8080)');
  });
  test('a server on several ports is told to listen on the port of the address set, not its usual one (issue 34)', () => {
    expect(problemWords(t, 'ai_not_listening', settings('http://127.0.0.1:9931/v1', 'm', LLAMA_CPP)))
      .toBe('Nothing answers at http://127.0.0.1:9931/v1. Start llama.cpp (it listens on port 9931), then Test again.');
    expect(problemWords(tf, 'ai_not_listening', settings('http://localhost:9931/v1', 'm', LLAMA_CPP)))
      .toBe('Rien ne répond à http://localhost:9931/v1. Démarrez llama.cpp (il écoute sur le port 9931), puis testez à nouveau.');
    // An address whose port is none of the server's names no port rather than a wrong one.
    expect(problemWords(t, 'ai_not_listening', settings('http://127.0.0.1/v1', 'm', LLAMA_CPP)))
      .toBe('Nothing answers at http://127.0.0.1/v1. Start the AI server on this PC, then Test again.');
  });
  test('a refused key says to replace it; an unknown model and a model without tools are named', () => {
    expect(problemWords(t, 'ai_key_refused', settings('https://openrouter.ai/api/v1', 'm'))).toContain('Replace it');
    expect(problemWords(t, 'ai_model_unknown', settings('u', 'gpt-9'))).toBe('The service doesn\'t know the model gpt-9: choose one from its list.');
    expect(problemWords(t, 'ai_no_tools', settings('u', 'gemma'))).toContain('The model gemma can\'t use tools');
  });
  test('not set: with no address, choose an AI; with an address but no model, choose a model', () => {
    expect(problemWords(t, 'ai_not_set', null)).toBe('No AI is set: choose one on this PC, or type an address and a model.');
    expect(problemWords(t, 'ai_not_set', settings('http://127.0.0.1:11434/v1', null))).toBe('Choose a model, then Test again.');
  });
  test('only the AI\'s own codes are worded here', () => {
    expect(EVERY_CODE.every(isAiCode)).toBe(true);
    expect(isAiCode('storage')).toBe(false);
    // One of the generated AiCode values, never guessed from its spelling (issue 33).
    expect(isAiCode('ai_from_a_newer_host')).toBe(false);
  });
});

describe('§13 Test', () => {
  test('Connected with the model count', () => {
    const ok = (n: number): AiTest => ({ ok: true, where: 'online', models: Array.from({ length: n }, (_, i) => `m${i}`), code: null, message: null, tools: null });
    expect(testWords(t, ok(342), settings('https://openrouter.ai/api/v1', 'm0'))).toBe('Connected: 342 models');
    expect(testWords(t, ok(1), settings('http://127.0.0.1:11434/v1', 'm0'))).toBe('Connected: 1 model');
    expect(testWords(tf, ok(2), settings('http://127.0.0.1:11434/v1', 'm0'))).toBe('Connecté : 2 modèles');
    // French says 0 and 1 in the singular: the language's plural rules, not English's (issue 34).
    expect(testWords(tf, ok(0), settings('http://127.0.0.1:11434/v1', 'm0'))).toBe('Connecté : 0 modèle');
    expect(testWords(tf, ok(1), settings('http://127.0.0.1:11434/v1', 'm0'))).toBe('Connecté : 1 modèle');
  });
  test('a failure is worded with the settings it was tried with', () => {
    expect(testWords(t, failed('ai_not_listening'), settings('http://127.0.0.1:1234/v1', 'qwen', LM_STUDIO))).toContain('Start LM Studio');
    expect(testWords(t, failed('ai_model_unknown'), settings('http://127.0.0.1:1234/v1', 'qwen'))).toContain('the model qwen');
  });
});

describe('issue 34: whether the model can use tools, as the server said', () => {
  const tested = (tools: boolean | null, server?: AiTest['server'], tool_model?: string): AiTest =>
    ({ ok: true, where: 'pc', models: ['m0'], code: null, message: null, tools, server, tool_model });
  test('yes, no with a model to choose, and for llama.cpp its chat template', () => {
    expect(toolsWords(t, tested(true, LLAMA_CPP))).toEqual(['This model can use your plugins.']);
    expect(toolsWords(t, tested(false, OLLAMA, 'qwen2.5'))).toEqual(
      ['This model cannot use tools: your plugins will not be used. Choose another model, e.g. qwen2.5.']);
    const llama = toolsWords(t, tested(false, LLAMA_CPP, 'Qwen2.5-7B-Instruct-GGUF'));
    expect(llama[0]).toContain('e.g. Qwen2.5-7B-Instruct-GGUF');
    expect(llama[1]).toContain('--chat-template-file');
    expect(toolsWords(tf, tested(false, OLLAMA, 'qwen2.5'))[0]).toContain('par exemple qwen2.5');
  });
  test('unknown is said too, with why; nothing when not reached', () => {
    expect(toolsWords(t, tested(null))).toEqual(
      ['Could not tell whether this model can use tools: the server does not say. If your plugins are never used, choose a model that supports tool calling.']);
    expect(toolsWords(t, { ...tested(null), where: 'online' })[0]).toContain('an online service is not asked');
    expect(toolsWords(tf, tested(null))[0]).toContain('Impossible de savoir si ce modèle sait utiliser des outils');
    expect(toolsWords(t, failed('ai_not_listening'))).toEqual([]);
  });
});

describe('issue 34: the longest answer refused', () => {
  const error = (code: ApiError['code']): ApiError => ({ code, message: 'the host says', problems: [], fields: [] });
  test('bad_input says the host\'s bounds; another failure is worded as any', () => {
    expect(maxTokensWords(t, error('bad_input'), BOUNDS)).toBe('Type a whole number from 16 to 32768, or leave it empty for 2048.');
    expect(maxTokensWords(tf, error('bad_input'), { min: 8, max: 100, default: 50 })).toBe('Tapez un nombre entier de 8 à 100, ou laissez vide pour 50.');
    expect(maxTokensWords(t, error('storage'), BOUNDS)).not.toContain('whole number');
  });
});

describe('§13 where the AI runs and what it means', () => {
  test('on this PC, online, or not set', () => {
    expect(placeWords(t, 'pc')).toBe('On this PC: what your plugins return stays on this PC.');
    expect(placeWords(t, 'online')).toBe('Online: what your plugins return is sent to this service.');
    expect(placeWords(t, null)).toContain('No AI is set yet');
    expect(placeWords(tf, 'online')).toBe('En ligne : ce que renvoient vos plugins est envoyé à ce service.');
  });
  test('the plugins kept on this PC are those whose card says so, by name', () => {
    const cards = [{ name: 'Weather', kept_on_pc: false }, { name: 'My Tasks', kept_on_pc: true }, { name: 'Agenda', kept_on_pc: true }];
    expect(keptOnPc(cards)).toEqual(['Agenda', 'My Tasks']);
    expect(keptOnPc([])).toEqual([]);
  });
});
