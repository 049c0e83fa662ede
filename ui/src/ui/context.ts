import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Translate } from '../i18n';
import type { ApiError, AppSwitches, Card, ChatStatus, Review } from '../types';

/** What a card of My plugins does: stable while cards change, so that a card re-renders only when its own props do. */
export interface CardActions {
  openDetails: (slug: string) => void;
  openOptions: (slug: string) => void;
  askUninstall: (card: Card) => void;
  showError: (e: ApiError) => void;
}

export interface AppApi extends CardActions {
  t: Translate;
  language: string;
  switches: AppSwitches;
  /** Shows a review on the consent screen (from an import, a folder or the catalog). */
  startReview: (make: () => Promise<Review>, file?: string) => Promise<void>;
  /** The same functions as the fields, in one object that stays the same between renders. */
  cardActions: CardActions;
  announce: (text: string) => void;
  /** The last event turn's message, by slug (from door notices). */
  lastTurns: ReadonlyMap<string, string>;
  /** When each read was made stale by a host event (stale.ts): a screen keys its read on `stampOf`. */
  stamps: ReadonlyMap<string, number>;
  cards: Map<string, Card>;
  /** The Twitch chat as the host last reported it (issue 36): read at start, then from its `twitch` events. */
  twitch: ChatStatus | null;
}

export const Ctx = createContext<AppApi>(null as unknown as AppApi);
export const useApp = () => useContext(Ctx);

/**
 * The translator alone, which changes only with the language: a component that needs no
 * more of the app reads it here and is not drawn again each time a card changes (the app
 * context changes then).
 */
export const TCtx = createContext<Translate>(((key: string) => key) as Translate);
export const useT = () => useContext(TCtx);
