// A run's page (`#/run/ID`): the verdict, the splits, what the replay file says about itself
// (`pogo inspect`'s header, unverified claims) and a download link for the replay. A verified
// run can be re-checked by anyone: "Verify in your browser" fetches its replay and runs the
// same verifier the server ran, compiled to WebAssembly, in this page; its verdict, finish
// tick and final hash are shown beside the server's. And raced: "Race this ghost".

import { boardHref, playHref, raceHref, runHref } from '../routes.js';
import { ApiError, getJson, segment, sleep } from '../shared/api.js';
import { el, link, replace } from '../shared/dom.js';
import { checkpointLabel, date } from '../shared/format.js';
import { CoreMismatch, CoreMissing, hex64, loadCore } from '../shared/wasm.js';

/** Time between two status polls while a run waits for its verdict (ms). */
const POLL_INTERVAL_MS = 500;

export async function renderRun(main, id, params, view) {
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
    const standing = !run.current_season ? ` · season ${run.season} (past)`
      : run.rank ? ` · rank ${run.rank}` : run.finish_tick === null ? '' : ' · not the player’s best';
    verdict.append(el('strong', {}, 'Verified'), run.finish_tick === null ? ' · does not finish' : ` · ${run.time} (finish tick ${run.finish_tick})`,
      standing);
    // Real-time (played under a run ticket, on time), or why a ticketed run is not.
    if (run.realtime) {
      verdict.append(' · ', el('span', { class: 'match realtime', dataset: { realtime: 'true' } }, 'real-time ✓'),
        run.realtime_rank ? ` (rank ${run.realtime_rank} on the real-time board)` : '');
    } else if (run.realtime_note) {
      verdict.append(' · ', el('span', { class: 'realtime', dataset: { realtime: 'false' } }, `not real-time: ${run.realtime_note}`));
    }
  } else if (run.status === 'rejected') {
    verdict.append(el('strong', {}, 'Rejected'), ': ', el('span', { class: 'reason' }, run.reason ?? ''),
      run.reason_kind ? el('span', { class: 'muted' }, ` (${run.reason_kind})`) : null);
  } else {
    verdict.append(el('strong', {}, run.status), ' · waiting for the verifier…');
  }
  const facts = el('dl', { class: 'facts' },
    fact('player', link(boardHref(run.level, { around: run.player }), run.player)),
    fact('level', link(boardHref(run.level), run.level)),
    fact('season', link(boardHref(run.level, { season: run.current_season ? null : run.season }), `${run.season} (${run.current_season ? 'current' : 'past'})`)),
    run.reverified_from !== null ? fact('re-verified from', link(runHref(run.reverified_from), `run ${run.reverified_from}`)) : null,
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
  if (run.status === 'verified' && !run.current_season) {
    // A past season's run re-simulates only under its own rules: no ghost, no race here.
    actions.append(el('a', { href: run.replay_url, download: `run-${run.id}.pogo`, class: 'download' }, `Download the replay (run-${run.id}.pogo)`),
      ' · ', el('span', { class: 'muted' }, 'A past season’s run: it cannot be raced on this server.'));
  } else if (run.status === 'verified') {
    actions.append(el('a', { href: run.replay_url, download: `run-${run.id}.pogo`, class: 'download' }, `Download the replay (run-${run.id}.pogo)`));
    if (run.finish_tick !== null) actions.append(' · ', el('a', { href: playHref(run.level, [run.id]), class: 'race-ghost' }, 'Race this ghost'));
    const leader = await leaderOf(run.level, view);
    if (leader && leader.run_id !== run.id) actions.append(' · ', link(raceHref([run.id, leader.run_id]), `Race the leader (${leader.player})`));
    else if (leader) actions.append(' · ', el('span', { class: 'muted' }, 'This run leads the board.'));
  } else {
    actions.append(el('span', { class: 'muted' }, 'The replay can be downloaded and raced once verified.'));
  }

  replace(section,
    el('h2', {}, `Run ${run.id}: `, run.player, ' on ', run.level),
    verdict, facts, actions,
    run.status === 'verified' && run.current_season ? browserCheck(run, view) : null,
    el('h3', {}, 'Splits'), splits,
    el('h3', {}, 'The replay file (as uploaded; its claims, not verified)'), header);
}

/**
 * "Verify in your browser": the run's replay bytes through the wasm verifier in this page;
 * its verdict, finish tick and final hash beside the server's, each marked match or not.
 */
function browserCheck(run, view) {
  const button = el('button', { type: 'button', class: 'verify-button' }, 'Verify in your browser');
  const result = el('div', { class: 'browser-result', role: 'status', 'aria-live': 'polite' });
  const box = el('section', { class: 'browser-verify', 'aria-label': 'Verify in your browser' },
    el('h3', {}, 'Check it yourself'),
    el('p', { class: 'muted small' }, 'Re-simulates the replay here, with the same simulation core the server verified it with (compiled to WebAssembly), and compares.'),
    button, result);
  button.addEventListener('click', async () => {
    button.disabled = true;
    box.dataset.state = 'running';
    replace(result, 'Fetching the replay and the simulation…');
    try {
      const response = await fetch(run.replay_url, { signal: view.signal });
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        throw new Error(`the replay could not be fetched: ${body?.message ?? response.statusText} (${response.status})`);
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      const { pogo, tuning } = await loadCore(view.signal);
      replace(result, `Re-simulating ${bytes.length} bytes…`);
      const started = performance.now();
      const verifier = pogo.verifier({ tuning });
      let verdict;
      try {
        verdict = verifier.verify(bytes);
      } finally {
        verifier.free();
      }
      const ms = performance.now() - started;
      const finish = verdict.finishTicks[0] ?? null;
      const hash = hex64(verdict.finalHash);
      const name = verdict.verified ? 'verified' : verdict.kindName;
      Object.assign(box.dataset, {
        state: 'done', browserVerdict: name, browserHash: hash, browserFinish: finish === null ? 'none' : String(finish),
      });
      const serverHash = run.final_hash ?? null;
      const mark = (same) => (same === null ? el('span', { class: 'muted' }, 'not reported by this server')
        : same ? el('span', { class: 'match' }, '✓ match') : el('span', { class: 'mismatch' }, '✗ MISMATCH'));
      const matches = [verdict.verified, finish === run.finish_tick, serverHash === null ? null : hash === serverHash];
      box.dataset.match = String(matches.every((m) => m !== false));
      replace(result,
        el('p', { class: `browser-verdict ${verdict.verified ? 'good' : 'bad'}` },
          el('strong', {}, verdict.verified ? 'Verified in your browser' : `Not verified in your browser: ${verdict.kindName}`),
          verdict.verified ? null : [': ', el('span', { class: 'reason' }, verdict.reason)],
          el('span', { class: 'muted' }, ` (${verdict.ticks} ticks in ${ms.toFixed(0)} ms)`)),
        el('table', { class: 'compare-table' },
          el('thead', {}, el('tr', {}, ['', 'your browser', 'the server', ''].map((h) => el('th', { scope: 'col' }, h)))),
          el('tbody', {},
            el('tr', { class: 'verdict-row' }, el('th', { scope: 'row' }, 'verdict'), el('td', {}, name), el('td', {}, run.status), el('td', {}, mark(matches[0]))),
            el('tr', { class: 'finish-row' }, el('th', { scope: 'row' }, 'finish tick'), el('td', {}, finish === null ? 'none' : String(finish)),
              el('td', {}, run.finish_tick === null ? 'none' : String(run.finish_tick)), el('td', {}, mark(matches[1]))),
            el('tr', { class: 'hash-row' }, el('th', { scope: 'row' }, 'final hash'), el('td', {}, el('code', {}, hash)),
              el('td', {}, serverHash === null ? '—' : el('code', {}, serverHash)), el('td', {}, mark(matches[2]))))));
    } catch (e) {
      if (e.name === 'AbortError') return;
      box.dataset.state = 'error';
      const missing = e instanceof CoreMissing || e instanceof CoreMismatch;
      replace(result, el('p', { class: 'error', role: 'alert' }, missing ? e.message : `Could not verify here: ${e.message}`));
    } finally {
      button.disabled = false;
    }
  });
  return box;
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
