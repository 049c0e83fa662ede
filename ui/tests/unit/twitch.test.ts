// The Twitch chat in words (issue 36): the connection's state as the host
// gives it, the Companion tab's status line, what was dropped, and a chat
// turn's lines building an exchange from the viewer.
import { describe, expect, test } from 'vitest';
import { translator } from '../../src/i18n';
import { conversationWith, typed, type Exchange, type TurnLine } from '../../src/ui/companion';
import { chatLineWords, chatStateWords, droppedWords } from '../../src/ui/twitch';
import type { ChatDropped, ChatStatus } from '../../src/types';

const t = translator('en');
const tf = translator('fr');
const none: ChatDropped = { paused: 0, ignored: 0, empty: 0, cooldown: 0, queue_full: 0, waited_too_long: 0, deleted: 0, viewer_cleared: 0, chat_cleared: 0 };
const status = (over: Partial<ChatStatus>): ChatStatus => ({
  channel: 'mychannel', state: 'connected', code: null, retry_in_secs: null, stream_mode: true,
  settings: { channel: 'mychannel', prefix: '!ask', paused: false, ignored: [] }, waiting: 0, said: 0, dropped: none,
  host: 'irc.chat.twitch.tv', port: 6697, ...over,
});

describe('issue 36: the chat\'s state in plain words', () => {
  test('each state, with the channel and (reconnecting) when and why', () => {
    expect(chatStateWords(t, status({}))).toBe('Connected to #mychannel');
    expect(chatStateWords(t, status({ state: 'connecting' }))).toBe('Connecting to #mychannel…');
    expect(chatStateWords(t, status({ state: 'reconnecting', code: 'closed', retry_in_secs: 4 })))
      .toBe('Reconnecting to #mychannel in 4 s — Twitch ended the connection.');
    expect(chatStateWords(t, status({ state: 'off', channel: null, stream_mode: false }))).toBe('Not connected');
    expect(chatStateWords(tf, status({ state: 'off', channel: null, code: 'refused', stream_mode: false })))
      .toBe('Non connecté : Twitch a refusé de rejoindre cette chaîne. Vérifiez son nom, puis reconnectez-vous.');
  });
  test('the Companion tab\'s line: only while connected, paused said', () => {
    expect(chatLineWords(t, status({}))).toBe('Twitch chat #mychannel connected · stream mode on');
    const paused = status({ settings: { ...status({}).settings, paused: true } });
    expect(chatLineWords(t, paused)).toBe('Twitch chat #mychannel connected · chat turns paused · stream mode on');
    expect(chatLineWords(t, status({ state: 'off', channel: null, stream_mode: false }))).toBeNull();
  });
  test('what was dropped: only the reasons that happened, each counted', () => {
    expect(droppedWords(t, none)).toEqual([]);
    expect(droppedWords(t, { ...none, cooldown: 2, deleted: 1 })).toEqual(['2 too soon after the same viewer\'s last', '1 deleted by a moderator']);
  });
});

describe('issue 36: a chat turn in the conversation', () => {
  test('the viewer line starts an exchange from the viewer, before a typed one waiting; the turn line adds none', () => {
    const running: Exchange = { ...typed('hi'), started: true, over: true };
    const waiting = typed('next');
    const lines: TurnLine[] = [
      { type: 'viewer', name: 'Ada_L', text: 'what is 20 EUR in yen?' },
      { type: 'turn', id: 't1', source: 'twitch', text: 'what is 20 EUR in yen?' },
      { type: 'delta', text: 'About 3,400 yen.' },
    ];
    const all = lines.reduce(conversationWith, [running, waiting]);
    expect(all.map((x) => x.from)).toEqual([{ kind: 'player' }, { kind: 'viewer', name: 'Ada_L' }, { kind: 'player' }]);
    expect(all[1]).toMatchObject({ said: 'what is 20 EUR in yen?', started: true, answer: 'About 3,400 yen.' });
    expect(all[2].started).toBe(false);
  });
});
