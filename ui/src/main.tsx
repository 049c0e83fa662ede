import { render } from 'preact';
import { api } from './api';
import { App } from './ui/app';
import './styles.css';

// The player's language is read before the first paint: painted in English, then redrawn in
// French, the window would flash the wrong language at every start. A host that cannot answer
// still gets the window (in English), which then says what went wrong.
const root = document.getElementById('app')!;
api.switches().then(
  (switches) => render(<App initial={switches} />, root),
  () => render(<App />, root),
);
