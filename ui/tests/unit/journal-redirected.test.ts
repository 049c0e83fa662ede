// The Actions tab's outcome cell, issue 32 (§12, §14): a confirmed call whose
// request did not end at the URL the player was shown says where it was
// redirected (read, or refused: the code says which); every other line reads
// as before.
import { describe, expect, test } from 'vitest';
import { translator } from '../../src/i18n';
import { lineOutcome } from '../../src/ui/journal';

const t = translator('en');
const tf = translator('fr');

describe('Actions: where a confirmed call was redirected', () => {
  test('a redirect read, and one refused, say where; a line without one reads as before', () => {
    const read = { outcome: 'done', code: null, confirmation: 'confirmed', ended_at: 'http://127.0.0.1:5001/sent/1' } as const;
    expect(lineOutcome(t, read).words).toBe('done · you confirmed it · redirected to http://127.0.0.1:5001/sent/1');
    expect(lineOutcome(tf, read).words).toContain('redirigée vers http://127.0.0.1:5001/sent/1');
    const refused = { outcome: 'failed', code: 'BAD_URL', family: 'network_rule', confirmation: 'confirmed', ended_at: 'http://127.0.0.1:5001/send_all/[secret]' } as const;
    expect(lineOutcome(t, refused)).toEqual({
      words: `failed: ${t('family.network_rule')} · you confirmed it · redirected to http://127.0.0.1:5001/send_all/[secret]`,
      code: 'BAD_URL',
    });
    expect(lineOutcome(t, { outcome: 'done', code: null, confirmation: 'confirmed' }).words).toBe('done · you confirmed it');
  });
  test('the URL is the server\'s text: a placeholder in it is not filled', () => {
    const odd = { outcome: 'done', code: null, ended_at: 'http://127.0.0.1:5001/{url}' } as const;
    expect(lineOutcome(t, odd).words).toBe('done · redirected to http://127.0.0.1:5001/{url}');
  });
});
