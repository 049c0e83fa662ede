// The AI settings' words (§13): which server a PC address is, what each
// way of failing to reach the AI means for the player, where the AI runs
// and what that does to the plugins. The host sends codes and facts; the
// sentences are made here, in the player's language.
import type { Key, Translate } from '../i18n';
import type { AiSettings, AiTest, Card, Place } from '../types';

/** The AI servers the app looks for on this PC, by port (dcp-ai's KNOWN_PC_SERVERS). */
const PC_SERVERS: [number, string][] = [[11434, 'Ollama'], [1234, 'LM Studio'], [8080, 'llama.cpp']];

function parsed(url: string): URL | null {
  try { return new URL(url); } catch { return null; }
}

function portOf(u: URL): number {
  return Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
}

/** Whether the address is this PC's (the host decides for real; this only picks the words). */
function onThisPc(u: URL): boolean {
  return u.hostname === 'localhost' || u.hostname === '[::1]' || /^127\./.test(u.hostname);
}

/** The PC server usually behind `url` ("Ollama"), or null for another port or an online address. */
export function serverName(url: string): string | null {
  const u = parsed(url);
  if (!u || !onThisPc(u)) return null;
  return PC_SERVERS.find(([port]) => port === portOf(u))?.[1] ?? null;
}

/** What to do when nothing answers at `url`: start which server on which port, or check the address. */
function notListening(t: Translate, url: string): string {
  const u = parsed(url);
  if (!u || !onThisPc(u)) return t('ai.problem.not_listening_online', { url });
  const name = serverName(url);
  return name ? t('ai.problem.not_listening_known', { url, name, port: portOf(u) }) : t('ai.problem.not_listening_pc', { url, port: portOf(u) });
}

/** A failure to reach or use the AI, in words. `url` and `model` are the settings it was tried with. */
export function problemWords(t: Translate, code: string | null | undefined, url: string | null, model: string | null): string {
  switch (code) {
    case 'ai_not_set': return url ? t('ai.problem.no_model') : t('ai.problem.not_set');
    case 'ai_not_listening': return notListening(t, url ?? '');
    case 'ai_model_unknown': return model ? t('ai.problem.model_unknown', { model }) : t('ai.problem.no_model');
    case 'ai_no_tools': return t('ai.problem.no_tools', { model: model ?? '' });
    case 'ai_bad_url': case 'ai_private_address': case 'ai_key_refused': case 'ai_timeout': case 'ai_redirect':
    case 'ai_http': case 'ai_bad_answer': case 'ai_turn_too_long':
      return t(`ai.problem.${code.slice(3)}` as Key);
    default: return t('ai.problem.other');
  }
}

/** Whether a host error is one of the AI's own (its words come from problemWords). */
export function isAiCode(code: string): boolean {
  return code.startsWith('ai_');
}

/** Test's answer: Connected with the model count, or what went wrong. */
export function testWords(t: Translate, test: AiTest, settings: AiSettings): string {
  if (test.ok) return t(test.models.length === 1 ? 'ai.connected_one' : 'ai.connected', { count: test.models.length });
  return problemWords(t, test.code, settings.url, settings.model);
}

/** Where the AI runs and what follows from it for the plugins (§13). */
export function placeWords(t: Translate, place: Place | null): string {
  if (place === 'pc') return t('ai.where.pc');
  if (place === 'online') return t('ai.where.online');
  return t('ai.where.none');
}

/** The installed plugins not used with an online AI (their cards' `kept_on_pc`), by name. */
export function keptOnPc(cards: Iterable<Pick<Card, 'name' | 'kept_on_pc'>>): string[] {
  return [...cards].filter((c) => c.kept_on_pc).map((c) => c.name).sort((a, b) => a.localeCompare(b));
}
