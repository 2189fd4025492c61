// The tracks players made (`#/tracks`): newest, most raced in the last 7 days, by author
// (`?author=NAME`), or searched by name (`?q=TEXT`: names starting with it), a page at a time
// (`GET /api/tracks`, keyset: "More" asks for the next page). Each track shows its top-down
// picture (drawn from its level file), its author and author time, and links to its page,
// Play and its board.

import { boardHref, editorHref, playHref, trackHref, tracksHref } from '../routes.js';
import { getJson } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { drawTrackPicture } from '../shared/track-picture.js';

/** The lists, by `sort`. */
const SORTS = [['new', 'Newest'], ['popular', 'Most raced this week']];
/** Tracks a page. */
const PAGE = 20;
/** A listed track's picture (px). */
const THUMB = { width: 240, height: 150 };

export async function renderTracks(main, params, view) {
  const author = params.get('author') || null;
  const q = params.get('q') || null;
  const sort = q ? 'name' : params.get('sort') === 'popular' ? 'popular' : 'new';
  const list = el('ol', { class: 'track-list', 'aria-live': 'polite' });
  const more = el('button', { type: 'button', class: 'track-more', hidden: true }, 'More');
  const search = el('input', { type: 'search', name: 'q', placeholder: 'Search by name', value: q ?? '', 'aria-label': 'Search tracks by name', maxlength: 64 });
  const form = el('form', { class: 'track-search' }, search, el('button', { type: 'submit' }, 'Search'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = tracksHref(search.value.trim() ? { q: search.value.trim() } : {});
  });
  const title = author ? ['Tracks by ', el('span', { class: 'player' }, author)] : q ? ['Tracks named ', el('q', {}, q), '…'] : 'Tracks';
  const tabs = el('nav', { class: 'levels track-sorts', 'aria-label': 'Order' },
    SORTS.map(([key, label]) => {
      const a = link(tracksHref({ ...(key === 'new' ? {} : { sort: key }), ...(author ? { author } : {}) }), label);
      if (!q && key === sort) a.setAttribute('aria-current', 'page');
      return a;
    }));
  replace(main, el('section', { class: 'tracks', dataset: { sort } },
    el('div', { class: 'track-head' }, el('h2', {}, title), link(editorHref(), 'Build a track')),
    el('p', { class: 'muted' }, 'Tracks made by players, each published by its author finishing it: the author time is the first entry of its board.'),
    el('div', { class: 'track-bar' }, tabs, form),
    list, more));
  let cursor = null;
  const page = async () => {
    const query = new URLSearchParams({ limit: String(PAGE), ...(q ? { q } : { sort }), ...(author ? { author } : {}), ...(cursor ? { cursor } : {}) });
    const body = await getJson(`/api/tracks?${query}`, { signal: view.signal });
    for (const track of body.tracks) list.append(trackItem(track, sort, view));
    cursor = body.next_cursor;
    more.hidden = !cursor;
    main.querySelector('section.tracks').dataset.count = String(list.children.length);
    if (list.children.length === 0) list.replaceWith(el('p', { class: 'muted track-empty' }, empty(sort, author, q)));
  };
  more.addEventListener('click', () => { more.disabled = true; page().finally(() => { more.disabled = false; }); });
  await page();
}

function empty(sort, author, q) {
  if (q) return 'No track has a name starting with that.';
  if (author) return 'This player has published no track yet.';
  return sort === 'popular' ? 'No track was raced this week yet.' : 'No track yet: build the first one in the editor.';
}

/** One listed track. */
function trackItem(track, sort, view) {
  const canvas = el('canvas', { class: 'track-thumb', width: THUMB.width, height: THUMB.height, 'aria-label': `${track.name}, seen from above` });
  // The picture comes from the level file; a failed read leaves the blank canvas.
  getJson(track.level_json_url, { signal: view.signal }).then((level) => drawTrackPicture(canvas, level), () => {});
  const raced = sort === 'popular' && track.raced_recently != null ? [' · ', `${track.raced_recently} finishes this week`] : null;
  return el('li', { class: 'track-item', dataset: { track: track.id } },
    link(trackHref(track.id), canvas),
    el('div', { class: 'track-meta' },
      el('h3', {}, link(trackHref(track.id), track.name)),
      el('p', {}, 'by ', link(tracksHref({ author: track.author }), track.author),
        ' · author time ', el('strong', {}, track.medals.author.time), raced),
      el('p', { class: 'muted' }, `${track.runs} ${track.runs === 1 ? 'finish' : 'finishes'}`,
        track.remix_of ? [' · a remix'] : null),
      el('p', { class: 'track-links' }, link(playHref(track.level), 'Play'), ' · ', link(boardHref(track.level), 'Board'))));
}
