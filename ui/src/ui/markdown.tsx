// The companion's answer as the player reads it (issue 34): real models answer
// in Markdown, so the answer is shown as a small, safe subset of it —
// paragraphs, emphasis, lists, block quotes, rules, inline code and code
// blocks, and links — and everything else as its text.
//
// Safe by construction, not by cleaning: markdown-it parses the text into
// tokens (its raw HTML rules off), and each token of the subset becomes one
// element of a closed set, built by Preact; no HTML string ever reaches the
// DOM, and no element the page draws here has a `src` or an `href`. So:
// - Raw HTML (`<img onerror=…>`, `<script>`) is shown as the text it is.
// - A Markdown image never loads (an injected model's classic way to leak a
//   player's data is an image whose address carries it): it is shown as its
//   alt text and its full address, as text.
// - A heading is a bold paragraph: the answer adds no heading to the page's
//   outline. Tables and strikethrough are not parsed (CommonMark's rules):
//   their text shows as written, line by line.
// - Only an http(s) address becomes a link, shown with its full address; a
//   click asks the shell to open it in the system browser (`onLink`), which
//   it does only for an address an answer of this window holds. The webview
//   never navigates. Any other link shows its label and its address as text.
//
// Parsing the whole answer again at each streamed piece is cheap (an answer
// is at most a few thousand tokens), and markdown-it takes any prefix of a
// text: half-written Markdown shows as text until it is complete.
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import { h, type ComponentChild } from 'preact';
import { useMemo } from 'preact/hooks';

/** A piece of an answer as shown: text, or an element of the subset. */
export type Piece = string | Tagged;

/** An element of the subset; a link's children are exactly what it shows (its label and full address). */
export type Tagged =
  | { tag: 'p' | 'strong' | 'em' | 'code' | 'pre' | 'ul' | 'li' | 'blockquote'; children: Piece[] }
  | { tag: 'ol'; start: number; children: Piece[] }
  | { tag: 'br' | 'hr' }
  | { tag: 'link'; href: string; children: Piece[] };

// CommonMark's rules, HTML off; bare http(s) addresses become links too (linkify, no
// scheme-less guesses). Addresses are kept as the model wrote them (no re-encoding), so
// that the address shown, the one sent to the shell and the one in the answer are the same.
const md = new MarkdownIt('commonmark', { html: false, linkify: true });
md.enable('linkify');
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
md.normalizeLink = (url) => url;
md.normalizeLinkText = (url) => url;

/** An address that may become a link: http or https, with no space, control or invisible character to hide a part of it. */
const LINKABLE = /^https?:\/\/[^\s\p{C}\p{Z}]+$/iu;

/** The text of some pieces, as read. */
export function textOf(pieces: readonly Piece[]): string {
  return pieces.map((p) => (typeof p === 'string' ? p : 'children' in p ? textOf(p.children) : '\n')).join('');
}

/** Where the pieces of an open token go, and what to do when it closes. */
interface Frame {
  into: Piece[];
  close?: () => void;
}

/** The answer `text` as pieces of the subset. */
export function answerPieces(text: string): Piece[] {
  const root: Piece[] = [];
  const stack: Frame[] = [{ into: root }];
  const top = () => stack[stack.length - 1];
  const add = (piece: Piece) => top().into.push(piece);
  /** Opens `element` here, its children collected until its token closes. */
  const open = (element: Extract<Tagged, { children: Piece[] }>, close?: () => void) => {
    add(element);
    stack.push({ into: element.children, close });
  };

  const walk = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      if (token.nesting === -1) {
        // Every open token pushed one frame: closing pops it.
        if (stack.length > 1) stack.pop()?.close?.();
        continue;
      }
      if (token.nesting === 1) {
        opening(token);
        continue;
      }
      switch (token.type) {
        case 'inline': walk(token.children ?? []); break;
        case 'text': add(token.content); break;
        case 'code_inline': add({ tag: 'code', children: [token.content] }); break;
        case 'softbreak':
        case 'hardbreak': add({ tag: 'br' }); break;
        case 'hr': add({ tag: 'hr' }); break;
        case 'fence':
        case 'code_block': add({ tag: 'pre', children: [{ tag: 'code', children: [token.content.replace(/\n$/, '')] }] }); break;
        case 'image': {
          // Never loaded: what it is and where it points, as text.
          const src = String(token.attrGet('src') ?? '');
          add(token.content ? `${token.content} (${src})` : src);
          break;
        }
        // Anything else (nothing the rules above make) as its text.
        default: add(token.content);
      }
    }
  };

  const opening = (token: Token) => {
    switch (token.type) {
      case 'paragraph_open':
        // A tight list's paragraphs are hidden: their text goes in the item.
        if (token.hidden) stack.push({ into: top().into });
        else open({ tag: 'p', children: [] });
        return;
      case 'heading_open': {
        const strong: Tagged = { tag: 'strong', children: [] };
        add({ tag: 'p', children: [strong] });
        stack.push({ into: strong.children });
        return;
      }
      case 'em_open': open({ tag: 'em', children: [] }); return;
      case 'strong_open': open({ tag: 'strong', children: [] }); return;
      case 'bullet_list_open': open({ tag: 'ul', children: [] }); return;
      case 'ordered_list_open': open({ tag: 'ol', start: Number(token.attrGet('start') ?? 1), children: [] }); return;
      case 'list_item_open': open({ tag: 'li', children: [] }); return;
      case 'blockquote_open': open({ tag: 'blockquote', children: [] }); return;
      case 'link_open': linkOpening(String(token.attrGet('href') ?? '')); return;
      // Anything else: its content goes where it stands.
      default: stack.push({ into: top().into });
    }
  };

  /** A link: its label, then its full address unless the label is the address. */
  const linkOpening = (href: string) => {
    const label: Piece[] = [];
    const shown = () => (textOf(label) === href ? [href] : [...label, ` (${href})`]);
    if (LINKABLE.test(href)) {
      const link: Tagged = { tag: 'link', href, children: label };
      add(link);
      stack.push({ into: label, close: () => { link.children = shown(); } });
    } else {
      const into = top().into;
      stack.push({ into: label, close: () => into.push(...shown()) });
    }
  };

  walk(md.parse(text, {}));
  return root;
}

/** One piece as elements; a link is a button that asks `onLink` to open its address. */
function view(piece: Piece, key: number, onLink: (href: string) => void): ComponentChild {
  if (typeof piece === 'string') return piece;
  switch (piece.tag) {
    case 'br':
    case 'hr': return h(piece.tag, { key });
    case 'link':
      return (
        <button key={key} type="button" class="link-button" data-testid="answer-link" onClick={() => onLink(piece.href)}>
          {piece.children.map((p, i) => view(p, i, onLink))}
        </button>
      );
    case 'ol': return <ol key={key} start={piece.start}>{piece.children.map((p, i) => view(p, i, onLink))}</ol>;
    default: return h(piece.tag, { key }, piece.children.map((p, i) => view(p, i, onLink)));
  }
}

/** The answer `text`, shown as the safe subset of Markdown; a link's click goes to `onLink`. An
 * answer of one paragraph is shown as its content, on the line where it is put, as plain text was. */
export function Markdown(props: { text: string; onLink: (href: string) => void }) {
  const pieces = useMemo(() => {
    const all = answerPieces(props.text);
    const [only] = all;
    return all.length === 1 && typeof only !== 'string' && only.tag === 'p' ? only.children : all;
  }, [props.text]);
  return <>{pieces.map((p, i) => view(p, i, props.onLink))}</>;
}
