// A level's seasons (`GET /api/levels/{level}/seasons`) on its board page: the current
// season and every past one as a row of choices, and the label that says which one the page
// shows. A season is one board: the level's content under one tuning and rules version; when
// the server's change, uploads go to a new season and the old one stays, read-only.

import { el, link } from '../shared/dom.js';
import { date } from '../shared/format.js';

/** A hash shown short: its first 8 hex digits (the full one is in the title). */
const short = (hash) => hash.slice(0, 8);

/** `season r2-…-… (past)` or `season r2-…-… (current)`: the page's label of a season. */
export function seasonLabel(season) {
  return `season ${season.id} (${season.current ? 'current' : 'past'})`;
}

/** What a season holds, in a few words: `5 runs · 5 players · from 2026-12-03 12:40 UTC`. */
function seasonFacts(season) {
  const facts = [
    `${season.runs} ${season.runs === 1 ? 'run' : 'runs'}`,
    `${season.players} ${season.players === 1 ? 'player' : 'players'}`,
  ];
  if (season.first_verified_at) facts.push(`from ${date(season.first_verified_at)}`);
  return facts.join(' · ');
}

/**
 * The seasons as links to their boards (`href(season)`), the shown one (`shownId`) marked.
 * Nothing when the level has only its current season.
 */
export function seasonList(seasons, shownId, href) {
  if (seasons.seasons.length < 2) return null;
  const items = seasons.seasons.map((season) => {
    const a = link(href(season),
      el('span', { class: 'season-name' }, season.current ? 'Current season' : 'Past season'),
      el('span', { class: 'season-keys muted small' }, `rules ${season.rules_version} · level ${short(season.level_hash)} · tuning ${short(season.tuning_hash)}`),
      el('span', { class: 'season-facts muted small' }, seasonFacts(season)));
    a.setAttribute('title', seasonLabel(season));
    if (season.id === shownId) a.setAttribute('aria-current', 'page');
    return el('li', { dataset: { season: season.id, current: String(season.current) } }, a);
  });
  return el('nav', { class: 'seasons', 'aria-label': 'Seasons' },
    el('h3', { class: 'seasons-title' }, 'Seasons'),
    el('ol', { class: 'season-list' }, items));
}

/** The notice above a past season's board: what it is, and the way back. */
export function pastNotice(season, currentHref) {
  return el('div', { class: 'past-season', role: 'note' },
    el('p', { class: 'past-label' }, el('strong', {}, seasonLabel(season))),
    el('p', { class: 'muted small' },
      `Read-only: these runs were verified under rules ${season.rules_version}, tuning ${season.tuning_hash}, `,
      `level ${season.level_hash}. This server now ranks another season; a past season's runs `,
      'cannot be raced here. ', link(currentHref, 'Back to the current season')));
}
