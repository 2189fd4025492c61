// Moving a track in and out: a level JSON file (download, file picker, drop) and a short
// text code to paste into a chat: `pogo1:` then the level JSON, deflated
// (`CompressionStream('deflate-raw')`) and in base64url. Whatever comes in is refused with a
// reason unless it is a level the server's gate accepts (a track without a finish yet is let
// in: the editor shows that as a problem to fix).

/** The code's prefix: the format and its version. */
export const CODE_PREFIX = 'pogo1:';
/** The largest level file (bytes): a track's limit. */
export const FILE_BYTES_MAX = 256 << 10;
/** The longest code accepted (characters). */
const CODE_CHARS_MAX = 400_000;

function base64url(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64url(text) {
  const b64 = text.replaceAll('-', '+').replaceAll('_', '/');
  return Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

async function through(bytes, stream, limit) {
  const reader = new Blob([bytes]).stream().pipeThrough(stream).getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`it unpacks to more than ${limit} bytes, more than a track may be`);
    }
    parts.push(value);
  }
  return new Uint8Array(await new Blob(parts).arrayBuffer());
}

/** The code of level JSON `text`. */
export async function encodeCode(text) {
  const packed = await through(new TextEncoder().encode(text), new CompressionStream('deflate-raw'), Infinity);
  return CODE_PREFIX + base64url(packed);
}

/** The level JSON of `code`; throws an Error saying why it is not one. */
export async function decodeCode(code) {
  const text = code.trim();
  if (!text.startsWith(CODE_PREFIX)) {
    throw new Error(`a track code starts with “${CODE_PREFIX}”${/^pogo\d+:/.test(text) ? ' (this one is of another version)' : ''}`);
  }
  const body = text.slice(CODE_PREFIX.length);
  if (body.length > CODE_CHARS_MAX) throw new Error('the code is far longer than a track\'s');
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw new Error('the code has characters a track code never has (was it cut or changed?)');
  let bytes;
  try {
    bytes = await through(fromBase64url(body), new DecompressionStream('deflate-raw'), FILE_BYTES_MAX);
  } catch (e) {
    throw new Error(e.message.includes('unpacks') ? e.message : 'the code does not unpack (was it cut or changed?)');
  }
  return new TextDecoder().decode(bytes);
}

/** A refusal of the gate as one line: its field, then why (which the parser's own messages
 * already begin with the field). */
export function refusalText({ field, why }) {
  return field && !why.startsWith(field) ? `${field}: ${why}` : why;
}

/**
 * Level JSON `text` as a level object, or an Error saying why not: not JSON, over the size,
 * or refused by the gate (`check`: pogo.checkTrack) for anything but the lack of a finish.
 */
export function parseImport(text, check) {
  if (text.length > FILE_BYTES_MAX) throw new Error(`the file is ${text.length} bytes; a track is at most ${FILE_BYTES_MAX} (256 KiB)`);
  let level;
  try {
    level = JSON.parse(text);
  } catch {
    throw new Error('it is not JSON: a track is a level JSON file (replay/LEVELS.md)');
  }
  if (!level || typeof level !== 'object' || Array.isArray(level)) throw new Error('it is not a level: a level is a JSON object');
  const gate = check(text);
  if (!gate.ok && gate.field !== 'finishes') throw new Error(refusalText(gate));
  return level;
}

/** Starts a download of `text` as file `name`. */
export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file's name for a track called `name`. */
export function fileName(name) {
  return `${name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'track'}.json`;
}
