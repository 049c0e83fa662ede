// The AI settings' words (§13): what each way of failing to reach the AI
// means for the player (with the server the host knows at a PC address), where the AI runs
// and what that does to the plugins. The host sends codes and facts; the
// sentences are made here, in the player's language.
import type { Key, Translate } from '../i18n';
import { AiCodeValues, isOneOf } from '../bindings/values';
import type { AiCode, AiSettings, AiTest, AnswerLength, ApiError, Card, KnownServer, Place } from '../types';
import { errorWords } from '../words';

/** The settings a failure is worded with: the address, the model, where it runs, the known server there. */
export type Tried = Pick<AiSettings, 'url' | 'model' | 'where' | 'server'>;

/** The port of `url` when it is one of `server`'s (the host knows the server by it): the port the
 *  player set, not the server's usual one (issue 34: llama.cpp on 9931 is not told to listen on 8080). */
function portOf(url: string, server: KnownServer): number | null {
  let port: number;
  try { port = Number(new URL(url).port); } catch { return null; }
  return server.ports.includes(port) ? port : null;
}

/** What to do when nothing answers: start the server known at that port, the AI server on this PC, or check the address. */
function notListening(t: Translate, ai: Tried | null): string {
  const url = ai?.url ?? '';
  if (ai?.where !== 'pc') return t('ai.problem.not_listening_online', { url });
  const port = ai.server ? portOf(url, ai.server) : null;
  return ai.server && port !== null
    ? t('ai.problem.not_listening_known', { url, name: ai.server.name, port })
    : t('ai.problem.not_listening_pc', { url });
}

/** A failure to reach or use the AI, in words, with the settings it was tried with. */
export function problemWords(t: Translate, code: string | null | undefined, ai: Tried | null): string {
  const model = ai?.model ?? null;
  switch (code) {
    case 'ai_not_set': return ai?.url ? t('ai.problem.no_model') : t('ai.problem.not_set');
    case 'ai_not_listening': return notListening(t, ai);
    case 'ai_model_unknown': return model ? t('ai.problem.model_unknown', { model }) : t('ai.problem.no_model');
    case 'ai_no_tools': return t('ai.problem.no_tools', { model: model ?? '' });
    case 'ai_bad_url': case 'ai_private_address': case 'ai_key_refused': case 'ai_timeout': case 'ai_redirect':
    case 'ai_http': case 'ai_bad_answer': case 'ai_turn_too_long':
      return t(`ai.problem.${code.slice(3)}` as Key);
    default: return t('ai.problem.other');
  }
}

/** Items as a list in `language` ("a, b and c" or "a, b or c"), in English where Intl cannot read the tag. */
function listOf(language: string, type: 'conjunction' | 'disjunction', items: string[]): string {
  try { return new Intl.ListFormat(language, { type }).format(items); } catch { return new Intl.ListFormat('en', { type }).format(items); }
}

/** The servers the app looks for on this PC (the host's list), each with every port it is looked for on (issue 34:
 *  llama.cpp on 8080 or 9931). */
export function lookedForWords(t: Translate, language: string, servers: KnownServer[]): string {
  const named = servers.map((s) => t('ai.pc.server_port', { name: s.name, port: listOf(language, 'disjunction', s.ports.map(String)) }));
  return t('ai.pc.explain', { servers: listOf(language, 'conjunction', named) });
}

/** None of them answers: start one of them. */
export function noneWords(t: Translate, language: string, servers: KnownServer[]): string {
  return t('ai.pc.none', { servers: listOf(language, 'disjunction', servers.map((s) => s.name)) });
}

/** Whether a host error is one of the AI's own (its words come from problemWords): one of the
 *  generated AiCode values, never guessed from its spelling (issue 33). */
export function isAiCode(code: string): code is AiCode {
  return isOneOf(AiCodeValues, code);
}

/** Whether the model can use tools, once Test reached it (issue 34): yes, or no with a model to choose
 *  instead (the host's example for that server) and, for llama.cpp, that its chat template decides;
 *  when unknown, that too, and why (an online AI is not asked; a server of this PC may not say). */
export function toolsWords(t: Translate, test: AiTest): string[] {
  if (!test.ok) return [];
  if (test.tools === null) return [t(test.where === 'online' ? 'ai.tools.unknown_online' : 'ai.tools.unknown')];
  if (test.tools) return [t('ai.tools.yes')];
  // The host names a model whenever it says no: the server that said it has one in its table.
  const no = t('ai.tools.no', { model: test.tool_model ?? '' });
  return test.server?.server === 'llama_cpp' ? [no, t('ai.tools.llama_cpp')] : [no];
}

/** Test's answer: Connected with the model count (its plural by the language's rules), or what went wrong. */
export function testWords(t: Translate, test: AiTest, settings: Tried): string {
  if (test.ok) return t('ai.connected', { count: test.models.length });
  return problemWords(t, test.code, settings);
}

/** The answer length's field refused (issue 34): by its code, with the host's bounds; another failure as any. */
export function maxTokensWords(t: Translate, error: ApiError, bounds: AnswerLength): string {
  return error.code === 'bad_input' ? t('ai.max_tokens_bad', { ...bounds }) : errorWords(t, error);
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
