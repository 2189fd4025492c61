// Drafts: every track being made, kept in this browser's localStorage (so a reload, or
// coming back another day, finds them), under one key as {current, drafts: [{id, name,
// updated, level (level JSON), remixOf}]}. The editor saves the open draft after each edit.

const KEY = 'pogo.editor.drafts';

/** The stored drafts ({current, drafts}); an empty store when there is none or it is bad. */
export function loadDrafts() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    if (value && Array.isArray(value.drafts)) return value;
  } catch { /* a bad store: start again */ }
  return { current: null, drafts: [] };
}

function store(value) {
  try {
    localStorage.setItem(KEY, JSON.stringify(value));
    return null;
  } catch (e) {
    return `the draft could not be saved in this browser (${e.name}): export it to keep it`;
  }
}

/** A new draft id. */
export function newDraftId() {
  return `d${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/** Saves draft `draft` ({id, name, level, remixOf}) and makes it the current one; an error
 * message, or null. */
export function saveDraft(draft) {
  const all = loadDrafts();
  const entry = { ...draft, updated: new Date().toISOString() };
  const at = all.drafts.findIndex((d) => d.id === draft.id);
  if (at >= 0) all.drafts[at] = entry;
  else all.drafts.unshift(entry);
  all.current = draft.id;
  return store(all);
}

/** Forgets draft `id`. */
export function deleteDraft(id) {
  const all = loadDrafts();
  all.drafts = all.drafts.filter((d) => d.id !== id);
  if (all.current === id) all.current = all.drafts[0]?.id ?? null;
  store(all);
}
