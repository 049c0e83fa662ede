import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Translate } from '../i18n';
import type { ApiError, AppSwitches, Card, Review } from '../types';

export interface AppApi {
  t: Translate;
  language: string;
  switches: AppSwitches;
  /** Shows a review on the consent screen (from an import, a folder or the catalog). */
  startReview: (make: () => Promise<Review>, file?: string) => Promise<void>;
  openDetails: (slug: string) => void;
  openOptions: (slug: string) => void;
  askUninstall: (card: Card) => void;
  announce: (text: string) => void;
  /** The last event turn's message, by slug (from door notices). */
  lastTurns: Record<string, string>;
  /** Bumped when a plugin's card changes, by slug. */
  versions: Record<string, number>;
  cards: Map<string, Card>;
  /** Bumped when the event door reports a new state. */
  doorTick: number;
  showError: (e: ApiError) => void;
}

export const Ctx = createContext<AppApi>(null as unknown as AppApi);
export const useApp = () => useContext(Ctx);
