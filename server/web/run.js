// A run's page (`#/run/ID`): the verdict, the splits, what the replay file says about itself
// (`pogo inspect`'s header, unverified claims) and a download link for the replay.

import { ApiError, getJson, segment, sleep } from './api.js';
import { el, link, replace } from './dom.js';
import { checkpointLabel, date } from './format.js';
import { boardHref } from './board.js';
import { raceHref } from './race.js';

/** Time between two status polls while a run waits for its verdict (ms). */
const POLL_INTERVAL_MS = 500;

export async function renderRun(main, id, view) {
  if (!Number.isInteger(id) || id <= 0) {
    replace(main, el('p', { class: 'error' }, 'Not a run id.'));
    return;
  }
  let run = await getJson(`/api/runs/${id}`, { signal: view.signal });
  const inspection = await getJson(`/api/runs/${id}/inspect`, { signal: view.signal });
  const section = el('section', { class: 'run', dataset: { run: id } });
  replace(main, section);
  for (;;) {
    await draw(section, run, inspection, view);
    if (run.status === 'verified' || run.status === 'rejected') break;
    await sleep(POLL_INTERVAL_MS, view.signal);
    run = await getJson(`/api/runs/${id}`, { signal: view.signal });
  }
  section.dataset.ready = 'true';
}

async function draw(section, run, inspection, view) {
  const verdict = el('p', { class: `verdict ${run.status}`, dataset: { status: run.status } });
  if (run.status === 'verified') {
    verdict.append(el('strong', {}, 'Verified'), run.finish_tick === null ? ' · does not finish' : ` · ${run.time} (finish tick ${run.finish_tick})`,
      run.rank ? ` · rank ${run.rank}` : run.finish_tick === null ? '' : ' · not the player’s best');
  } else if (run.status === 'rejected') {
    verdict.append(el('strong', {}, 'Rejected'), ': ', el('span', { class: 'reason' }, run.reason ?? ''),
      run.reason_kind ? el('span', { class: 'muted' }, ` (${run.reason_kind})`) : null);
  } else {
    verdict.append(el('strong', {}, run.status), ' · waiting for the verifier…');
  }
  const facts = el('dl', { class: 'facts' },
    fact('player', link(boardHref(run.level, { around: run.player }), run.player)),
    fact('level', link(boardHref(run.level), run.level)),
    fact('uploaded', date(run.uploaded_at)),
    run.verified_at ? fact('verdict at', date(run.verified_at)) : null,
    run.ticks !== null ? fact('ticks', String(run.ticks)) : null);

  const splits = run.splits.length === 0 ? el('p', { class: 'muted' }, run.status === 'verified' ? 'No checkpoint reached.' : 'Splits come with the verdict.')
    : el('table', { class: 'splits-table' },
      el('thead', {}, el('tr', {}, ['split', 'tick', 'time'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, run.splits.map((s) => el('tr', { dataset: { tick: s.tick } },
        el('th', { scope: 'row' }, checkpointLabel(s.checkpoint)), el('td', {}, String(s.tick)), el('td', {}, s.time)))));

  const h = inspection;
  const claimed = h.claimed_finish.map((f, p) => (f ? `P${p} tick ${f.tick} (${f.time})` : `P${p} none`)).join(', ');
  const header = el('dl', { class: 'inspect' },
    fact('format', String(h.format_version)),
    fact('rules', String(h.rules_version)),
    fact('tick rate', `${h.tick_rate} Hz`),
    fact('fixed point', `${h.frac_bits} fractional bits`),
    fact('level', `${h.level} (hash ${h.level_hash})`),
    fact('tuning', `hash ${h.tuning_hash}`),
    fact('players', String(h.players)),
    fact('player name', h.player_name ?? '-'),
    fact('date', h.date ?? '-'),
    fact('chunks', `${h.chunks} (up to ${h.chunk_ticks} ticks each; a state hash every ${h.hash_interval} ticks)`),
    fact('ticks', String(h.ticks)),
    fact('duration', `${h.duration_s.toFixed(3)} s`),
    fact('finish (claimed)', claimed),
    fact('final hash', h.final_hash),
    fact('size', `${h.bytes} bytes`));

  const actions = el('p', { class: 'actions' });
  if (run.status === 'verified') {
    actions.append(el('a', { href: run.replay_url, download: `run-${run.id}.pogo`, class: 'download' }, `Download the replay (run-${run.id}.pogo)`));
    const leader = await leaderOf(run.level, view);
    if (leader && leader.run_id !== run.id) actions.append(' · ', link(raceHref([run.id, leader.run_id]), `Race the leader (${leader.player})`));
    else if (leader) actions.append(' · ', el('span', { class: 'muted' }, 'This run leads the board.'));
  } else {
    actions.append(el('span', { class: 'muted' }, 'The replay can be downloaded and raced once verified.'));
  }

  replace(section,
    el('h2', {}, `Run ${run.id}: `, run.player, ' on ', run.level),
    verdict, facts, actions,
    el('h3', {}, 'Splits'), splits,
    el('h3', {}, 'The replay file (as uploaded; its claims, not verified)'), header);
}

async function leaderOf(level, view) {
  try {
    const board = await getJson(`/api/levels/${segment(level)}/leaderboard?limit=1`, { signal: view.signal });
    return board.entries[0] ?? null;
  } catch (e) {
    if (e instanceof ApiError) return null; // a level the server no longer runs
    throw e;
  }
}

function fact(term, ...value) {
  return [el('dt', {}, term), el('dd', {}, ...value)];
}
