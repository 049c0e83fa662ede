// Try an action's fields (issue 21 point 4): the window sends the text as typed and the host
// converts it as it converts the AI's arguments (§7; crates/dcp-call/tests/stages.rs), so no
// rule of argument types lives in the window.
import { describe, expect, test } from 'vitest';
import { fieldArguments } from '../../src/ui/details';

const fields = [
  { name: 'amount', type: 'number', required: true },
  { name: 'count', type: 'integer', required: false },
  { name: 'urgent', type: 'boolean', required: false },
  { name: 'title', type: 'string', required: true },
  { name: 'note', type: 'string', required: false },
];

describe('Try an action: the fields as typed', () => {
  test('text is sent as text, for the host to convert (§7)', () => {
    const typed = new Map([['amount', '100'], ['count', '3'], ['urgent', 'true'], ['title', 'Rent'], ['note', 'soon']]);
    expect(fieldArguments(fields, typed)).toEqual([['amount', '100'], ['count', '3'], ['urgent', 'true'], ['title', 'Rent'], ['note', 'soon']]);
  });
  test('an empty field is not given, but for a required text, given empty', () => {
    expect(fieldArguments(fields, new Map())).toEqual([['title', '']]);
  });
  test('what is not a number still goes, so that the host says why it is refused', () => {
    expect(fieldArguments(fields, new Map([['amount', 'a hundred']]))).toEqual([['amount', 'a hundred'], ['title', '']]);
  });
});
