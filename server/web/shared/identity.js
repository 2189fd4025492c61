// The racer's identity in this browser: the registered name and its API token, kept in
// localStorage under `pogo.player` as `{"name", "token"}`. The server shows a token once, at
// registration, and keeps only its hash: this is the player's copy. The name is the one the
// server registered (its spelling), which every uploaded replay's header must carry exactly.

import { ApiError, request } from './api.js';

/** The localStorage key. */
export const IDENTITY_KEY = 'pogo.player';

/** A token's shape (`pogo_` and 64 hex digits), checked before it is kept or sent. */
const TOKEN_PATTERN = /^pogo_[0-9a-f]{64}$/;

/** `{name, token}`, or `null` when this browser has none (or what it has is not one). */
export function getIdentity() {
  try {
    const value = JSON.parse(localStorage.getItem(IDENTITY_KEY) ?? 'null');
    if (value && typeof value.name === 'string' && value.name && typeof value.token === 'string' && value.token) {
      return { name: value.name, token: value.token };
    }
  } catch { /* unreadable: as if none */ }
  return null;
}

/** Keeps `{name, token}` (both trimmed); throws an Error with a message for a human if unfit. */
export function setIdentity({ name, token }) {
  const identity = { name: String(name ?? '').trim(), token: String(token ?? '').trim() };
  if (!identity.name) throw new Error('A name is needed: the one the token was registered for.');
  if (!TOKEN_PATTERN.test(identity.token)) throw new Error('That is not a token: a token is “pogo_” and 64 hex digits.');
  localStorage.setItem(IDENTITY_KEY, JSON.stringify(identity));
  window.dispatchEvent(new CustomEvent('pogo-identity', { detail: identity }));
  return identity;
}

/** Forgets the name and token (this browser only: the server keeps the player). */
export function forget() {
  localStorage.removeItem(IDENTITY_KEY);
  window.dispatchEvent(new CustomEvent('pogo-identity', { detail: null }));
}

/** A registration the server refused: `status`, `code` and a message for a human. */
export class RegisterError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'RegisterError';
    this.status = status;
    this.code = code;
  }
}

/**
 * Registers `name` (`POST /api/players`), keeps the identity the server answers with and
 * returns it. Refusals become a `RegisterError` whose message says what to do.
 */
export async function register(name, signal) {
  const wanted = String(name ?? '').trim();
  if (!wanted) throw new RegisterError(400, 'bad_name', 'Type a name first.');
  let body;
  try {
    ({ body } = await request('/api/players', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: wanted }),
      retry: false,
      signal,
    }));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    if (e.status === 409) {
      throw new RegisterError(409, e.code, `“${wanted}” is taken (names are unique ignoring case): pick another, or paste the token you got for it.`);
    }
    if (e.status === 400) {
      throw new RegisterError(400, e.code, `“${wanted}” cannot be a name: ${e.message}. Use 1–32 letters or digits, spaces, - _ . or ’.`);
    }
    if (e.status === 429) {
      const wait = e.body?.retry_after_s;
      throw new RegisterError(429, e.code, `Too many registrations from here: try again${wait ? ` in ${wait} s` : ' shortly'}.`);
    }
    if (e.status === 0) throw new RegisterError(0, e.code, `Cannot reach the server to register: ${e.message}.`);
    throw new RegisterError(e.status, e.code, `Not registered: ${e.message} (${e.status} ${e.code}).`);
  }
  return setIdentity({ name: body.name, token: body.token });
}
