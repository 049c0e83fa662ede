// Options' Test result in words (§18): a failed test is worded by the family the host gives with its
// code (issue 33: the window classifies no code by its text), a refusal by its reason.
import { describe, expect, test } from 'vitest';
import { translator } from '../../src/i18n';
import { testResult } from '../../src/ui/options';
import type { PluginTest } from '../../src/types';

const t = translator('en');

describe("Options' Test: a failure in words", () => {
  test('by its family, whatever the code looks like', () => {
    const failed = (code: PluginTest['code'], family: PluginTest['family']) =>
      testResult(t, 'en', { action: 'fx__convert', ok: false, code, family });
    expect(failed('BAD_REQUEST', 'bad_arguments'))
      .toEqual({ words: 'The test did not work: the arguments don\'t match what the action expects.', failed: true });
    expect(failed('HTTP_503', 'service_down').words).toBe('The test did not work: the service has a problem right now. Try again later.');
    expect(failed('needs_setup', 'refused').words).toBe('The test did not work: it was refused: settings are missing.');
  });
});
