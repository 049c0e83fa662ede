// Typed wrappers of the host's commands (see the app contract). Every
// command name appears here once as an invoke call; a cargo test compares
// this set with the commands the Rust side registers.
import { invoke } from '@tauri-apps/api/core';
import type {
  AppSwitches, SwitchesPatch, Card, PluginDetails, CatalogEntry, Review, InstallRequest, Installed,
  EventsPage, PluginTest, TriedAction, JournalQuery, JournalLine, CloudChoice, Source, Model, ApiError, ErrorCode,
} from './types';

export const api = {
  switches: () => invoke<AppSwitches>("switches"),
  setSwitches: (patch: SwitchesPatch) => invoke<AppSwitches>("set_switches", { patch }),
  secretsWarning: () => invoke<string | null>("secrets_warning"),
  pluginCards: () => invoke<Card[]>("plugin_cards"),
  pluginCard: (slug: string) => invoke<Card>("plugin_card", { slug }),
  pluginIcon: (slug: string) => invoke<string | null>("plugin_icon", { slug }),
  pluginDetails: (slug: string) => invoke<PluginDetails>("plugin_details", { slug }),
  catalog: () => invoke<CatalogEntry[]>("catalog"),
  importPath: (path: string) => invoke<Review>("import_path", { path }),
  loadFolder: (path: string) => invoke<Review>("load_folder", { path }),
  importOfficial: (slug: string) => invoke<Review>("import_official", { slug }),
  install: (review: string, options: InstallRequest) => invoke<Installed>("install", { review, options }),
  cancelReview: (review: string) => invoke<null>("cancel_review", { review }),
  uninstall: (slug: string) => invoke<null>("uninstall", { slug }),
  reloadPlugins: () => invoke<Card[]>("reload_plugins"),
  setEnabled: (slug: string, on: boolean) => invoke<Card>("set_enabled", { slug, on }),
  setActionEnabled: (slug: string, tool: string, on: boolean) => invoke<Card>("set_action_enabled", { slug, tool, on }),
  saveSettings: (slug: string, values: [string, unknown][]) => invoke<Card>("save_settings", { slug, values }),
  setSecret: (slug: string, key: string, value: string) => invoke<Card>("set_secret", { slug, key, value }),
  clearSecret: (slug: string, key: string) => invoke<Card>("clear_secret", { slug, key }),
  setCloud: (slug: string, choice: CloudChoice) => invoke<Card>("set_cloud", { slug, choice }),
  setTwitch: (slug: string, allowed: boolean) => invoke<Card>("set_twitch", { slug, allowed }),
  keepPlugin: (slug: string) => invoke<Card>("keep_plugin", { slug }),
  eventsPage: (slug: string) => invoke<EventsPage>("events_page", { slug }),
  setEventEnabled: (slug: string, event: string, on: boolean) => invoke<Card>("set_event_enabled", { slug, event, on }),
  copyEventToken: (slug: string) => invoke<null>("copy_event_token", { slug }),
  newEventToken: (slug: string) => invoke<null>("new_event_token", { slug }),
  testPlugin: (slug: string) => invoke<PluginTest>("test_plugin", { slug }),
  tryAction: (tool: string, args: Record<string, unknown>, source: Source, model: Model) =>
    invoke<TriedAction>("try_action", { tool, args, source, model }),
  journal: (query: JournalQuery) => invoke<JournalLine[]>("journal", { query }),
  pickPluginFile: () => invoke<string | null>("pick_plugin_file"),
  pickFolder: () => invoke<string | null>("pick_folder"),
  openPluginsFolder: () => invoke<string>("open_plugins_folder"),
  openPluginFolder: (slug: string) => invoke<null>("open_plugin_folder", { slug }),
  openHelp: (url: string) => invoke<null>("open_help", { url }),
  takeOpenedFiles: () => invoke<string[]>("take_opened_files"),
  uiReady: () => invoke<number>("ui_ready"),
};

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
