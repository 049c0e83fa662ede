// R3's question (§12 "serious action, confirmed every time", issue 23): the
// host asks before it sends a serious action's request, for a companion
// turn or Try an action alike, as `companion-ask` events (src-tauri's
// asking.rs). A dialog that cannot be missed, above every tab: the plugin,
// the action's hint, "serious action", exactly what a yes sends (secrets
// already `[secret]`), a countdown; focus starts on Cancel, Escape cancels.
// The host stops waiting after the time shown (no answer is a no) and says
// `over`: the dialog goes then, whoever ended the question.
//
// An answer is a press the player began on the dialog (issue 32): a key
// or pointer press that went down before the dialog appeared (the player
// was pressing Enter in the message box, or clicking where Confirm comes)
// answers nothing, nor does a held key's repeat. Confirm is armed only
// ARM_MS after the dialog was first painted (a double click begun on the
// page behind lands in that time), and a yes counts only for a press that
// began once it was armed. Cancel and Escape count at once (a no sends
// nothing), but only for a press begun on the dialog.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { EVENTS, listenTo } from '../bindings/events';
import type { AskLine } from '../types';
import { Dialog } from './common';
import { useApp } from './context';

export type Question = Extract<AskLine, { type: 'ask' }>;

/** The questions waiting, oldest first, after one more line. */
export function withAsk(waiting: readonly Question[], line: AskLine): Question[] {
  return line.type === 'ask' ? [...waiting, line] : waiting.filter((q) => q.id !== line.id);
}

/** How long after the dialog is first painted Confirm can be pressed, in
 * milliseconds: as browsers' own install and permission prompts do, long
 * enough for a double click or a held key begun elsewhere to land before. */
const ARM_MS = 1000;

/** Where the player's last press on the dialog stands: none seen yet, begun
 * before Confirm was armed, or begun once it was. */
type Press = 'none' | 'early' | 'armed';

/** Whether a press may answer: a yes only once armed, a no whenever the
 * dialog saw it begin. */
function answers(yes: boolean, press: Press): boolean {
  return press === 'armed' || (!yes && press === 'early');
}

/** Whole seconds left of `seconds`, `elapsed` milliseconds after it was asked. */
export function secondsLeft(seconds: number, elapsed: number): number {
  return Math.max(0, seconds - Math.floor(elapsed / 1000));
}

/** Every question the host asks, one dialog at a time. */
export function Questions() {
  const [waiting, setWaiting] = useState<Question[]>([]);
  useEffect(() => {
    let live = true;
    let stop: (() => void) | null = null;
    listenTo(EVENTS.ASK_EVENT, (line) => setWaiting((all) => withAsk(all, line)))
      .then((u) => (live ? (stop = u) : u()));
    return () => { live = false; stop?.(); };
  }, []);
  const first = waiting[0];
  if (!first) return null;
  const done = () => setWaiting((all) => all.filter((q) => q.id !== first.id));
  return <Confirm key={first.id} q={first} onDone={done} />;
}

function Confirm(props: { q: Question; onDone: () => void }) {
  const { t } = useApp();
  const q = props.q;
  const [left, setLeft] = useState(q.seconds);
  useEffect(() => {
    const asked = Date.now();
    const timer = setInterval(() => {
      const now = secondsLeft(q.seconds, Date.now() - asked);
      setLeft(now);
      // Out of time: the host says no by itself (its `over` may come a moment later).
      if (now === 0) props.onDone();
    }, 250);
    return () => clearInterval(timer);
  }, [q.id]);
  const [armed, setArmed] = useState(false);
  const press = useRef<Press>('none');
  // Preact runs this after the dialog's first paint: only what begins from
  // now on is the player's answer to what they see.
  useEffect(() => {
    let on = false;
    const arm = setTimeout(() => { on = true; setArmed(true); }, ARM_MS);
    const down = new Set<string>();
    const began = () => { press.current = on ? 'armed' : 'early'; };
    // Before any handler of the page (capture on window): a key held from
    // before repeats, or comes up without having gone down here.
    const drop = (e: Event) => { e.preventDefault(); e.stopImmediatePropagation(); };
    const keydown = (e: KeyboardEvent) => {
      if (e.repeat) return drop(e);
      down.add(e.code);
      began();
    };
    const keypress = (e: KeyboardEvent) => { if (!down.has(e.code)) drop(e); };
    const keyup = (e: KeyboardEvent) => { if (!down.delete(e.code)) drop(e); };
    window.addEventListener('keydown', keydown, true);
    window.addEventListener('keypress', keypress, true);
    window.addEventListener('keyup', keyup, true);
    window.addEventListener('pointerdown', began, true);
    return () => {
      clearTimeout(arm);
      window.removeEventListener('keydown', keydown, true);
      window.removeEventListener('keypress', keypress, true);
      window.removeEventListener('keyup', keyup, true);
      window.removeEventListener('pointerdown', began, true);
    };
  }, [q.id]);
  const answer = (yes: boolean) => {
    if (!answers(yes, press.current)) return;
    // A question already over (out of time) is refused: the host's no stands.
    api.companionAnswer(q.id, yes).catch(() => undefined);
    props.onDone();
  };
  const r = q.request;
  return (
    <Dialog label={t('ask.title')} onClose={() => answer(false)} role="alertdialog" testid="ask">
      <div class="dialog-body ask">
        <header class="dialog-head">
          <h2>{t('ask.title')}</h2>
        </header>
        <p data-testid="ask-what">{t('ask.what', { plugin: q.plugin_name, hint: q.hint || q.tool })}</p>
        <p><span class="level level-R3">{t('level.R3')}</span></p>
        <p class="muted">{t('ask.sent')}</p>
        <pre class="ask-request" data-testid="ask-request">{[
          `${r.method} ${r.url}`,
          ...r.headers.map(([k, v]) => `${k}: ${v}`),
          ...(r.body ? ['', r.body] : []),
        ].join('\n')}</pre>
        <p class="ask-left" data-testid="ask-left">{t('ask.left', { seconds: left })}</p>
        <footer class="dialog-foot">
          <button type="button" autoFocus data-testid="ask-cancel" onClick={() => answer(false)}>{t('ask.cancel')}</button>
          <button type="button" class="danger" data-testid="ask-confirm" disabled={!armed} onClick={() => answer(true)}>{t('ask.confirm')}</button>
        </footer>
      </div>
    </Dialog>
  );
}
