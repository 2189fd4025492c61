// The server's JSON API, as the page uses it: GET with bounded retries on 429 and 503 (the
// server says how long to wait in Retry-After), errors as `ApiError` with the server's
// `{"error", "message"}`.

/** Tries of one request when the server answers 429 or 503 (then the error stands). */
const TRIES_MAX = 4;
/** Longest wait between tries (s), whatever Retry-After says. */
const RETRY_WAIT_MAX_S = 5;

/** A failed request: HTTP status, the server's stable code and its message for a human. */
export class ApiError extends Error {
  constructor(status, code, message, body = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/** `encodeURIComponent` for one path segment (level and player names are any text). */
export const segment = (text) => encodeURIComponent(String(text));

/** Sends a request; resolves with the parsed JSON body or rejects with an `ApiError`. */
export async function request(url, options = {}) {
  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      response = await fetch(url, { ...options, headers: { accept: 'application/json', ...options.headers } });
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiError(0, 'network', `cannot reach the server: ${e.message}`);
    }
    if ((response.status === 429 || response.status === 503) && attempt < TRIES_MAX && options.retry !== false) {
      const wait = Math.min(Number(response.headers.get('retry-after')) || 1, RETRY_WAIT_MAX_S);
      await sleep(wait * 1000, options.signal);
      continue;
    }
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      throw new ApiError(response.status, body?.error ?? `http_${response.status}`, body?.message ?? response.statusText, body);
    }
    return { status: response.status, body };
  }
}

/** GET a JSON document. */
export async function getJson(url, options = {}) {
  return (await request(url, options)).body;
}

/** Resolves after `ms`, or rejects if `signal` aborts first. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    }, { once: true });
  });
}
