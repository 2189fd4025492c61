//! `pogo simulate`: run a level for some ticks with scripted, bot or neutral input, through the
//! frame driver at a chosen render rate, and print each pogo's signature line.
//!
//! ```text
//! SIG ticks=600 bounces=7 apex=3.3241 finish=none hash=0123456789abcdef
//! ```
//!
//! With several players, one line each, `P<i> SIG … sim_hash=…`: see [`super::signature`] for the
//! format (shared with every command that ends a run).
//!
//! # Time
//!
//! Ticks run through [`Driver`], one render frame at a time: by default one frame per tick,
//! with `--render-fps F` at a steady rate (an exact decimal: `59.94` is 5994/100 frames per
//! second), with `--render-jitter SEED` at seeded random intervals. Script events are pushed
//! into the driver before the frame whose time reaches them, as a game would push OS events,
//! and the per-frame tick cap is lifted so no frame falls behind. The driver hands every tick
//! its input as of the tick's own start, so the result — signature and trace — is the same
//! bytes at every render rate.
//!
//! # Trace
//!
//! `--trace FILE` writes a CSV (`--trace -`: to stdout, and the SIG lines then go to stderr,
//! so the CSV can be piped on its own), one row per tick per player after the tick ran:
//! `tick,state,px,py,pz,vx,vy,vz,combo,bounces` (`tick` is the tick that just ran, from 0; `p`
//! the tip, the body's lowest point; numbers with exactly 6 decimals, exact from fixed point;
//! `state` the state's name). With several players a `player` column (0-based) follows `tick`:
//! `tick,player,state,...`, players in order within each tick.
//!
//! # Recording
//!
//! `--record FILE` writes the run as a replay (`replay/FORMAT.md`): every tick's inputs as the
//! simulation consumed them (the bots' or the script's), a state hash every second of play,
//! and at the end the claimed outcome (finish ticks) and the final hash. It is written
//! straight to FILE, a self-checking chunk every 5 s of play, each flushed, so a run that
//! dies leaves a prefix `pogo salvage` can repair. `--player-name` and `--date` are stored as
//! metadata, checked before the run starts against the rules every replay reader enforces
//! ([`check_player_name`]: letters and digits of any script, space `-` `_` `.` `'`, 1–32
//! characters; a date only `0-9 - : . + T Z` and space, at most 32 bytes); there is no date
//! unless one is given, so the same run records the same bytes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use pogo::core::bot::Bot;
use pogo::core::driver::{Driver, DriverError, NS_PER_SECOND, frame_times, jittered_frame_times};
use pogo::core::world::{World, WorldDesc};
use pogo::core::{Input, PLAYERS_MAX, Pogo, Simulation, Ticks, Tuning};
use pogo::replay::format::{DATE_BYTES_MAX, DATE_CHARS};
use pogo::replay::input_script::INPUT_SCRIPT_BYTES_MAX;
use pogo::replay::{
    BUILTIN_LEVELS, Header, LEVEL_FILE_BYTES_MAX, Recorder, builtin_level, check_player_name,
    parse_input_script, parse_level_json,
};

use super::signature::signature_lines;
use super::tuning::TuningArgs;
use super::{CliError, input};

/// Default `--ticks`: two minutes at 60 Hz.
const TICKS_DEFAULT: u32 = 7200;
/// Highest `--render-fps`.
const RENDER_FPS_MAX: u64 = 10_000;
/// Most decimals of `--render-fps` (a denominator of at most 10⁹).
const RENDER_FPS_DECIMALS_MAX: usize = 9;

/// The trace header (one player).
const TRACE_HEADER: &str = "tick,state,px,py,pz,vx,vy,vz,combo,bounces";
/// The trace header with several players.
const TRACE_HEADER_PLAYERS: &str = "tick,player,state,px,py,pz,vx,vy,vz,combo,bounces";

/// Arguments of `pogo simulate`.
#[derive(Debug, Args)]
pub(crate) struct SimulateCommand {
    /// A built-in level name (see `pogo levels`) or a level JSON file (an existing file, or a
    /// name ending in .json).
    #[arg(long, value_name = "LEVEL")]
    level: String,
    /// An input script: one change per line, `TIME steer_x steer_z [buttons]`, TIME a tick
    /// (`120`) or seconds (`2.5s`); `player N` starts player N's section.
    #[arg(long, value_name = "FILE")]
    inputs: Option<PathBuf>,
    /// Drive every pogo with its own demo bot along the level's bot path.
    #[arg(long)]
    bot: bool,
    /// Number of pogos, 1…16 (default 1, or the input script's player count; more than the
    /// script's adds players with neutral input).
    #[arg(long, value_name = "N")]
    players: Option<usize>,
    /// The most ticks to run; the run stops early once every pogo has finished.
    #[arg(long, value_name = "N", default_value_t = TICKS_DEFAULT)]
    ticks: u32,
    #[command(flatten)]
    tuning: TuningArgs,
    /// Render frames at this steady rate (frames per second, an exact decimal like 59.94,
    /// above 0 and at most 10000) instead of one frame per tick.
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    render_fps: Option<String>,
    /// Render frames at random intervals of 1 to 50 ms drawn from this seed.
    #[arg(long, value_name = "SEED")]
    render_jitter: Option<u64>,
    /// Write a CSV trace, one row per tick per player after the tick ran:
    /// tick,state,px,py,pz,vx,vy,vz,combo,bounces (p is the tip; 6 decimals). With several
    /// players a `player` column (0-based) follows `tick`. `--trace -` writes it to stdout;
    /// the SIG lines then go to stderr.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Record the run as a replay file (`pogo verify`, `inspect`, `race`, `plot` read it).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// The player name stored in the recording: 1 to 32 letters or digits of any script,
    /// spaces (not leading, trailing or doubled) and - _ . '
    #[arg(long, value_name = "NAME", requires = "record")]
    player_name: Option<String>,
    /// The date stored in the recording: at most 32 of 0-9 - : . + T Z and space (ISO 8601,
    /// e.g. 2026-11-29T12:00:00Z). None by default, so a run always records the same bytes.
    #[arg(long, value_name = "TEXT", requires = "record")]
    date: Option<String>,
}

/// Runs `pogo simulate`.
pub(crate) fn run(args: &SimulateCommand, out: &mut dyn Write) -> Result<(), CliError> {
    let clock = Clock::from_args(args)?;
    check_metadata(args)?;
    let tuning = args.tuning.resolve()?;
    let (source, players) = InputSource::from_args(args, tuning.spec().tick_rate)?;
    let world = build_world(&args.level, &tuning)?;
    let sim = Simulation::new(Arc::new(world), tuning, players)
        .map_err(|e| CliError::bad_input(format!("cannot start the simulation: {e}")))?;
    let recording = match &args.record {
        Some(path) => Some(Recording::create(path, &sim, args)?),
        None => None,
    };
    let trace = match &args.trace {
        Some(path) => Some(Trace::create(path, players)?),
        None => None,
    };
    let mut run = Run {
        sim,
        bots: source.bots(players),
        ticks_max: args.ticks,
        trace,
        recording,
        error: None,
    };
    drive(&mut run, clock, source.events())?;
    if let Some(trace) = run.trace.take() {
        trace.finish()?;
    }
    if let Some(recording) = run.recording.take() {
        recording.finish(&run.sim)?;
    }
    let lines = signature_lines(run.sim.state(), run.sim.state_hash());
    // With the trace on stdout, the SIG lines go to stderr so the CSV stays clean.
    let trace_on_stdout = args.trace.as_deref().is_some_and(is_stdout);
    let mut stderr = io::stderr().lock();
    let out: &mut dyn Write = if trace_on_stdout { &mut stderr } else { out };
    for line in lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// `-` as an output path: standard output.
fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Checks `--record`, `--player-name` and `--date` before anything runs, with the rules every
/// replay reader enforces (a recording that breaks them would be refused as malformed).
fn check_metadata(args: &SimulateCommand) -> Result<(), CliError> {
    if let Some(path) = &args.record {
        input::check_output("--record", path)?;
    }
    if let Some(name) = &args.player_name {
        check_player_name(name)
            .map_err(|e| CliError::bad_input(format!("--player-name {name:?}: {e}")))?;
    }
    if let Some(date) = &args.date {
        if date.len() > DATE_BYTES_MAX {
            return Err(CliError::bad_input(format!(
                "--date {date:?}: at most {DATE_BYTES_MAX} bytes"
            )));
        }
        if let Some(c) = date.chars().find(|&c| !DATE_CHARS.contains(c)) {
            return Err(CliError::bad_input(format!(
                "--date {date:?}: U+{:04X} is not allowed: a date holds only 0-9 - : . + T Z \
                 and space (e.g. 2026-11-29T12:00:00Z)",
                u32::from(c)
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Level and world.

/// The level named by `--level`, built for `tuning`.
pub(crate) fn build_world(level: &str, tuning: &Tuning) -> Result<World, CliError> {
    let desc = load_level(level)?;
    World::new(desc, tuning).map_err(|e| CliError::bad_input(format!("level {level}: {e}")))
}

/// A level file if `level` names an existing file or ends in `.json`, else a built-in level.
fn load_level(level: &str) -> Result<WorldDesc, CliError> {
    let path = Path::new(level);
    if path.is_file() || level.ends_with(".json") {
        let text = input::read_text(path, LEVEL_FILE_BYTES_MAX)?;
        return parse_level_json(&text)
            .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())));
    }
    builtin_level(level).ok_or_else(|| {
        let names: Vec<&str> = BUILTIN_LEVELS.iter().map(|(name, _)| *name).collect();
        CliError::bad_input(format!(
            "unknown level `{level}`: not a file, and the built-in levels are {}",
            names.join(", ")
        ))
    })
}

// ---------------------------------------------------------------------------------------------
// Input.

/// Where the pogos' input comes from.
enum InputSource {
    /// Every player neutral, every tick.
    Neutral,
    /// An input script's events `(ns, player, input)`, in time order.
    Script(Vec<(u64, usize, Input)>),
    /// One bot per player.
    Bot,
}

impl InputSource {
    /// The input source and the player count, from `--inputs`, `--bot` and `--players`;
    /// `tick_rate` places a script's tick-numbered lines in time.
    fn from_args(args: &SimulateCommand, tick_rate: u32) -> Result<(InputSource, usize), CliError> {
        if args.inputs.is_some() && args.bot {
            return Err(CliError::bad_input(
                "--inputs and --bot cannot be used together: choose one input source",
            ));
        }
        if let Some(n) = args.players {
            if !(1..=PLAYERS_MAX).contains(&n) {
                return Err(CliError::bad_input(format!(
                    "--players {n}: must be 1 to {PLAYERS_MAX}"
                )));
            }
        }
        let Some(path) = &args.inputs else {
            let source = if args.bot {
                InputSource::Bot
            } else {
                InputSource::Neutral
            };
            return Ok((source, args.players.unwrap_or(1)));
        };
        let text = input::read_text(path, INPUT_SCRIPT_BYTES_MAX)?;
        let script = parse_input_script(&text)
            .map_err(|e| CliError::bad_input(format!("{}: {e}", path.display())))?;
        let scripted = script.player_count();
        let players = args.players.unwrap_or(scripted);
        if players < scripted {
            return Err(CliError::bad_input(format!(
                "--players {players}: the input script {} has {scripted} players",
                path.display()
            )));
        }
        let events = last_per_tick(script.events(tick_rate), tick_rate);
        Ok((InputSource::Script(events), players))
    }

    /// The bots, one per player, if bots drive.
    fn bots(&self, players: usize) -> Option<Vec<Bot>> {
        match self {
            InputSource::Bot => Some(vec![Bot::new(); players]),
            InputSource::Neutral | InputSource::Script(_) => None,
        }
    }

    /// The events to push into the driver.
    fn events(&self) -> &[(u64, usize, Input)] {
        match self {
            InputSource::Script(events) => events,
            InputSource::Neutral | InputSource::Bot => &[],
        }
    }
}

/// `events` (in time order) without those that cannot matter: of one player's events that take
/// effect at the same tick, the driver uses only the last. Keeping only that one changes no
/// tick's input and bounds the events per tick by the player count, so a dense script can
/// always drain through the driver's bounded queue (see [`drive`]).
fn last_per_tick(events: Vec<(u64, usize, Input)>, rate: u32) -> Vec<(u64, usize, Input)> {
    // An event at `ns` first applies to tick ceil(ns · rate / 10⁹).
    let first_tick =
        |ns: u64| (u128::from(ns) * u128::from(rate)).div_ceil(u128::from(NS_PER_SECOND));
    let mut kept = Vec::with_capacity(events.len());
    let mut group_tick = None;
    let mut seen = [false; PLAYERS_MAX];
    for event in events.into_iter().rev() {
        let tick = first_tick(event.0);
        if group_tick != Some(tick) {
            group_tick = Some(tick);
            seen = [false; PLAYERS_MAX];
        }
        // Players beyond the table cannot occur (scripts have at most PLAYERS_MAX); keep them.
        let first_seen = seen
            .get_mut(event.1)
            .is_none_or(|s| !std::mem::replace(s, true));
        if first_seen {
            kept.push(event);
        }
    }
    kept.reverse();
    kept
}

// ---------------------------------------------------------------------------------------------
// Render clock.

/// The render frame times (ns) the driver is advanced to.
enum Clock {
    /// One frame at the end of every tick.
    PerTick,
    /// A steady rate of `num / den` frames per second.
    Fps { num: u64, den: u64 },
    /// Seeded random intervals.
    Jitter(u64),
}

impl Clock {
    fn from_args(args: &SimulateCommand) -> Result<Clock, CliError> {
        match (&args.render_fps, args.render_jitter) {
            (Some(_), Some(_)) => Err(CliError::bad_input(
                "--render-fps and --render-jitter cannot be used together: choose one render clock",
            )),
            (Some(text), None) => {
                let (num, den) = parse_fps(text).ok_or_else(|| {
                    CliError::bad_input(format!(
                        "--render-fps {text}: expected a frame rate above 0 and at most \
                         {RENDER_FPS_MAX}, as a decimal with at most \
                         {RENDER_FPS_DECIMALS_MAX} places (e.g. 59.94)"
                    ))
                })?;
                Ok(Clock::Fps { num, den })
            }
            (None, Some(seed)) => Ok(Clock::Jitter(seed)),
            (None, None) => Ok(Clock::PerTick),
        }
    }

    /// Frame times from 0 on, without end (the run stops on its own).
    fn frames(&self, tick_rate: u32) -> Box<dyn Iterator<Item = u64>> {
        match *self {
            Clock::PerTick => {
                // Tick k ends at (k + 1) · 10⁹ / rate ns; the frame is at that time rounded up,
                // the first whole nanosecond at which the tick has ended.
                let rate = u128::from(tick_rate.max(1));
                Box::new((1..=u64::from(u32::MAX)).map(move |end| {
                    (u128::from(end) * u128::from(NS_PER_SECOND)).div_ceil(rate) as u64
                }))
            }
            Clock::Fps { num, den } => Box::new(frame_times(num, den, u64::MAX)),
            Clock::Jitter(seed) => Box::new(jittered_frame_times(seed, u64::MAX)),
        }
    }
}

/// A decimal frame rate as an exact fraction `num / den` (`"59.94"` → 5994 / 100), or `None`
/// unless it is digits with an optional fraction of at most 9 digits, above 0 and at most
/// [`RENDER_FPS_MAX`].
fn parse_fps(text: &str) -> Option<(u64, u64)> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || (text.contains('.') && !digits(frac)) {
        return None;
    }
    if frac.len() > RENDER_FPS_DECIMALS_MAX {
        return None;
    }
    let whole: u64 = whole.parse().ok().filter(|&w| w <= RENDER_FPS_MAX)?;
    let den = 10u64.pow(frac.len() as u32);
    let frac: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    // ≤ 10⁴ · 10⁹ + 10⁹: no overflow.
    let num = whole * den + frac;
    (num > 0 && num <= RENDER_FPS_MAX * den).then_some((num, den))
}

// ---------------------------------------------------------------------------------------------
// Driving.

/// The simulation being run, and what each tick feeds.
struct Run {
    sim: Simulation,
    /// One bot per player when bots drive; the driver's inputs are then unused.
    bots: Option<Vec<Bot>>,
    ticks_max: u32,
    trace: Option<Trace>,
    recording: Option<Recording>,
    /// The first trace or recording error; no tick runs after it.
    error: Option<CliError>,
}

impl Run {
    /// The run is over: the tick budget is spent, every pogo has finished, or writing failed.
    fn done(&self) -> bool {
        let state = self.sim.state();
        self.error.is_some()
            || state.tick.0 >= self.ticks_max
            || state.pogos.iter().all(|p| p.finish_tick.is_some())
    }

    /// The driver's tick callback: one tick with `inputs` (or the bots'), then its trace rows.
    /// Ticks the driver runs after the run is over are ignored.
    fn tick(&mut self, inputs: &[Input]) {
        if self.done() {
            return;
        }
        let tick = self.sim.state().tick;
        let bot_inputs: Vec<Input>;
        let inputs = match &mut self.bots {
            Some(bots) => {
                // Each bot sees its pogo's state after the previous tick.
                let (world, tuning) = (self.sim.world(), self.sim.tuning());
                bot_inputs = bots
                    .iter_mut()
                    .zip(&self.sim.state().pogos)
                    .map(|(bot, pogo)| bot.input(world, tuning, pogo))
                    .collect();
                &bot_inputs[..]
            }
            None => inputs,
        };
        self.sim.step(inputs);
        if let Some(recording) = &mut self.recording {
            let sim = &self.sim;
            if let Err(e) = recording.recorder.record(inputs, || sim.state_hash()) {
                self.error = Some(recording.error(e));
                return;
            }
        }
        if let Some(trace) = &mut self.trace {
            if let Err(e) = trace.rows(tick, &self.sim.state().pogos) {
                self.error = Some(e);
            }
        }
    }
}

/// Runs `run` to its end through a frame driver advanced to the `clock`'s frame times, pushing
/// each script event before the frame whose time reaches it.
fn drive(run: &mut Run, clock: Clock, events: &[(u64, usize, Input)]) -> Result<(), CliError> {
    let rate = run.sim.tuning().spec().tick_rate;
    let players = run.sim.state().pogos.len();
    let mut driver = Driver::new(rate, players)
        .map_err(|e| CliError::bad_input(format!("cannot start the frame driver: {e}")))?
        .with_ticks_per_frame_max(u32::MAX);
    let mut pending = events.iter().copied().peekable();
    for now in clock.frames(rate) {
        if run.done() {
            break;
        }
        while let Some((at, player, input)) = pending.next_if(|&(at, ..)| at <= now) {
            push_event(&mut driver, run, at, player, input)?;
        }
        driver.advance_to(now, |_, inputs| run.tick(inputs));
    }
    match run.error.take() {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Pushes one event. If the driver's queue is full, first runs the ticks that end by the
/// event's own time (every event before it is queued, so those ticks have all their input),
/// which drains the queue: events were thinned to at most one per player per tick.
fn push_event(
    driver: &mut Driver,
    run: &mut Run,
    at: u64,
    player: usize,
    input: Input,
) -> Result<(), CliError> {
    let bad = |e: DriverError| CliError::bad_input(format!("input script: {e}"));
    match driver.push_event(at, player, input) {
        Err(DriverError::QueueFull) => {
            driver.advance_to(at, |_, inputs| run.tick(inputs));
            driver.push_event(at, player, input).map(drop).map_err(bad)
        }
        other => other.map(drop).map_err(bad),
    }
}

// ---------------------------------------------------------------------------------------------
// Output.

/// The trace CSV being written, to a file or to stdout (`-`).
struct Trace {
    path: PathBuf,
    out: BufWriter<Box<dyn Write>>,
    /// With several players, rows carry a `player` column.
    players: usize,
}

impl Trace {
    /// Creates the file and writes the header.
    fn create(path: &Path, players: usize) -> Result<Trace, CliError> {
        let out: Box<dyn Write> = if is_stdout(path) {
            Box::new(io::stdout())
        } else {
            Box::new(File::create(path).map_err(|e| {
                CliError::bad_input(format!("{}: cannot create trace: {e}", path.display()))
            })?)
        };
        let mut trace = Trace {
            path: path.to_path_buf(),
            out: BufWriter::new(out),
            players,
        };
        let header = if players > 1 {
            TRACE_HEADER_PLAYERS
        } else {
            TRACE_HEADER
        };
        let written = writeln!(trace.out, "{header}");
        written.map_err(|e| trace.error(e))?;
        Ok(trace)
    }

    /// The rows of `tick`, which just ran, one per pogo.
    fn rows(&mut self, tick: Ticks, pogos: &[Pogo]) -> Result<(), CliError> {
        for (player, pogo) in pogos.iter().enumerate() {
            self.row(tick, player, pogo).map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    fn row(&mut self, tick: Ticks, player: usize, pogo: &Pogo) -> io::Result<()> {
        let w = &mut self.out;
        write!(w, "{tick}")?;
        if self.players > 1 {
            write!(w, ",{player}")?;
        }
        let (p, v) = (pogo.position, pogo.velocity);
        writeln!(
            w,
            ",{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{},{}",
            pogo.state.name(),
            p.x,
            p.y,
            p.z,
            v.x,
            v.y,
            v.z,
            pogo.combo,
            pogo.bounces
        )
    }

    /// Flushes the file.
    fn finish(mut self) -> Result<(), CliError> {
        let flushed = self.out.flush();
        flushed.map_err(|e| self.error(e))
    }

    /// A write error: an output error on stdout (a closed pipe ends the run quietly), bad
    /// input (a file that cannot be written) otherwise.
    fn error(&self, e: io::Error) -> CliError {
        if is_stdout(&self.path) {
            return CliError::Output(e);
        }
        CliError::bad_input(format!("{}: cannot write trace: {e}", self.path.display()))
    }
}

/// The replay being recorded.
struct Recording {
    path: PathBuf,
    recorder: Recorder<BufWriter<File>>,
}

impl Recording {
    /// Creates the file and writes the preamble and header (the metadata is checked first,
    /// by [`check_metadata`]).
    fn create(
        path: &Path,
        sim: &Simulation,
        args: &SimulateCommand,
    ) -> Result<Recording, CliError> {
        let header = Header::for_simulation(sim, args.player_name.clone(), args.date.clone());
        let error = |e: io::Error| {
            CliError::bad_input(format!("{}: cannot write recording: {e}", path.display()))
        };
        let file = File::create(path).map_err(|e| {
            CliError::bad_input(format!("{}: cannot create recording: {e}", path.display()))
        })?;
        let recorder = Recorder::new(BufWriter::new(file), header).map_err(error)?;
        Ok(Recording {
            path: path.to_path_buf(),
            recorder,
        })
    }

    /// Writes the last chunk and the trailer: every pogo's finish tick, the final hash.
    fn finish(self, sim: &Simulation) -> Result<(), CliError> {
        let path = self.path;
        self.recorder.finish_simulation(sim).map(drop).map_err(|e| {
            CliError::bad_input(format!("{}: cannot write recording: {e}", path.display()))
        })
    }

    fn error(&self, e: io::Error) -> CliError {
        CliError::bad_input(format!(
            "{}: cannot write recording: {e}",
            self.path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fps_parses_exactly_and_rejects_out_of_range() {
        assert_eq!(parse_fps("59.94"), Some((5994, 100)));
        assert_eq!(parse_fps("60"), Some((60, 1)));
        assert_eq!(parse_fps("0.5"), Some((5, 10)));
        assert_eq!(parse_fps("10000"), Some((10000, 1)));
        assert_eq!(
            parse_fps("10000.000000000"),
            Some((10_000_000_000_000, 1_000_000_000))
        );
        assert_eq!(parse_fps("0.000000001"), Some((1, 1_000_000_000)));
        for bad in [
            "0",
            "0.0",
            "-1",
            "10000.1",
            "10001",
            "abc",
            "",
            ".5",
            "5.",
            "1e3",
            "+60",
            "0.0000000001",
            "99999999999999999999999",
            "6 0",
        ] {
            assert_eq!(parse_fps(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn per_tick_frames_end_exactly_one_tick_each() {
        let frames: Vec<u64> = Clock::PerTick.frames(60).take(3).collect();
        assert_eq!(frames, [16_666_667, 33_333_334, 50_000_000]);
        let mut driver = Driver::new(60, 1).unwrap();
        for (k, now) in Clock::PerTick.frames(60).take(200).enumerate() {
            let info = driver.advance_to(now, |_, _| {});
            assert_eq!(info.ticks_run_this_frame, 1, "frame {k}");
        }
    }

    #[test]
    fn last_per_tick_keeps_each_players_last_event_of_a_tick() {
        let input = |x: i8| Input {
            steer_x: x,
            ..Input::default()
        };
        // At 60 Hz, 1 ns to 16 666 666 ns all first apply at tick 1.
        let events = vec![
            (0, 0, input(1)),
            (1, 0, input(2)),
            (2, 1, input(3)),
            (16_666_666, 0, input(4)),
            (16_666_667, 0, input(5)),
        ];
        assert_eq!(
            last_per_tick(events, 60),
            [
                (0, 0, input(1)),
                (2, 1, input(3)),
                (16_666_666, 0, input(4)),
                (16_666_667, 0, input(5)),
            ]
        );
    }
}
