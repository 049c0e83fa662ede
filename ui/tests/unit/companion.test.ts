// The Companion tab's words (issue 23): how a turn's lines build an exchange,
// and how a tool call and a failure read.
import { describe, expect, test } from 'vitest';
import { translator } from '../../src/i18n';
import { conversationWith, failureWords, pausedWords, toolWords, typed, withLine, type Exchange, type TurnLine } from '../../src/ui/companion';
import type { Decision } from '../../src/types';

const t = translator('en');
const tf = translator('fr');
const start: Exchange = { ...typed('hi'), started: true };
const cards = new Map([['fx', { name: 'Exchange rates' }]]);
const tool = (over: Partial<Extract<TurnLine, { type: 'tool' }>>): Extract<TurnLine, { type: 'tool' }> =>
  ({ type: 'tool', step: 1, tool: 'fx__convert', args: {}, outcome: 'done', code: null, reason: null, sent: null, for_ai: '', family: null, plugin: null, hint: null, ...over });

describe('a turn streamed into an exchange', () => {
  test('deltas grow the answer, the reply replaces it, end closes it', () => {
    const lines: TurnLine[] = [{ type: 'delta', text: 'Hel' }, { type: 'delta', text: 'lo' }];
    const grown = lines.reduce(withLine, start);
    expect(grown.answer).toBe('Hello');
    expect(grown.over).toBe(false);
    const done = [{ type: 'reply', text: 'Hello there' } as TurnLine, { type: 'end', steps: 0 } as TurnLine].reduce(withLine, grown);
    expect(done).toEqual({ ...start, answer: 'Hello there', over: true });
  });
  test('tool calls and an error are kept in order', () => {
    const x = [tool({ step: 1 }), tool({ step: 2, outcome: 'refused' }), { type: 'error', code: 'ai_timeout', message: 'slow' } as TurnLine]
      .reduce(withLine, start);
    expect(x.tools.map((l) => (l.type === 'tool' ? l.step : 0))).toEqual([1, 2]);
    expect(x.error).toEqual({ code: 'ai_timeout', message: 'slow' });
  });
});

describe('§3 a tool call in words', () => {
  test('done names the plugin by its card, and the action', () => {
    expect(toolWords(t, cards, tool({}))).toBe('Exchange rates · convert: done');
  });
  test('failed shows its §22 code; refused its reason in words, not POLICY_DENIED', () => {
    expect(toolWords(t, cards, tool({ outcome: 'failed', code: 'HTTP_500', family: 'service_down' }))).toBe('Exchange rates · convert: failed: the service has a problem right now. Try again later. (HTTP_500)');
    const refused = toolWords(t, cards, tool({ outcome: 'refused', code: 'POLICY_DENIED', reason: 'tools_off' }));
    expect(refused).toBe('Exchange rates · convert: refused: Enable tools is off');
    expect(toolWords(tf, cards, tool({ outcome: 'refused', code: 'POLICY_DENIED', reason: 'tools_off' }))).not.toContain('POLICY_DENIED');
  });
  test('issue 33: the line names the plugin and the action\'s hint itself, no card or details read', () => {
    expect(toolWords(t, new Map(), tool({ plugin: 'Exchange rates', hint: 'convert money between currencies' })))
      .toBe('Exchange rates · convert money between currencies: done');
  });
  test('issue 33: a failure reads by the family the line gives, whatever its code', () => {
    const failed = (code: 'HTTP_418' | 'PRIVATE_ADDRESS', family: 'service_error' | 'network_rule') => tool({ outcome: 'failed', code, family });
    expect(toolWords(t, cards, failed('HTTP_418', 'service_error'))).toBe('Exchange rates · convert: failed: the service answered with an error. (HTTP_418)');
    expect(toolWords(t, cards, failed('PRIVATE_ADDRESS', 'network_rule'))).toBe('Exchange rates · convert: failed: the request broke a network rule. (PRIVATE_ADDRESS)');
    expect(toolWords(tf, cards, failed('HTTP_418', 'service_error'))).toContain('le service a répondu par une erreur');
  });
  test('a plugin without a card is named by its slug', () => {
    expect(toolWords(t, cards, tool({ tool: 'gone__look' }))).toBe('gone · look: done');
  });
});

describe('§12 an R3 question in the conversation', () => {
  const confirm = (decision: Decision): TurnLine =>
    ({ type: 'confirm', tool: 'fx__convert', method: 'POST', url: 'http://127.0.0.1:8420/note', decision, plugin: null, hint: null });
  test('the answer joins the tool lines, before the call it allowed or stopped', () => {
    const x = [confirm('confirmed'), tool({ step: 1 })].reduce(withLine, start);
    expect(x.tools.map((l) => l.type)).toEqual(['confirm', 'tool']);
  });
  test('confirmed says what was sent; declined and no answer say nothing was, in English and French', () => {
    expect(toolWords(t, cards, confirm('confirmed') as Extract<TurnLine, { type: 'confirm' }>))
      .toBe('You confirmed Exchange rates · convert: POST http://127.0.0.1:8420/note was sent.');
    for (const [decision, en, fr] of [['declined', 'You cancelled', 'Vous avez annulé'], ['expired', 'No answer in time', 'Pas de réponse à temps']] as const) {
      const line = confirm(decision) as Extract<TurnLine, { type: 'confirm' }>;
      expect(toolWords(t, cards, line)).toBe(`${en} ${decision === 'expired' ? 'for ' : ''}Exchange rates · convert: nothing was sent.`);
      expect(toolWords(tf, cards, line)).toContain(fr);
    }
  });
});

/** The AI settings' answer length, as the host sends it beside the rest. */
const LENGTH = { max_tokens: 2048, max_tokens_bounds: { min: 16, max: 32768, default: 2048 } };

describe('§13 a failure of the AI, in the Tools tab\'s words', () => {
  test('an AI code reads as the Tools tab reads it, another code as the host\'s errors', () => {
    const ollama = { server: 'ollama' as const, name: 'Ollama', port: 11434, ports: [11434] };
    const ai = { url: 'http://127.0.0.1:11434/v1', model: 'llama3.2', where: 'pc' as const, key_set: false, server: ollama, ...LENGTH };
    expect(failureWords(t, { code: 'ai_not_listening', message: 'x' }, ai)).toContain('Ollama');
    expect(failureWords(tf, { code: 'ai_timeout', message: 'x' }, ai)).not.toBe(failureWords(t, { code: 'ai_timeout', message: 'x' }, ai));
    expect(failureWords(t, { code: 'internal', message: 'boom' }, ai)).not.toBe('');
  });
  test('issue 32: a turn past its deadline and a stopped turn have words of their own, in English and French', () => {
    const ollama = { server: 'ollama' as const, name: 'Ollama', port: 11434, ports: [11434] };
    const ai = { url: 'http://127.0.0.1:11434/v1', model: 'llama3.2', where: 'pc' as const, key_set: false, server: ollama, ...LENGTH };
    expect(failureWords(t, { code: 'ai_turn_too_long', message: 'x' }, ai)).toBe('The AI took too long to answer, so the turn was ended. Try again, or choose a faster model.');
    expect(failureWords(tf, { code: 'ai_turn_too_long', message: 'x' }, ai)).toContain('trop de temps');
  });
  test('issue 33: a turn is stopped when its end line says so, not by reading its error\'s code', () => {
    const stopped = [{ type: 'error', code: 'stopped', message: 'the turn was stopped' } as TurnLine, { type: 'end', steps: 0, stopped: true } as TurnLine]
      .reduce(withLine, start);
    expect(stopped.stopped).toBe(true);
    const failed = [{ type: 'error', code: 'ai_timeout', message: 'slow' } as TurnLine, { type: 'end', steps: 0 } as TurnLine].reduce(withLine, start);
    expect(failed.stopped).toBeUndefined();
  });
  test('issue 34: a no_tools line marks its exchange with the server that said it', () => {
    expect(withLine(start, { type: 'no_tools', server: 'llama_cpp' }).noTools).toBe('llama_cpp');
    expect(withLine(start, { type: 'reply', text: 'Hi.' }).noTools).toBeUndefined();
    expect(t('companion.no_tools')).not.toBe(tf('companion.no_tools'));
  });
  test('issue 34: an answer is cut when its reply line says so, and only then', () => {
    const cut = [{ type: 'delta', text: 'Once' } as TurnLine, { type: 'reply', text: 'Once', cut: true } as TurnLine].reduce(withLine, start);
    expect([cut.answer, cut.cut]).toEqual(['Once', true]);
    expect(withLine(start, { type: 'reply', text: 'Done.' }).cut).toBeUndefined();
  });
  test('issue 32: a call past the five of a step reads as not run, not as an unknown refusal', () => {
    const line = tool({ outcome: 'refused', code: 'POLICY_DENIED', reason: 'call_limit' });
    expect(toolWords(t, cards, line)).toBe('Exchange rates · convert: refused: not run: too many actions in one step');
    expect(toolWords(tf, cards, line)).toContain('trop d\'actions');
  });
});

describe('§12 Live on Twitch: what is paused, in words', () => {
  test('the plugins by their cards\' names (else their slugs); none paused says so', () => {
    expect(pausedWords(t, cards, ['fx', 'gone'])).toBe('Paused while you are live: reading your data with Exchange rates, gone.');
    expect(pausedWords(t, cards, [])).toBe('Nothing is paused: no plugin reads your data.');
    expect(pausedWords(tf, cards, [])).not.toBe(pausedWords(t, cards, []));
  });
});

describe('§16 the conversation: typed turns and events, one turn at a time', () => {
  const lines = (...l: TurnLine[]) => l.reduce(conversationWith, [] as Exchange[]);
  test('a typed exchange waits for its turn; an event turn comes from its program, then its answer', () => {
    let all = [typed('hello')];
    expect(conversationWith(all, { type: 'delta', text: 'x' })).toEqual(all);
    all = [
      { type: 'turn', id: 't1', source: 'keyboard', text: 'hello' } as TurnLine, { type: 'reply', text: 'Hi.' } as TurnLine,
      { type: 'end', steps: 0 } as TurnLine,
      { type: 'turn', id: 't2', source: 'event', text: '(Not a message from the user. …)' } as TurnLine,
      { type: 'event', plugin: 'timer', event: 'finished', title: 'Break time', details: '5 minutes', text: '(Not a message from the user. …)' } as TurnLine,
      { type: 'event', plugin: 'other', event: 'x', title: 'Build done', details: null, text: '(Not a message from the user. …)' } as TurnLine,
      { type: 'delta', text: 'Stretch!' } as TurnLine,
    ].reduce(conversationWith, all);
    expect(all.map((x) => [x.said, x.from, x.answer, x.over])).toEqual([
      ['hello', { kind: 'player' }, 'Hi.', true],
      // §16: the player reads each event's title and the program's words, not the AI's framing.
      ['Break time — 5 minutes · Build done', { kind: 'event', plugin: 'timer' }, 'Stretch!', false],
    ]);
  });
  test('a typed turn the page did not start (another window) is shown too', () => {
    expect(lines({ type: 'turn', id: 't', source: 'keyboard', text: 'hi' })).toEqual([{ ...typed('hi'), started: true }]);
  });
  test('issue 33: an event turn shows before the messages still waiting; a message starts by its words', () => {
    let all = [
      { type: 'turn', id: 't1', source: 'keyboard', text: 'one' } as TurnLine, { type: 'end', steps: 0 } as TurnLine,
      { type: 'turn', id: 't2', source: 'event', text: 'framed' } as TurnLine,
    ].reduce(conversationWith, [typed('one'), typed('two'), typed('three')]);
    expect(all.map((x) => [x.from.kind, x.said, x.started, x.over])).toEqual([
      ['player', 'one', true, true], ['event', 'framed', true, false], ['player', 'two', false, false], ['player', 'three', false, false],
    ]);
    // Two messages sent at once may reach the host in either order: "three" runs first.
    all = [{ type: 'end', steps: 0 } as TurnLine, { type: 'turn', id: 't3', source: 'keyboard', text: 'three' } as TurnLine].reduce(conversationWith, all);
    expect(all.map((x) => [x.said, x.started])).toEqual([['one', true], ['framed', true], ['two', false], ['three', true]]);
  });
});
