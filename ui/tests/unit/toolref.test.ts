import { describe, expect, test } from 'vitest';
import { slugOf, toolName, toolRef } from '../../src/toolref';

describe('full tool names', () => {
  test('a slug and a tool name join into the name the AI sees', () => {
    expect(toolRef('fx', 'convert')).toBe('fx__convert');
  });
  test('the slug ends at the first separator: a tool name may hold its own', () => {
    expect(slugOf('fx__convert')).toBe('fx');
    expect(slugOf(toolRef('fx', 'to__eur'))).toBe('fx');
    expect(slugOf('fx')).toBe('fx');
  });
  test("the tool's own name is what follows the slug, separators and all", () => {
    expect(toolName('fx__convert')).toBe('convert');
    expect(toolName(toolRef('fx', 'to__eur'))).toBe('to__eur');
    expect(toolName('fx')).toBe('fx');
  });
});
