// One call opened (§19, issue 23): the request the app sent, every secret
// as `[secret]`, and exactly what the AI read. One view for the two places
// a player looks at a call: Try an action's result in Details, and a tool
// line opened under the companion's answer.
import type { ComponentChildren } from 'preact';
import type { SentRequest } from '../types';
import { useT } from './context';

/** The request as sent (none: said so), what ended the call when `outcome` is given, and what the
 * AI read. Its headings are `heading` (the level under the place's own); `prefix` names its parts
 * for tests: `<prefix>-request`, `<prefix>-ai-reads`. */
export function CallView(props: {
  sent: SentRequest | null; forAi: string; prefix: string; heading: 'h3' | 'h4' | 'h5'; outcome?: ComponentChildren;
}) {
  const t = useT();
  const { sent, prefix } = props;
  const Heading = props.heading;
  return (
    <>
      <Heading>{t('dev.try_request')}</Heading>
      {sent ? (
        <div data-testid={`${prefix}-request`}>
          <p><code class="wrap">{sent.method} {sent.url}</code></p>
          {sent.headers.length > 0 && (
            <>
              <p class="muted">{t('dev.headers')}</p>
              <pre>{sent.headers.map(([k, v]) => `${k}: ${v}`).join('\n')}</pre>
            </>
          )}
          {sent.body && (<><p class="muted">{t('dev.body')}</p><pre>{sent.body}</pre></>)}
        </div>
      ) : <p class="muted">{t('dev.try_no_request')}</p>}
      {props.outcome !== undefined && (<><Heading>{t('dev.try_outcome')}</Heading>{props.outcome}</>)}
      <Heading>{t('dev.try_ai_reads')}</Heading>
      <pre class="ai-reads" data-testid={`${prefix}-ai-reads`}>{props.forAi}</pre>
    </>
  );
}
