// The actions' hints (§6) by full name, as the Companion tab names an
// action: read from the details of each installed plugin asked about, once.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { useApp } from './context';

/** The hints of the actions of `slugs`' plugins, by full name: empty at first, filled as their
 * details arrive (a plugin not installed has none; its actions keep their names). */
export function useHints(slugs: Iterable<string>): ReadonlyMap<string, string> {
  const app = useApp();
  const [hints, setHints] = useState<ReadonlyMap<string, string>>(new Map());
  const asked = useRef(new Set<string>());
  const wanted = [...new Set(slugs)].filter((s) => app.cards.has(s) && !asked.current.has(s));
  // A slug is [a-z0-9]: the joined list says which are wanted.
  useEffect(() => {
    for (const slug of wanted) {
      asked.current.add(slug);
      api.details(slug).then((d) => setHints((old) => {
        const next = new Map(old);
        for (const a of d.actions) if (a.hint) next.set(a.full_name, a.hint);
        return next;
      }), () => undefined);
    }
  }, [wanted.join(' ')]);
  return hints;
}
