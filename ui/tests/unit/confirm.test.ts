// R3's question (§12, issue 23): which questions wait, and the countdown.
import { describe, expect, test } from 'vitest';
import { secondsLeft, withAsk, type Question } from '../../src/ui/confirm';

const ask = (id: number): Question => ({
  type: 'ask', id, plugin: 'mypc', plugin_name: 'My PC', tool: 'add_note', hint: 'write a note on your PC',
  request: { method: 'POST', url: 'http://127.0.0.1:8420/note', headers: [['Authorization', '[secret]']], body: '{"text":"hi"}' },
  seconds: 60,
});

describe('§12 the questions waiting', () => {
  test('an ask waits after the others; its over removes it, whichever it is', () => {
    const two = withAsk(withAsk([], ask(1)), ask(2));
    expect(two.map((q) => q.id)).toEqual([1, 2]);
    expect(withAsk(two, { type: 'over', id: 1 }).map((q) => q.id)).toEqual([2]);
    expect(withAsk(two, { type: 'over', id: 9 })).toEqual(two);
  });
  test('the countdown goes by whole seconds and stops at 0', () => {
    expect([0, 999, 1000, 59_999, 60_000, 90_000].map((ms) => secondsLeft(60, ms))).toEqual([60, 60, 59, 1, 0, 0]);
  });
});
