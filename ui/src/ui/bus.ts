// Journal lines that arrive live (host-event journal_added), for the Actions tab.
import type { JournalLine } from '../types';

type Listener = (line: JournalLine) => void;
const listeners = new Set<Listener>();

export const journalBus = {
  subscribe(l: Listener): () => void { listeners.add(l); return () => listeners.delete(l); },
  publish(line: JournalLine): void { for (const l of listeners) l(line); },
};
