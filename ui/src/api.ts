// The host's commands: `api`, one typed wrapper per command, is generated
// from the Rust declaration (src-tauri/src/surface.rs) into bindings/api.ts.
import type { ApiError, ErrorCode } from './types';

export { api } from './bindings/api';

/** The ApiError a command rejected with (any other failure becomes an internal one). */
export function asApiError(e: unknown): ApiError {
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) {
    const o = e as ApiError;
    return {
      // A code this UI does not know yet (a newer host) stays as it came: the words fall back.
      code: String(o.code) as ErrorCode, message: String(o.message),
      problems: Array.isArray(o.problems) ? o.problems : [], fields: Array.isArray(o.fields) ? o.fields : [],
    };
  }
  if (typeof e === 'string') {
    try { return asApiError(JSON.parse(e)); } catch { /* plain text */ }
    return { code: 'internal', message: e, problems: [], fields: [] };
  }
  return { code: 'internal', message: String(e), problems: [], fields: [] };
}
