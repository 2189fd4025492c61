/* A fixed-step game loop over the pogo C ABI, the way an engine would write it:
 *
 *   every render frame:
 *     1. input   — poll the OS and push each change as a driver event stamped with its own
 *                  time (here a scripted "player" stands in for the keyboard);
 *     2. advance — the frame driver runs every 60 Hz tick that became due, and records it;
 *     3. render  — draw previous + (current − previous) · alpha, but not across a teleport.
 *
 * The frame rate is whatever the machine gives (here ~144 fps with nanosleep); the ticks, the
 * state hash and the replay come out the same at any rate. At the end the run is written as
 * a replay that `pogo verify` accepts.
 *
 *   cc -std=c11 -O2 -I ffi/include ffi/examples/c/fixed_step.c target/release/libpogo_ffi.a \
 *      -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o fixed_step
 *   ./fixed_step [seconds] [replay.pogo]
 */
#define _POSIX_C_SOURCE 199309L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pogo.h"

/* Any failed call: print what the library says and stop. */
static void check(PogoStatus status, const char *what) {
  if (status != POGO_STATUS_OK) {
    char message[512];
    pogo_last_error(message, sizeof message);
    fprintf(stderr, "%s: %s: %s\n", what, pogo_status_name(status), message);
    exit(1);
  }
}

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The stand-in for the keyboard: what the player holds at time t (ns since the start). */
static PogoInput held_input(uint64_t t) {
  PogoInput input = {0, 0, 0};
  uint64_t ms = t / 1000000u;
  if (ms >= 300) input.steer_x = 127;                 /* hold right from 0.3 s */
  if (ms >= 1200 && ms < 1500) input.steer_z = -60;   /* a little north */
  if (ms % 2000 >= 1800) input.buttons |= POGO_BUTTON_DIVE;
  return input;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 5.0;
  const char *replay_path = argc > 2 ? argv[2] : "fixed_step.pogo";
  if (pogo_abi_version() != POGO_ABI_VERSION) {
    fprintf(stderr, "built against ABI %d, the library is ABI %u\n", POGO_ABI_VERSION, pogo_abi_version());
    return 1;
  }

  PogoLevel level;
  check(pogo_level_builtin("course", strlen("course"), &level), "level");
  PogoTuning tuning;
  check(pogo_tuning_default(&tuning), "tuning");

  PogoSimDef sim_def = pogo_default_sim_def();
  sim_def.level = level;
  sim_def.tuning = tuning;
  PogoSim sim;
  check(pogo_sim_create(&sim_def, &sim), "simulation");

  PogoDriverDef driver_def = pogo_default_driver_def();
  check(pogo_tuning_tick_rate(tuning, &driver_def.tick_rate), "tick rate");
  PogoDriver driver;
  check(pogo_driver_create(&driver_def, &driver), "driver");

  PogoRecorderDef recorder_def = pogo_default_recorder_def();
  recorder_def.sim = sim;
  recorder_def.player_name = "fixed step";
  recorder_def.player_name_len = strlen("fixed step");
  PogoRecorder recorder;
  check(pogo_recorder_create(&recorder_def, &recorder), "recorder");

  const uint64_t start = monotonic_ns(), duration = (uint64_t)(seconds * 1e9);
  const struct timespec frame_time = {0, 1000000000 / 144};
  PogoInput last = {0, 0, 0};
  uint64_t next_print = 0, frames = 0, now = 0;
  while (now < duration) {
    now = monotonic_ns() - start;
    if (now > duration) now = duration;

    /* 1. Input: push a change with the time it happened (an OS event's timestamp). */
    PogoInput input = held_input(now);
    if (memcmp(&input, &last, sizeof input) != 0) {
      check(pogo_driver_push_event(driver, now, 0, &input, NULL), "event");
      last = input;
    }

    /* 2. Advance: run (and record) every tick that is due. */
    PogoFrameInfo frame;
    check(pogo_driver_advance(driver, sim, recorder, now, &frame), "advance");

    /* 3. Render: interpolate between the last two ticks, unless the pogo teleported. */
    PogoPlayerState current, previous;
    check(pogo_sim_player_state(sim, 0, &current), "state");
    check(pogo_sim_previous_player_state(sim, 0, &previous), "previous state");
    double alpha = (current.events & POGO_EVENT_TELEPORT) ? 1.0 : frame.alpha;
    double x = previous.position[0] + (current.position[0] - previous.position[0]) * alpha;
    double y = previous.position[1] + (current.position[1] - previous.position[1]) * alpha;
    if (now >= next_print) {
      printf("t=%5.2fs tick=%4" PRIu32 " alpha=%.3f  drawn at x=%7.3f y=%6.3f  state=%" PRIu32 " bounces=%" PRIu32 "\n",
             (double)now / 1e9, frame.total_ticks, frame.alpha, x, y, current.state, current.bounces);
      next_print += 500000000u;
    }
    frames++;
    nanosleep(&frame_time, NULL);
  }

  uint32_t ticks;
  uint64_t hash;
  check(pogo_sim_tick(sim, &ticks), "tick");
  check(pogo_sim_state_hash(sim, &hash), "hash");
  check(pogo_recorder_finish(recorder), "finish");
  size_t len = 0;
  check(pogo_recorder_bytes(recorder, NULL, 0, &len), "replay size"); /* how many bytes? */
  uint8_t *bytes = malloc(len);
  if (!bytes) return 1;
  check(pogo_recorder_bytes(recorder, bytes, len, &len), "replay");
  FILE *out = fopen(replay_path, "wb");
  if (!out || fwrite(bytes, 1, len, out) != len || fclose(out) != 0) {
    fprintf(stderr, "cannot write %s\n", replay_path);
    return 1;
  }
  free(bytes);
  printf("done: %" PRIu64 " frames, %" PRIu32 " ticks, hash %016" PRIx64 ", replay %s (%zu bytes)\n",
         frames, ticks, hash, replay_path, len);

  check(pogo_recorder_free(recorder), "free");
  check(pogo_driver_free(driver), "free");
  check(pogo_sim_free(sim), "free");
  check(pogo_tuning_free(tuning), "free");
  check(pogo_level_free(level), "free");
  return 0;
}
