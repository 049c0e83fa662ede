// One settings field (consent screen and Options): text, number, switch or secret.
import { api } from '../api';
import { useId } from './common';
import { useApp } from './context';

export interface FieldSpec {
  key: string; label: string; description: string | null; kind: string; required: boolean; secret: boolean;
  helpUrl: string | null; helpDomain: string | null; min: number | null; max: number | null;
}

// A number's min/max go on its input for the spin buttons and assistive
// tech; the forms holding these fields are noValidate, so a value out of
// range reaches the host and its reason shows next to the field instead of
// the browser's own bubble.
export function SettingField(props: {
  spec: FieldSpec; value: string | boolean; onChange: (v: string | boolean) => void; error?: string; note?: string;
  placeholder?: string;
}) {
  const { t, showError } = useApp();
  const { spec } = props;
  const id = useId(`set-${spec.key}`);
  const describedBy = [spec.description ? `${id}-d` : '', props.error ? `${id}-e` : '', props.note ? `${id}-n` : '']
    .filter(Boolean).join(' ') || undefined;
  const help = spec.helpUrl && (
    <button type="button" class="link-button" onClick={() => api.openHelp(spec.helpUrl!).catch((e) => showError(e))}>
      {t('consent.open_help', { domain: spec.helpDomain ?? spec.helpUrl })}
    </button>
  );
  if (spec.kind === 'boolean') {
    return (
      <div class="field">
        <div class="switch-row">
          <input
            id={id} type="checkbox" role="switch" class="switch" checked={props.value === true}
            data-testid={`setting-${spec.key}`} aria-describedby={describedBy}
            onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)}
          />
          <label for={id}>{spec.label}</label>
        </div>
        {spec.description && <p id={`${id}-d`} class="help">{spec.description}</p>}
        {help}
        {props.error && <p id={`${id}-e`} class="field-error">{props.error}</p>}
      </div>
    );
  }
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label for={id}>
        {spec.label}
        {spec.required && <span class="required"> ({t('field.required')})</span>}
      </label>
      <input
        id={id} data-testid={`setting-${spec.key}`}
        type={spec.secret ? 'password' : spec.kind === 'number' ? 'number' : 'text'}
        inputMode={spec.kind === 'number' ? 'decimal' : undefined}
        min={spec.min ?? undefined} max={spec.max ?? undefined}
        autoComplete={spec.secret ? 'new-password' : 'off'} spellcheck={false}
        value={String(props.value)} required={spec.required} placeholder={props.placeholder}
        aria-invalid={props.error ? true : undefined} aria-describedby={describedBy}
        onInput={(e) => props.onChange((e.currentTarget as HTMLInputElement).value)}
      />
      {spec.description && <p id={`${id}-d`} class="help">{spec.description}</p>}
      {props.note && <p id={`${id}-n`} class="help">{props.note}</p>}
      {help}
      {props.error && <p id={`${id}-e`} class="field-error">{props.error}</p>}
    </div>
  );
}

/** A typed value for the host: numbers as numbers, switches as booleans, text trimmed. */
export function hostValue(kind: string, v: string | boolean): unknown {
  if (kind === 'boolean') return v === true;
  const s = String(v).trim();
  if (kind === 'number') {
    const n = Number(s);
    return s !== '' && Number.isFinite(n) ? n : s;
  }
  return s;
}
