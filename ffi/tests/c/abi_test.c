/* The C test of pogo-ffi: a C program that uses only include/pogo.h.
 *
 *   abi_test OUTDIR
 *
 * prints, section by section (ffi/tests/c_abi.rs compares them with the Rust side):
 *   == golden   the runs of tests/golden/hashes.txt (flat-idle, course-bot, course-multi),
 *               a line per second of play and an end line per player, in that file's format
 *   == sig      the SIG line of `pogo simulate --level course --bot`
 *   == driver   the final hash of a scripted run through the frame driver, the same at 60,
 *               144 and jittered frame rates
 *   == rollback snapshot / restore mid-run continues bit-identically
 *   == verify   the recorded replay verifies through the ABI; decoded and re-simulated from
 *               its inputs it ends on the verified hash and finish tick; a tampered copy
 *               neither verifies nor decodes
 *   == errors   error paths: every bad call returns its status and a readable message
 *   == handles  objects and blocks left alive at the end (0 0)
 * and writes OUTDIR/course-bot.pogo (the bot's course run) and OUTDIR/driver.pogo (the
 * driver run), which the test hands to `pogo verify`.
 *
 * Exits 1 on the first failed check, with a message on stderr. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pogo.h"

static int failures = 0;
static int checks = 0;

#define FAIL(...)                                                                          \
  do {                                                                                     \
    fprintf(stderr, "abi_test:%d: ", __LINE__);                                            \
    fprintf(stderr, __VA_ARGS__);                                                          \
    fprintf(stderr, "\n");                                                                 \
    exit(1);                                                                               \
  } while (0)

/* A call that must succeed. */
#define OK(call)                                                                           \
  do {                                                                                     \
    PogoStatus ok_status_ = (call);                                                        \
    if (ok_status_ != POGO_STATUS_OK) {                                                    \
      char ok_message_[512];                                                               \
      pogo_last_error(ok_message_, sizeof ok_message_);                                    \
      FAIL("%s: %s: %s", #call, pogo_status_name(ok_status_), ok_message_);                \
    }                                                                                      \
  } while (0)

/* A call that must fail with `expected`, leaving a non-empty, printable message. */
#define EXPECT(expected, call) expect_status((expected), (call), #call, __LINE__)

static void expect_status(PogoStatus expected, PogoStatus found, const char *call, int line) {
  char message[512];
  size_t len = pogo_last_error(message, sizeof message);
  checks++;
  if (found != expected) {
    fprintf(stderr, "abi_test:%d: %s: expected %s, got %s (%s)\n", line, call,
            pogo_status_name(expected), pogo_status_name(found), message);
    exit(1);
  }
  if (len == 0 || strlen(message) == 0) {
    fprintf(stderr, "abi_test:%d: %s: no error message\n", line, call);
    exit(1);
  }
  for (const char *c = message; *c; c++) {
    if ((unsigned char)*c < 0x20) {
      fprintf(stderr, "abi_test:%d: %s: unprintable message\n", line, call);
      exit(1);
    }
  }
}

static void expect_message_contains(const char *needle) {
  char message[512];
  pogo_last_error(message, sizeof message);
  checks++;
  if (!strstr(message, needle)) FAIL("message \"%s\" lacks \"%s\"", message, needle);
}

/* A 32.32 fixed-point value with exactly four decimals, rounded half to even: what Rust's
 * `{:.4}` prints for the `fixed` type, computed exactly from the raw bits. */
static void format_fixed4(int64_t raw, char *out, size_t cap) {
  int negative = raw < 0;
  uint64_t magnitude = negative ? (uint64_t)0 - (uint64_t)raw : (uint64_t)raw;
  uint64_t whole = magnitude >> 32;
  uint64_t scaled = (magnitude & 0xffffffffu) * 10000u; /* < 2^46 */
  uint64_t digits = scaled >> 32, rest = scaled & 0xffffffffu, half = 1ull << 31;
  if (rest > half || (rest == half && (digits & 1))) digits++;
  if (digits == 10000) {
    digits = 0;
    whole++;
  }
  snprintf(out, cap, "%s%" PRIu64 ".%04" PRIu64, negative ? "-" : "", whole, digits);
}

static PogoLevel load_level(const char *name) {
  PogoLevel level;
  OK(pogo_level_builtin(name, strlen(name), &level));
  return level;
}

static PogoSim create_sim(PogoLevel level, PogoTuning tuning, uint32_t players) {
  PogoSimDef def = pogo_default_sim_def();
  def.level = level;
  def.tuning = tuning;
  def.players = players;
  PogoSim sim;
  OK(pogo_sim_create(&def, &sim));
  return sim;
}

static uint64_t state_hash(PogoSim sim) {
  uint64_t hash;
  OK(pogo_sim_state_hash(sim, &hash));
  return hash;
}

static PogoPlayerState player_state(PogoSim sim, uint32_t player) {
  PogoPlayerState s;
  OK(pogo_sim_player_state(sim, player, &s));
  return s;
}

static uint32_t sim_tick(PogoSim sim) {
  uint32_t tick;
  OK(pogo_sim_tick(sim, &tick));
  return tick;
}

/* Writes the replay a finished recorder holds to `path`, using the "how many bytes" query. */
static void save_replay(PogoRecorder recorder, const char *path, uint8_t **bytes_out, size_t *len_out) {
  size_t len = 0;
  OK(pogo_recorder_bytes(recorder, NULL, 0, &len));
  uint8_t *bytes = malloc(len);
  if (!bytes) FAIL("out of memory");
  size_t written = 0;
  OK(pogo_recorder_bytes(recorder, bytes, len, &written));
  if (written != len) FAIL("replay length changed: %zu then %zu", len, written);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) FAIL("cannot write %s", path);
  *bytes_out = bytes;
  *len_out = len;
}

/* ------------------------------------------------------------------------------------------
 * The golden runs (tests/golden_hashes.rs, in C) */

enum { BOT = -1 };

/* Player 1 of course-multi: a fixed steering and button pattern. */
static PogoInput multi_pattern(uint32_t tick) {
  static const int8_t steer[4][2] = {{90, 0}, {0, -60}, {-40, 40}, {127, 127}};
  PogoInput input = {0};
  uint32_t phase = (tick / 45) % 4;
  input.steer_x = steer[phase][0];
  input.steer_z = steer[phase][1];
  uint32_t m = tick % 97;
  if (m <= 2) input.buttons = POGO_BUTTON_TRICK;
  else if (m >= 50 && m <= 70) input.buttons = POGO_BUTTON_DIVE;
  return input;
}

/* One golden run; `recorder_path` non-NULL records it there. Returns the final hash. */
static void golden_run(const char *name, const char *level_name, uint32_t players, uint32_t ticks,
                       int multi, const char *recorder_path, char *sig, size_t sig_cap) {
  PogoLevel level = load_level(level_name);
  PogoTuning tuning;
  OK(pogo_tuning_default(&tuning));
  PogoSim sim = create_sim(level, tuning, players);
  PogoBot bot;
  OK(pogo_bot_create(&bot));
  PogoRecorder recorder = {0};
  if (recorder_path) {
    PogoRecorderDef def = pogo_default_recorder_def();
    def.sim = sim;
    OK(pogo_recorder_create(&def, &recorder));
  }
  int uses_bot = strcmp(level_name, "course") == 0;
  for (uint32_t tick = 0; tick < ticks; tick++) {
    PogoInput inputs[POGO_PLAYERS_MAX];
    memset(inputs, 0, sizeof inputs);
    if (uses_bot) OK(pogo_bot_input(bot, sim, 0, &inputs[0]));
    if (multi) inputs[1] = multi_pattern(tick);
    OK(pogo_sim_step(sim, inputs, players));
    if (recorder_path) OK(pogo_recorder_record(recorder));
    if ((tick + 1) % 60 == 0) printf("%s t=%" PRIu32 " %016" PRIx64 "\n", name, tick + 1, state_hash(sim));
    int all_finished = 1;
    for (uint32_t p = 0; p < players; p++) all_finished &= player_state(sim, p).finished == 1;
    if (all_finished) break;
  }
  uint64_t hash = state_hash(sim);
  for (uint32_t p = 0; p < players; p++) {
    PogoPlayerState s = player_state(sim, p);
    char apex[64], finish[16];
    format_fixed4(s.apex_raw, apex, sizeof apex);
    if (s.finished) snprintf(finish, sizeof finish, "%" PRIu32, s.finish_tick);
    else snprintf(finish, sizeof finish, "none");
    printf("%s end P%" PRIu32 " ticks=%" PRIu32 " bounces=%" PRIu32 " apex=%s finish=%s hash=%016" PRIx64 "\n",
           name, p, sim_tick(sim), s.bounces, apex, finish, hash);
    if (sig && p == 0) {
      snprintf(sig, sig_cap, "SIG ticks=%" PRIu32 " bounces=%" PRIu32 " apex=%s finish=%s hash=%016" PRIx64,
               sim_tick(sim), s.bounces, apex, finish, hash);
    }
    /* The doubles are the raw values / 2^32. */
    if (s.position[1] != (double)s.position_raw[1] / 4294967296.0) FAIL("position double");
  }
  if (recorder_path) {
    OK(pogo_recorder_finish(recorder));
    uint8_t *bytes;
    size_t len;
    save_replay(recorder, recorder_path, &bytes, &len);
    free(bytes);
    OK(pogo_recorder_free(recorder));
  }
  OK(pogo_bot_free(bot));
  OK(pogo_sim_free(sim));
  OK(pogo_tuning_free(tuning));
  OK(pogo_level_free(level));
}

/* ------------------------------------------------------------------------------------------
 * The frame driver: a scripted run at three frame clocks gives one tick stream */

/* The script (ffi/tests/c_abi.rs has the same one): times in ns, player 0's input. */
typedef struct {
  uint64_t at_ns;
  PogoInput input;
} Event;

static const Event SCRIPT[] = {
    {0, {0, 0, 0}},
    {500000000, {100, 0, 0}},
    {1234567891, {60, -30, POGO_BUTTON_DIVE}},
    {2000000000, {60, -30, POGO_BUTTON_TRICK}},
    {2016666667, {-20, 90, 0}},
    {4999999999, {127, 127, 0}},
    {7250000000, {0, -127, POGO_BUTTON_DIVE}},
};
enum { SCRIPT_LEN = sizeof SCRIPT / sizeof SCRIPT[0] };
static const uint64_t DRIVER_RUN_NS = 10000000000ull; /* 10 s: 600 ticks at 60 Hz */

/* Next frame time of a clock: 0 per tick (60 Hz), 1 at 144 fps, 2 jittered 1…50 ms. */
static uint64_t next_frame(int clock, uint64_t frame, uint64_t now, uint64_t *rng) {
  switch (clock) {
    case 0: return ((frame + 1) * 1000000000ull + 59) / 60;
    case 1: return (frame + 1) * 1000000000ull / 144;
    default:
      *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
      return now + 1000000 + (*rng >> 33) % 49000001;
  }
}

static uint64_t driver_run(int clock, const char *record_path) {
  PogoLevel level = load_level("course");
  PogoTuning tuning;
  OK(pogo_tuning_default(&tuning));
  PogoSim sim = create_sim(level, tuning, 1);
  PogoDriverDef def = pogo_default_driver_def();
  OK(pogo_tuning_tick_rate(tuning, &def.tick_rate));
  PogoDriver driver;
  OK(pogo_driver_create(&def, &driver));
  PogoRecorder recorder = {0};
  if (record_path) {
    PogoRecorderDef rdef = pogo_default_recorder_def();
    rdef.sim = sim;
    OK(pogo_recorder_create(&rdef, &recorder));
  }
  size_t next_event = 0;
  uint64_t rng = 42, now = 0;
  double drawn_x = 0;
  for (uint64_t frame = 0; now < DRIVER_RUN_NS; frame++) {
    now = next_frame(clock, frame, now, &rng);
    if (now > DRIVER_RUN_NS) now = DRIVER_RUN_NS;
    /* Push every event up to now, then advance: the driver's contract. */
    while (next_event < SCRIPT_LEN && SCRIPT[next_event].at_ns <= now) {
      uint64_t filed;
      OK(pogo_driver_push_event(driver, SCRIPT[next_event].at_ns, 0, &SCRIPT[next_event].input, &filed));
      if (filed != SCRIPT[next_event].at_ns) FAIL("event filed at %" PRIu64, filed);
      next_event++;
    }
    PogoFrameInfo info;
    OK(pogo_driver_advance(driver, sim, recorder, now, &info));
    if (!(info.alpha >= 0.0 && info.alpha < 1.0)) FAIL("alpha %f", info.alpha);
    if (info.total_ticks != sim_tick(sim)) FAIL("driver and simulation ticks differ");
    /* Interpolate what a renderer would draw (not across a teleport). */
    PogoPlayerState now_state = player_state(sim, 0), before;
    OK(pogo_sim_previous_player_state(sim, 0, &before));
    drawn_x = (now_state.events & POGO_EVENT_TELEPORT)
                  ? now_state.position[0]
                  : before.position[0] + (now_state.position[0] - before.position[0]) * info.alpha;
  }
  (void)drawn_x;
  if (sim_tick(sim) != 600) FAIL("driver ran %" PRIu32 " ticks, not 600", sim_tick(sim));
  uint64_t hash = state_hash(sim);
  if (record_path) {
    OK(pogo_recorder_finish(recorder));
    uint8_t *bytes;
    size_t len;
    save_replay(recorder, record_path, &bytes, &len);
    free(bytes);
    OK(pogo_recorder_free(recorder));
  }
  OK(pogo_driver_free(driver));
  OK(pogo_sim_free(sim));
  OK(pogo_tuning_free(tuning));
  OK(pogo_level_free(level));
  return hash;
}

/* ------------------------------------------------------------------------------------------
 * Rollback: snapshot mid-run, run on, restore, run again: the same hashes */

static void rollback(void) {
  enum { AT = 1000, AHEAD = 300 };
  PogoLevel level = load_level("course");
  PogoTuning tuning;
  OK(pogo_tuning_default(&tuning));
  PogoSim sim = create_sim(level, tuning, 1);
  PogoBot bot;
  OK(pogo_bot_create(&bot));
  PogoInput input;
  for (int t = 0; t < AT; t++) {
    OK(pogo_bot_input(bot, sim, 0, &input));
    OK(pogo_sim_step(sim, &input, 1));
  }
  size_t len = 0;
  OK(pogo_sim_snapshot(sim, NULL, 0, &len));
  uint8_t *snapshot = malloc(len);
  OK(pogo_sim_snapshot(sim, snapshot, len, &len));
  static PogoInput inputs[AHEAD];
  static uint64_t hashes[AHEAD];
  for (int t = 0; t < AHEAD; t++) {
    OK(pogo_bot_input(bot, sim, 0, &inputs[t]));
    OK(pogo_sim_step(sim, &inputs[t], 1));
    hashes[t] = state_hash(sim);
  }
  OK(pogo_sim_restore(sim, snapshot, len));
  if (sim_tick(sim) != AT) FAIL("restore to tick %" PRIu32, sim_tick(sim));
  for (int t = 0; t < AHEAD; t++) {
    OK(pogo_sim_step(sim, &inputs[t], 1));
    if (state_hash(sim) != hashes[t]) FAIL("rollback diverged at tick %d", AT + t);
  }
  /* The bytes restore into a fresh simulation of the same level and tuning too. */
  PogoSim fresh = create_sim(level, tuning, 1);
  OK(pogo_sim_restore(fresh, snapshot, len));
  OK(pogo_sim_step(fresh, &inputs[0], 1));
  if (state_hash(fresh) != hashes[0]) FAIL("fresh simulation diverged");
  printf("rollback ok: %d ticks re-simulated from tick %d, snapshot %zu bytes\n", AHEAD, AT, len);
  free(snapshot);
  OK(pogo_sim_free(fresh));
  OK(pogo_bot_free(bot));
  OK(pogo_sim_free(sim));
  OK(pogo_tuning_free(tuning));
  OK(pogo_level_free(level));
}

/* ------------------------------------------------------------------------------------------
 * Verification through the ABI, and re-simulation from the decoded replay (a ghost) */

/* Decodes `bytes` and steps a fresh simulation with the replay's inputs, fetched a batch at a
 * time; checks the header against the verdict. Returns the final hash, and player 0's finish
 * tick in `*finish` (UINT32_MAX if it did not finish). */
static uint64_t resimulate(const uint8_t *bytes, size_t len, const PogoVerdict *v, uint32_t *finish) {
  enum { BATCH = 500 };
  PogoReplay replay;
  OK(pogo_replay_decode(bytes, len, &replay));
  PogoReplayInfo info;
  OK(pogo_replay_info(replay, &info));
  if (info.ticks != v->ticks || info.players != v->players || info.rules_version != v->rules_version ||
      info.level_hash != v->level_hash || info.tuning_hash != v->tuning_hash ||
      info.claimed_final_hash != v->final_hash || info.finished_mask != v->finished_mask)
    FAIL("replay info differs from the verdict");
  char name[64];
  size_t name_len = 0;
  OK(pogo_replay_level_name(replay, name, sizeof name - 1, &name_len));
  name[name_len] = 0;
  PogoLevel level = load_level(name);
  PogoTuning tuning;
  OK(pogo_tuning_default(&tuning));
  PogoSim sim = create_sim(level, tuning, info.players);
  PogoInput *inputs = malloc((size_t)info.players * BATCH * sizeof(PogoInput));
  if (!inputs) FAIL("out of memory");
  for (uint32_t first = 0; first < info.ticks; first += BATCH) {
    uint32_t written = 0;
    for (uint32_t p = 0; p < info.players; p++) {
      OK(pogo_replay_inputs(replay, p, first, inputs + (size_t)p * BATCH, BATCH, &written));
      uint32_t expected = info.ticks - first < BATCH ? info.ticks - first : BATCH;
      if (written != expected) FAIL("%" PRIu32 " inputs from tick %" PRIu32, written, first);
    }
    for (uint32_t t = 0; t < written; t++) {
      PogoInput tick[POGO_PLAYERS_MAX];
      for (uint32_t p = 0; p < info.players; p++) tick[p] = inputs[(size_t)p * BATCH + t];
      OK(pogo_sim_step(sim, tick, info.players));
    }
  }
  free(inputs);
  uint64_t hash = state_hash(sim);
  PogoPlayerState s = player_state(sim, 0);
  *finish = s.finished ? s.finish_tick : UINT32_MAX;
  OK(pogo_sim_free(sim));
  OK(pogo_tuning_free(tuning));
  OK(pogo_level_free(level));
  OK(pogo_replay_free(replay));
  return hash;
}

/* The same re-simulation with every tick's inputs in one array (tick-major) and
 * pogo_sim_step_many: one call per POGO_STEP_TICKS_MAX ticks, then once more from the start
 * stopping at every checkpoint; both must end where `resimulate` does. Returns the final hash
 * of the unstopped run, player 0's finish tick in `*finish`, the stops in `*stops`. */
static uint64_t resimulate_batched(const uint8_t *bytes, size_t len, uint32_t *finish, uint32_t *stops) {
  PogoReplay replay;
  OK(pogo_replay_decode(bytes, len, &replay));
  PogoReplayInfo info;
  OK(pogo_replay_info(replay, &info));
  char name[64];
  size_t name_len = 0;
  OK(pogo_replay_level_name(replay, name, sizeof name - 1, &name_len));
  name[name_len] = 0;
  PogoLevel level = load_level(name);
  PogoTuning tuning;
  OK(pogo_tuning_default(&tuning));
  size_t n = (size_t)info.ticks * info.players;
  PogoInput *row = malloc((info.ticks ? info.ticks : 1) * sizeof(PogoInput));
  PogoInput *all = malloc((n ? n : 1) * sizeof(PogoInput));
  if (!row || !all) FAIL("out of memory");
  for (uint32_t p = 0; p < info.players; p++) {
    uint32_t written = 0;
    OK(pogo_replay_inputs(replay, p, 0, row, info.ticks, &written));
    if (written != info.ticks) FAIL("%" PRIu32 " inputs of %" PRIu32, written, info.ticks);
    for (uint32_t t = 0; t < info.ticks; t++) all[(size_t)t * info.players + p] = row[t];
  }
  uint64_t hashes[2];
  for (int stopping = 0; stopping < 2; stopping++) {
    PogoSim sim = create_sim(level, tuning, info.players);
    uint32_t at = 0, calls = 0;
    while (at < info.ticks) {
      uint32_t left = info.ticks - at, ran = 0, events[POGO_PLAYERS_MAX];
      uint32_t ticks = left < POGO_STEP_TICKS_MAX ? left : POGO_STEP_TICKS_MAX;
      OK(pogo_sim_step_many(sim, (PogoRecorder){0}, all + (size_t)at * info.players, ticks,
                            stopping ? POGO_EVENT_CHECKPOINT : 0, &ran, events));
      if (ran == 0 || ran > ticks || (!stopping && ran != ticks)) FAIL("ran %" PRIu32 " of %" PRIu32, ran, ticks);
      if (stopping && ran < ticks) {
        int hit = 0;
        for (uint32_t p = 0; p < info.players; p++) hit |= (events[p] & POGO_EVENT_CHECKPOINT) != 0;
        if (!hit) FAIL("stopped at tick %" PRIu32 " without a checkpoint", at + ran);
      }
      at += ran;
      calls++;
    }
    if (sim_tick(sim) != info.ticks) FAIL("batched run ended at tick %" PRIu32, sim_tick(sim));
    hashes[stopping] = state_hash(sim);
    if (!stopping) {
      PogoPlayerState s = player_state(sim, 0);
      *finish = s.finished ? s.finish_tick : UINT32_MAX;
    } else {
      *stops = calls - 1;
    }
    OK(pogo_sim_free(sim));
  }
  if (hashes[0] != hashes[1]) FAIL("stopped batches end on another hash");
  free(all);
  free(row);
  OK(pogo_tuning_free(tuning));
  OK(pogo_level_free(level));
  OK(pogo_replay_free(replay));
  return hashes[0];
}

static void verify(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) FAIL("cannot open %s", path);
  static uint8_t bytes[1 << 20];
  size_t len = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  PogoTuning tuning;
  OK(pogo_tuning_default(&tuning));
  PogoVerifierDef def = pogo_default_verifier_def();
  def.tuning = tuning;
  PogoVerifier verifier;
  OK(pogo_verifier_create(&def, &verifier));
  PogoVerdict v;
  OK(pogo_verifier_verify(verifier, bytes, len, &v));
  if (v.kind != POGO_VERDICT_VERIFIED) FAIL("replay rejected: %s", v.reason);
  printf("verified: ticks=%" PRIu32 " players=%" PRIu32 " finish=%" PRIu32 " hash=%016" PRIx64 "\n",
         v.ticks, v.players, v.finish_ticks[0], v.final_hash);
  uint32_t finish;
  uint64_t replayed = resimulate(bytes, len, &v, &finish);
  if (replayed != v.final_hash || finish != v.finish_ticks[0])
    FAIL("re-simulated replay: hash %016" PRIx64 " finish %" PRIu32, replayed, finish);
  printf("replayed: ticks=%" PRIu32 " finish=%" PRIu32 " hash=%016" PRIx64 "\n", v.ticks, finish, replayed);
  uint32_t batched_finish = 0, stops = 0;
  uint64_t batched = resimulate_batched(bytes, len, &batched_finish, &stops);
  printf("batched: ticks=%" PRIu32 " finish=%" PRIu32 " hash=%016" PRIx64 " stops=%" PRIu32 "\n", v.ticks,
         batched_finish, batched, stops);
  /* A tampered copy: one input byte changed in the middle of the file. */
  bytes[len / 2] ^= 0x01;
  OK(pogo_verifier_verify(verifier, bytes, len, &v));
  if (v.kind == POGO_VERDICT_VERIFIED || v.reason_len == 0) FAIL("tampered replay verified");
  printf("tampered: %s\n", pogo_verdict_kind_name(v.kind));
  PogoReplay tampered;
  EXPECT(POGO_STATUS_PARSE, pogo_replay_decode(bytes, len, &tampered));
  OK(pogo_verifier_free(verifier));
  OK(pogo_tuning_free(tuning));
}

/* ------------------------------------------------------------------------------------------
 * Error paths */

static void errors(void) {
  PogoLevel level, course = load_level("course"), flat = load_level("flat");
  PogoTuning tuning;
  OK(pogo_tuning_default(&tuning));

  /* Levels and tunings. */
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_level_builtin(NULL, 5, &level));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_level_builtin("course", 6, NULL));
  EXPECT(POGO_STATUS_UNKNOWN_LEVEL, pogo_level_builtin("nope", 4, &level));
  expect_message_contains("nope");
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_level_builtin("\xff\xfe", 2, &level));
  EXPECT(POGO_STATUS_PARSE, pogo_level_from_json("{", 1, &level));
  expect_message_contains("line");
  EXPECT(POGO_STATUS_PARSE, pogo_level_from_json("[]", 2, &level));
  PogoTuning bad_tuning;
  const char *gravity = "{\"gravity\": -5}", *typo = "{\"gravty\": 24}";
  EXPECT(POGO_STATUS_PARSE, pogo_tuning_from_json(gravity, strlen(gravity), &bad_tuning));
  expect_message_contains("gravity");
  EXPECT(POGO_STATUS_PARSE, pogo_tuning_from_json(typo, strlen(typo), &bad_tuning));
  expect_message_contains("gravty");
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_tuning_default(NULL));
  uint64_t hash;
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_level_hash(course, NULL));

  /* Handles: zero, forged, wrong kind, freed. */
  PogoSim zero = {0}, forged = {0xdeadbeefu};
  EXPECT(POGO_STATUS_INVALID_HANDLE, pogo_sim_state_hash(zero, &hash));
  EXPECT(POGO_STATUS_INVALID_HANDLE, pogo_sim_state_hash(forged, &hash));
  PogoSim not_a_sim = {tuning.id};
  EXPECT(POGO_STATUS_WRONG_HANDLE_KIND, pogo_sim_state_hash(not_a_sim, &hash));
  expect_message_contains("tuning");
  PogoSim freed = create_sim(course, tuning, 1);
  OK(pogo_sim_free(freed));
  EXPECT(POGO_STATUS_STALE_HANDLE, pogo_sim_free(freed));
  EXPECT(POGO_STATUS_STALE_HANDLE, pogo_sim_state_hash(freed, &hash));
  char message[256];
  pogo_handle_error(freed.id, message, sizeof message);
  checks++;
  if (!strstr(message, "freed")) FAIL("handle error of a freed handle: %s", message);
  /* A new object in the freed slot does not revive the old handle. */
  PogoSim reused = create_sim(course, tuning, 1);
  EXPECT(POGO_STATUS_STALE_HANDLE, pogo_sim_state_hash(freed, &hash));
  OK(pogo_sim_state_hash(reused, &hash));
  OK(pogo_sim_free(reused));

  /* Definitions. */
  PogoSimDef def;
  memset(&def, 0, sizeof def);
  def.level = course;
  def.tuning = tuning;
  def.players = 1;
  PogoSim sim;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_create(&def, &sim));
  expect_message_contains("pogo_default_sim_def");
  def = pogo_default_sim_def();
  def.level = course;
  def.tuning = tuning;
  def.players = 0;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_create(&def, &sim));
  def.players = POGO_PLAYERS_MAX + 1;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_create(&def, &sim));
  def.players = 1;
  def.level = (PogoLevel){0};
  EXPECT(POGO_STATUS_INVALID_HANDLE, pogo_sim_create(&def, &sim));
  def.level = (PogoLevel){tuning.id};
  EXPECT(POGO_STATUS_WRONG_HANDLE_KIND, pogo_sim_create(&def, &sim));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_create(NULL, &sim));
  def.level = course;
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_create(&def, NULL));

  /* Stepping and reading. */
  sim = create_sim(course, tuning, 2);
  PogoInput inputs[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_step(sim, inputs, 1));
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_step(sim, inputs, 3));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_step(sim, NULL, 2));
  inputs[1].buttons = 0x80;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_step(sim, inputs, 2));
  expect_message_contains("0x80");
  pogo_handle_error(sim.id, message, sizeof message);
  checks++;
  if (!strstr(message, "0x80")) FAIL("per-handle error: %s", message);
  if (sim_tick(sim) != 0) FAIL("a refused step ran");
  inputs[1].buttons = 0;
  inputs[0].steer_x = -128; /* acts as -127: accepted */
  OK(pogo_sim_step(sim, inputs, 2));
  PogoPlayerState ps;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_player_state(sim, 2, &ps));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_player_state(sim, 0, NULL));

  /* Snapshots: short buffers, garbage, damage, another simulation's. */
  size_t len = 0;
  uint8_t small[16];
  EXPECT(POGO_STATUS_BUFFER_TOO_SMALL, pogo_sim_snapshot(sim, small, sizeof small, &len));
  checks++;
  if (len != 36 + 2 * 229 + 8) FAIL("snapshot length %zu", len);
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_snapshot(sim, NULL, 100, &len));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_snapshot(sim, small, sizeof small, NULL));
  uint8_t snapshot[1024], garbage[520];
  OK(pogo_sim_snapshot(sim, snapshot, sizeof snapshot, &len));
  for (size_t i = 0; i < sizeof garbage; i++) garbage[i] = (uint8_t)(i * 131 + 7);
  EXPECT(POGO_STATUS_INVALID_SNAPSHOT, pogo_sim_restore(sim, garbage, sizeof garbage));
  EXPECT(POGO_STATUS_INVALID_SNAPSHOT, pogo_sim_restore(sim, snapshot, len - 1));
  EXPECT(POGO_STATUS_INVALID_SNAPSHOT, pogo_sim_restore(sim, snapshot, 0));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_restore(sim, NULL, len));
  snapshot[100] ^= 0x10;
  EXPECT(POGO_STATUS_INVALID_SNAPSHOT, pogo_sim_restore(sim, snapshot, len));
  expect_message_contains("check");
  PogoSim flat_sim = create_sim(flat, tuning, 2);
  OK(pogo_sim_snapshot(flat_sim, snapshot, sizeof snapshot, &len));
  EXPECT(POGO_STATUS_MISMATCH, pogo_sim_restore(sim, snapshot, len));
  expect_message_contains("level");
  if (sim_tick(sim) != 1) FAIL("a refused restore changed the simulation");

  /* Recorders. */
  PogoRecorderDef rdef = pogo_default_recorder_def();
  PogoRecorder recorder;
  rdef.sim = sim; /* at tick 1 */
  EXPECT(POGO_STATUS_INVALID_STATE, pogo_recorder_create(&rdef, &recorder));
  rdef.sim = flat_sim;
  rdef.player_name = "bad\nname";
  rdef.player_name_len = 8;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_recorder_create(&rdef, &recorder));
  rdef.player_name = "C test";
  rdef.player_name_len = 6;
  OK(pogo_recorder_create(&rdef, &recorder));
  EXPECT(POGO_STATUS_INVALID_STATE, pogo_recorder_record(recorder)); /* nothing stepped */
  OK(pogo_sim_step(flat_sim, inputs, 2));
  OK(pogo_recorder_record(recorder));
  EXPECT(POGO_STATUS_INVALID_STATE, pogo_recorder_record(recorder)); /* twice */
  EXPECT(POGO_STATUS_INVALID_STATE, pogo_recorder_bytes(recorder, NULL, 0, &len));
  OK(pogo_sim_step(flat_sim, inputs, 2));
  EXPECT(POGO_STATUS_INVALID_STATE, pogo_recorder_finish(recorder)); /* a tick unrecorded */
  OK(pogo_recorder_record(recorder));
  OK(pogo_recorder_finish(recorder));
  EXPECT(POGO_STATUS_INVALID_STATE, pogo_recorder_record(recorder));
  EXPECT(POGO_STATUS_BUFFER_TOO_SMALL, pogo_recorder_bytes(recorder, small, sizeof small, &len));
  checks++;
  if (len <= sizeof small) FAIL("replay of %zu bytes", len);

  /* Replays: decoding refuses bad bytes; reading refuses bad players and ticks. */
  uint8_t recorded[4096];
  OK(pogo_recorder_bytes(recorder, recorded, sizeof recorded, &len));
  PogoReplay replay;
  EXPECT(POGO_STATUS_PARSE, pogo_replay_decode(NULL, 0, &replay));
  expect_message_contains("empty");
  EXPECT(POGO_STATUS_PARSE, pogo_replay_decode(garbage, sizeof garbage, &replay));
  expect_message_contains("not a pogo replay");
  EXPECT(POGO_STATUS_PARSE, pogo_replay_decode(recorded, len - 1, &replay));
  expect_message_contains("truncated");
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_replay_decode(NULL, len, &replay));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_replay_decode(recorded, len, NULL));
  OK(pogo_replay_decode(recorded, len, &replay));
  PogoReplayInfo rinfo;
  OK(pogo_replay_info(replay, &rinfo));
  checks++;
  if (rinfo.players != 2 || rinfo.ticks != 2 || rinfo.finished_mask != 0) FAIL("replay info");
  char replay_name[16];
  size_t replay_name_len = 0;
  OK(pogo_replay_player_name(replay, replay_name, sizeof replay_name, &replay_name_len));
  checks++;
  if (replay_name_len != 6 || memcmp(replay_name, "C test", 6) != 0) FAIL("replay player name");
  EXPECT(POGO_STATUS_BUFFER_TOO_SMALL, pogo_replay_level_name(replay, replay_name, 2, &replay_name_len));
  PogoInput replay_inputs[4];
  uint32_t written = 99;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_replay_inputs(replay, 2, 0, replay_inputs, 4, &written));
  expect_message_contains("player 2");
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_replay_inputs(replay, 0, 3, replay_inputs, 4, &written));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_replay_inputs(replay, 0, 0, NULL, 4, &written));
  OK(pogo_replay_inputs(replay, 1, 0, replay_inputs, 4, &written));
  checks++;
  if (written != 2) FAIL("%" PRIu32 " replay inputs", written);
  OK(pogo_replay_free(replay));
  EXPECT(POGO_STATUS_STALE_HANDLE, pogo_replay_info(replay, &rinfo));
  OK(pogo_recorder_free(recorder));
  EXPECT(POGO_STATUS_STALE_HANDLE, pogo_recorder_bytes(recorder, NULL, 0, &len));
  /* A recorder whose simulation was freed. */
  PogoSim doomed = create_sim(flat, tuning, 1);
  rdef = pogo_default_recorder_def();
  rdef.sim = doomed;
  OK(pogo_recorder_create(&rdef, &recorder));
  OK(pogo_sim_free(doomed));
  EXPECT(POGO_STATUS_STALE_HANDLE, pogo_recorder_finish(recorder));
  expect_message_contains("simulation");
  OK(pogo_recorder_free(recorder));

  /* Verifiers: garbage is a verdict, not an error; bad arguments are errors. */
  PogoVerifierDef vdef = pogo_default_verifier_def();
  PogoVerifier verifier;
  EXPECT(POGO_STATUS_INVALID_HANDLE, pogo_verifier_create(&vdef, &verifier)); /* no tuning */
  vdef.tuning = tuning;
  vdef.hash_interval_s_max = 11;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_verifier_create(&vdef, &verifier));
  vdef = pogo_default_verifier_def();
  vdef.tuning = tuning;
  vdef.level_count = 2;
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_verifier_create(&vdef, &verifier));
  vdef.level_count = 0;
  OK(pogo_verifier_create(&vdef, &verifier));
  PogoVerdict verdict;
  OK(pogo_verifier_verify(verifier, garbage, sizeof garbage, &verdict));
  checks++;
  if (verdict.kind != POGO_VERDICT_BAD_MAGIC || verdict.reason_len == 0) FAIL("garbage verdict %u", verdict.kind);
  OK(pogo_verifier_verify(verifier, NULL, 0, &verdict));
  checks++;
  if (verdict.kind != POGO_VERDICT_TRUNCATED) FAIL("empty replay verdict %u", verdict.kind);
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_verifier_verify(verifier, NULL, 10, &verdict));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_verifier_verify(verifier, garbage, 10, NULL));
  OK(pogo_verifier_free(verifier));

  /* Drivers. */
  PogoDriverDef ddef = pogo_default_driver_def();
  PogoDriver driver;
  ddef.tick_rate = 0;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_driver_create(&ddef, &driver));
  ddef = pogo_default_driver_def();
  ddef.ticks_per_frame_max = 0;
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_driver_create(&ddef, &driver));
  ddef = pogo_default_driver_def();
  ddef.tick_rate = 30;
  OK(pogo_driver_create(&ddef, &driver));
  PogoSim one = create_sim(course, tuning, 1);
  PogoFrameInfo info;
  EXPECT(POGO_STATUS_MISMATCH, pogo_driver_advance(driver, one, (PogoRecorder){0}, 1000000000, &info));
  expect_message_contains("Hz");
  OK(pogo_driver_free(driver));
  ddef = pogo_default_driver_def();
  ddef.players = 2;
  OK(pogo_driver_create(&ddef, &driver));
  EXPECT(POGO_STATUS_MISMATCH, pogo_driver_advance(driver, one, (PogoRecorder){0}, 1000000000, &info));
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_driver_push_event(driver, 0, 2, &inputs[0], NULL));
  EXPECT(POGO_STATUS_NULL_POINTER, pogo_driver_push_event(driver, 0, 0, NULL, NULL));
  PogoInput undefined_button = {0, 0, 0x04};
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_driver_push_event(driver, 0, 0, &undefined_button, NULL));

  /* Batches: bad inputs, counts and pointers are refused and run nothing. */
  {
    PogoSim batch_sim = create_sim(course, tuning, 1);
    PogoInput batch[4] = {{10, 0, 0}, {10, 0, 0}, {10, 0, 0}, {10, 0, 0x04}};
    uint32_t ran = 0, batch_events[1];
    EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_sim_step_many(batch_sim, (PogoRecorder){0}, batch, 4, 0, &ran, batch_events));
    expect_message_contains("tick 3");
    EXPECT(POGO_STATUS_INVALID_ARGUMENT,
           pogo_sim_step_many(batch_sim, (PogoRecorder){0}, batch, POGO_STEP_TICKS_MAX + 1, 0, &ran, NULL));
    EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_step_many(batch_sim, (PogoRecorder){0}, NULL, 2, 0, &ran, NULL));
    EXPECT(POGO_STATUS_NULL_POINTER, pogo_sim_step_many(batch_sim, (PogoRecorder){0}, batch, 2, 0, NULL, NULL));
    EXPECT(POGO_STATUS_STALE_HANDLE, pogo_sim_step_many(freed, (PogoRecorder){0}, batch, 2, 0, &ran, NULL));
    if (sim_tick(batch_sim) != 0) FAIL("a refused batch ran");
    OK(pogo_sim_step_many(batch_sim, (PogoRecorder){0}, batch, 3, 0, &ran, NULL));
    if (ran != 3 || sim_tick(batch_sim) != 3) FAIL("batch of 3 ran %" PRIu32, ran);
    OK(pogo_sim_step_many(batch_sim, (PogoRecorder){0}, NULL, 0, 0, &ran, batch_events));
    if (ran != 0 || batch_events[0] != 0) FAIL("an empty batch ran %" PRIu32, ran);
    OK(pogo_sim_free(batch_sim));
  }
  uint32_t queued = 0;
  PogoStatus status;
  while ((status = pogo_driver_push_event(driver, queued, 0, &inputs[0], NULL)) == POGO_STATUS_OK) queued++;
  EXPECT(POGO_STATUS_LIMIT, status);
  checks++;
  if (queued != 4096) FAIL("queue held %u events", queued);
  PogoSim two = create_sim(course, tuning, 2);
  EXPECT(POGO_STATUS_WRONG_HANDLE_KIND, pogo_driver_advance(driver, two, (PogoRecorder){two.id}, 0, &info));
  EXPECT(POGO_STATUS_MISMATCH, pogo_driver_advance(driver, sim, (PogoRecorder){0}, 0, &info)); /* sim at tick 1 */
  OK(pogo_sim_free(two));
  OK(pogo_driver_free(driver));
  OK(pogo_sim_free(one));

  /* Messages, names, memory. */
  pogo_sim_state_hash(zero, &hash);
  char tiny[8];
  size_t full = pogo_last_error(tiny, sizeof tiny);
  checks++;
  if (full <= 7 || strlen(tiny) != 7) FAIL("truncated message: %zu %zu", full, strlen(tiny));
  checks++;
  if (strcmp(pogo_status_name(POGO_STATUS_STALE_HANDLE), "stale_handle") != 0 ||
      strcmp(pogo_status_name(999), "unknown") != 0 ||
      strcmp(pogo_verdict_kind_name(POGO_VERDICT_DESYNC), "desync") != 0)
    FAIL("names");
  checks++;
  if (pogo_alloc(0) != NULL) FAIL("pogo_alloc(0)");
  uint8_t *block = pogo_alloc(61);
  if (!block || (uintptr_t)block % 8 != 0) FAIL("pogo_alloc(61): %p", (void *)block);
  for (int i = 0; i < 61; i++)
    if (block[i] != 0) FAIL("pogo_alloc: not zeroed");
  OK(pogo_dealloc(block));
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_dealloc(block)); /* twice */
  EXPECT(POGO_STATUS_INVALID_ARGUMENT, pogo_dealloc(small));
  checks++;
  if (pogo_sizeof(POGO_STRUCT_PLAYER_STATE) != sizeof(PogoPlayerState) ||
      pogo_sizeof(POGO_STRUCT_VERDICT) != sizeof(PogoVerdict) ||
      pogo_sizeof(POGO_STRUCT_RECORDER_DEF) != sizeof(PogoRecorderDef) ||
      pogo_sizeof(POGO_STRUCT_VERIFIER_DEF) != sizeof(PogoVerifierDef) ||
      pogo_sizeof(POGO_STRUCT_REPLAY_INFO) != sizeof(PogoReplayInfo) || pogo_sizeof(0) != 0)
    FAIL("pogo_sizeof disagrees with the header's structs");

  OK(pogo_sim_free(flat_sim));
  OK(pogo_sim_free(sim));
  OK(pogo_tuning_free(tuning));
  OK(pogo_level_free(flat));
  OK(pogo_level_free(course));
  printf("errors ok: %d checks\n", checks);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: abi_test OUTDIR\n");
    return 2;
  }
  if (pogo_abi_version() != POGO_ABI_VERSION) FAIL("library ABI %u, header %u", pogo_abi_version(), POGO_ABI_VERSION);
  char path[4096], sig[256];

  printf("== golden\n");
  snprintf(path, sizeof path, "%s/course-bot.pogo", argv[1]);
  golden_run("flat-idle", "flat", 1, 1200, 0, NULL, NULL, 0);
  golden_run("course-bot", "course", 1, 4800, 0, path, sig, sizeof sig);
  golden_run("course-multi", "course", 3, 1800, 1, NULL, NULL, 0);

  printf("== sig\n%s\n", sig);

  printf("== driver\n");
  snprintf(path, sizeof path, "%s/driver.pogo", argv[1]);
  uint64_t per_tick = driver_run(0, path), at_144 = driver_run(1, NULL), jittered = driver_run(2, NULL);
  if (per_tick != at_144 || per_tick != jittered)
    FAIL("frame rates disagree: %016" PRIx64 " %016" PRIx64 " %016" PRIx64, per_tick, at_144, jittered);
  printf("driver hash=%016" PRIx64 "\n", per_tick);

  printf("== rollback\n");
  rollback();

  printf("== verify\n");
  snprintf(path, sizeof path, "%s/course-bot.pogo", argv[1]);
  verify(path);

  printf("== errors\n");
  errors();

  printf("== handles\n%u %u\n", pogo_handle_count(), pogo_block_count());
  (void)failures;
  return 0;
}
