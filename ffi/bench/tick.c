/* ns per tick through the C ABI, natively: the demo bot's course run (its inputs recorded
 * once), stepped from a tick-0 snapshot again and again; prints the median of the
 * repetitions. The same workload as tick.mjs runs in WebAssembly (ffi/bench/run.sh runs
 * both in one sitting). */
#define _POSIX_C_SOURCE 199309L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pogo.h"

#define CHECK(call)                                                                       \
  do {                                                                                    \
    if ((call) != POGO_STATUS_OK) {                                                       \
      char m[256];                                                                        \
      pogo_last_error(m, sizeof m);                                                       \
      fprintf(stderr, "%s: %s\n", #call, m);                                              \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

enum { TICKS_MAX = 4800, REPS = 41 };

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(void) {
  PogoLevel level;
  CHECK(pogo_level_builtin("course", 6, &level));
  PogoTuning tuning;
  CHECK(pogo_tuning_default(&tuning));
  PogoSimDef def = pogo_default_sim_def();
  def.level = level;
  def.tuning = tuning;
  PogoSim sim;
  CHECK(pogo_sim_create(&def, &sim));
  uint8_t start[512];
  size_t len;
  CHECK(pogo_sim_snapshot(sim, start, sizeof start, &len));
  PogoBot bot;
  CHECK(pogo_bot_create(&bot));
  static PogoInput inputs[TICKS_MAX];
  int ticks = 0;
  for (PogoPlayerState s = {0}; ticks < TICKS_MAX && !s.finished; ticks++) {
    CHECK(pogo_bot_input(bot, sim, 0, &inputs[ticks]));
    CHECK(pogo_sim_step(sim, &inputs[ticks], 1));
    CHECK(pogo_sim_player_state(sim, 0, &s));
  }
  uint64_t expected, hash;
  CHECK(pogo_sim_state_hash(sim, &expected));
  double per_tick[REPS];
  for (int r = 0; r < REPS; r++) {
    CHECK(pogo_sim_restore(sim, start, len));
    double t0 = now_ns();
    for (int t = 0; t < ticks; t++) CHECK(pogo_sim_step(sim, &inputs[t], 1));
    per_tick[r] = (now_ns() - t0) / ticks;
    CHECK(pogo_sim_state_hash(sim, &hash));
    if (hash != expected) {
      fprintf(stderr, "replay diverged\n");
      return 1;
    }
  }
  qsort(per_tick, REPS, sizeof per_tick[0], compare);
  printf("native (C ABI, release): %.0f ns/tick (median of %d runs of %d ticks, min %.0f) hash=%016" PRIx64 "\n",
         per_tick[REPS / 2], REPS, ticks, per_tick[0], hash);
  CHECK(pogo_bot_free(bot));
  CHECK(pogo_sim_free(sim));
  CHECK(pogo_tuning_free(tuning));
  CHECK(pogo_level_free(level));
  return 0;
}
