// The Actions tab's outcome cell (issue 23): words first, the §22 code as
// the detail; an R3 line says what the player answered; who asked, tests too.
import { describe, expect, test } from 'vitest';
import { translator } from '../../src/i18n';
import { lineOutcome, lineWho } from '../../src/ui/journal';
import { whoText } from '../../src/words';

const t = translator('en');
const tf = translator('fr');

describe('Actions: how a line ended, in words first', () => {
  test('a failure says what happened, its code beside', () => {
    expect(lineOutcome(t, { outcome: 'failed', code: 'DNS_FAILED', family: 'dns_failed' }).code).toBe('DNS_FAILED');
    const words = lineOutcome(t, { outcome: 'failed', code: 'HTTP_404', family: 'not_found' });
    expect(words).toEqual({ words: `failed: ${t('family.not_found')}`, code: 'HTTP_404' });
    expect(words.words).not.toContain('HTTP_404');
    expect(lineOutcome(tf, { outcome: 'failed', code: 'HTTP_404', family: 'not_found' }).words).toMatch(/^échoué : /);
  });
  test('issue 33: a failure is worded by the family the host read its code in, not by the code\'s text', () => {
    expect(lineOutcome(t, { outcome: 'failed', code: 'HTTP_503', family: 'service_down' }).words)
      .toBe('failed: the service has a problem right now. Try again later.');
    // UNKNOWN_TOOL and BAD_REQUEST had no words of their own in the window's list of codes.
    expect(lineOutcome(t, { outcome: 'failed', code: 'UNKNOWN_TOOL', family: 'unknown_tool' }).words)
      .toBe('failed: there is no installed action with this name.');
    expect(lineOutcome(t, { outcome: 'failed', code: 'BAD_REQUEST', family: 'bad_arguments' }).words)
      .toBe('failed: the arguments don\'t match what the action expects.');
    // A code another version wrote, which this one reads no family for: shown as it is.
    expect(lineOutcome(t, { outcome: 'failed', code: 'SOMETHING_NEW' })).toEqual({ words: 'failed: it failed (SOMETHING_NEW).', code: 'SOMETHING_NEW' });
  });
  test('a refusal with words has no code to show; one this version cannot word shows its code as the detail', () => {
    expect(lineOutcome(t, { outcome: 'refused', code: 'tools_off' })).toEqual({ words: 'refused: Enable tools is off', code: null });
    expect(lineOutcome(t, { outcome: 'refused', code: 'a_newer_reason' })).toEqual({ words: 'refused', code: 'a_newer_reason' });
    // The door's bad token has words now (issue 23), its code no longer shown.
    expect(lineOutcome(t, { outcome: 'refused', code: 'bad_token' }).code).toBe(null);
    expect(lineOutcome(t, { outcome: 'done', code: null })).toEqual({ words: 'done', code: null });
  });
  test('§12 an R3 line says what the player answered', () => {
    expect(lineOutcome(t, { outcome: 'done', code: null, confirmation: 'confirmed' }).words).toBe('done · you confirmed it');
    expect(lineOutcome(t, { outcome: 'refused', code: 'declined', confirmation: 'expired' }).words)
      .toBe(`refused: ${t('reason.declined')} · no answer in time`);
    // Issue 34: no answer in time is refused `expired`, said once, as a no is.
    expect(lineOutcome(t, { outcome: 'refused', code: 'expired', confirmation: 'expired' }).words)
      .toBe(`refused: ${t('reason.expired')}`);
    expect(t('reason.expired')).toBe('no answer in time: nothing was sent');
    // A no is said once: the refusal's reason already is the player's answer.
    expect(lineOutcome(t, { outcome: 'refused', code: 'declined', confirmation: 'declined' }).words)
      .toBe(`refused: ${t('reason.declined')}`);
    expect(lineOutcome(tf, { outcome: 'done', code: null, confirmation: 'declined' }).words).toContain('refusée');
  });
  test('tests read as tests', () => {
    expect([whoText(t, 'test'), whoText(tf, 'test')]).toEqual(['A test', 'Un test']);
  });
  test('issue 24: an AI app that named itself is named; one that did not, or an older line, reads as before', () => {
    const named = { who: 'mcp', client: 'Claude Desktop 0.9.2' } as const;
    expect([lineWho(t, named), lineWho(tf, named)]).toEqual(['MCP client: Claude Desktop 0.9.2', 'Client MCP : Claude Desktop 0.9.2']);
    expect(lineWho(t, { who: 'mcp' })).toBe('Another AI app');
    expect(lineWho(t, { who: 'keyboard' })).toBe('Typed');
  });
});
