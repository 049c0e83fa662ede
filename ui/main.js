// The settings panel. No framework, no bundler: the files in ui/ are what
// the app embeds. Everything about a plugin is decided by the Rust side;
// this file only shows what it says.
"use strict";

/** Calls a command of the app; rejects when not running inside Tauri. */
function invoke(command, args) {
  const tauri = window.__TAURI__;
  if (!tauri || !tauri.core) {
    return Promise.reject(new Error("This page only works inside the Desktop Companion app."));
  }
  return tauri.core.invoke(command, args);
}

// ---- Tabs -----------------------------------------------------------------

function selectTab(tab) {
  for (const other of document.querySelectorAll('[role="tab"]')) {
    const selected = other === tab;
    other.setAttribute("aria-selected", String(selected));
    other.tabIndex = selected ? 0 : -1;
    document.getElementById(other.getAttribute("aria-controls")).hidden = !selected;
  }
}

function setUpTabs() {
  const tabs = Array.from(document.querySelectorAll('[role="tab"]'));
  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => selectTab(tab));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = tabs[(index + step + tabs.length) % tabs.length];
      selectTab(next);
      next.focus();
    });
  });
}

// ---- Import a plugin --------------------------------------------------------

/** One problem as a line: "code  path  message". */
function problemItem(problem, kind) {
  const item = document.createElement("li");
  item.className = kind;
  for (const [cls, text] of [["code", problem.code], ["path", problem.path || "-"], ["message", problem.message]]) {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = text;
    item.append(span);
  }
  return item;
}

function showResult(validation) {
  const summary = document.getElementById("import-summary");
  const list = document.getElementById("import-problems");
  list.replaceChildren(
    ...validation.errors.map((p) => problemItem(p, "error")),
    ...validation.warnings.map((p) => problemItem(p, "warning")),
  );
  const name = validation.slug ? `“${validation.slug}”` : "This plugin";
  const errors = validation.errors.length;
  const warnings = validation.warnings.length;
  if (validation.ok) {
    summary.textContent = warnings
      ? `${name} can be imported, with ${warnings} warning${warnings > 1 ? "s" : ""}.`
      : `${name} can be imported.`;
    summary.className = "ok";
  } else {
    summary.textContent = `${name} cannot be imported: ${errors} problem${errors > 1 ? "s" : ""} to fix.`;
    summary.className = "bad";
  }
  document.getElementById("import-result").hidden = false;
}

function showFailure(error) {
  const summary = document.getElementById("import-summary");
  summary.textContent = String(error && error.message ? error.message : error);
  summary.className = "bad";
  document.getElementById("import-problems").replaceChildren();
  document.getElementById("import-result").hidden = false;
}

function setUpImport() {
  const form = document.getElementById("import-form");
  const button = document.getElementById("import-check");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const path = document.getElementById("import-path").value.trim();
    if (!path) return;
    button.disabled = true;
    try {
      showResult(await invoke("validate_plugin", { path }));
    } catch (error) {
      showFailure(error);
    } finally {
      button.disabled = false;
    }
  });
}

// Open the plugins folder (§19): the app opens it in the file manager and
// shows its path, for a PC where no file manager answers.
function setUpPluginsFolder() {
  const button = document.getElementById("open-plugins-folder");
  const note = document.getElementById("plugins-folder");
  button.addEventListener("click", async () => {
    try {
      note.textContent = await invoke("open_plugins_folder");
    } catch (error) {
      note.textContent = String(error);
    }
  });
}

// Where no keyring keeps secrets past a restart (§11), the app says so
// before the player types one; the sentence is the engine's.
async function showSecretsWarning() {
  const banner = document.getElementById("secrets-warning");
  try {
    const warning = await invoke("secrets_warning");
    banner.textContent = warning || "";
    banner.hidden = !warning;
  } catch (error) {
    banner.hidden = true;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  showSecretsWarning();
  setUpPluginsFolder();
  setUpTabs();
  setUpImport();
});
