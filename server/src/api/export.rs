//! `GET /api/levels/{level}/export?format=csv|json`: a level's whole leaderboard as a file to
//! download — every entry in rank order (the board of `GET /api/levels/{level}/leaderboard`:
//! one entry per player, their best), as CSV or as one JSON document whose entries are the
//! leaderboard's (`leaderboard::EntryJson`).
//!
//! **Bounded memory.** The body is streamed: [`EXPORT_BATCH_ROWS`] entries at a time, written
//! out before the next are asked for. A batch comes from the board's rank index while the
//! board is as it was when the export began (`Boards::board_rows_indexed`: one probe of the
//! change feed, no rows read), else from one short keyset query (`Boards::board_batch`: after
//! the last entry sent, in the board's (finish tick, run id) order). A board of a million
//! entries never sits in memory twice, no database connection (nor SQLite read snapshot) is
//! held while a slow client reads, and a batch costs its own rows, not the board's (an
//! `OFFSET` page re-ranks everything before it). The export is the board as it stood when it
//! started (runs verified later are left out); an admin hiding a run during an export shows.
//! A database failure in the middle cuts the response off (the status line is sent already):
//! a client sees an incomplete body, never a short file that looks whole — the CSV ends with
//! its last row's line break, the JSON with `]}`.
//!
//! **CSV** (RFC 4180): `text/csv; charset=utf-8`, a header row, CRLF line ends, a field
//! quoted (`"…"`, inner quotes doubled) when it holds a comma, a quote, CR or LF. **Formula
//! injection**: a text field that starts with `=`, `+`, `-`, `@`, tab or CR gets a leading
//! apostrophe (`-x` is written `'-x`), so a spreadsheet shows it as text rather than running
//! it as a formula; names may start with `-`. The JSON export has the names as they are.
//!
//! Both come with `Content-Disposition: attachment`, and count against the per-address rate
//! limit of every `/api/` request, as one request.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::http::{ApiPath, ApiQuery};
use super::leaderboard::EntryJson;
use super::seasons::season_board;
use crate::error::{ApiError, ErrorBody};
use crate::limits::{EXPORT_BATCH_ROWS, EXPORT_FIRST_BATCH_ROWS};
use crate::state::AppState;
use crate::store::Category;
use crate::store::{Board, BoardVersion, Entry, ExportCursor, StoreError};
use crate::times::{now_ms, rfc3339};

/// What to export as.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON document, [`BoardExport`].
    Json,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// `csv` or `json` (required).
    #[param(inline)]
    pub format: ExportFormat,
    /// `open` (default) or `realtime`: which of the level's boards.
    pub category: Option<Category>,
    /// A season of the level (an id from `GET /api/levels/{level}/seasons`). Default: the
    /// current one.
    pub season: Option<String>,
}

/// The JSON export: the board's identity, then every entry.
#[derive(Debug, Serialize, ToSchema)]
pub struct BoardExport {
    pub level: String,
    pub level_hash: String,
    pub tuning_hash: String,
    pub rules_version: u32,
    /// The board's season (`GET /api/levels/{level}/seasons`).
    pub season: String,
    pub tick_rate: u32,
    /// The board as it stood at this instant (RFC 3339, UTC): runs verified later are not in
    /// the export.
    pub as_of: String,
    /// The leaderboard's entries (`GET /api/levels/{level}/leaderboard`), every one.
    pub entries: Vec<EntryJson>,
}

/// The CSV header row.
const CSV_HEADER: &str = "rank,player,run_id,finish_tick,time,uploaded_at,replay_url\r\n";

/// A level's whole leaderboard as a CSV or JSON file, streamed in rank order.
///
/// One entry per player (their best verified finish), the order and ranks of
/// `GET /api/levels/{level}/leaderboard`. CSV fields: rank, player, run_id, finish_tick,
/// time (`m:ss.mmm`), uploaded_at (RFC 3339), replay_url; RFC 4180 quoting, and a leading
/// apostrophe on a field starting with `=`, `+`, `-`, `@`, tab or CR (spreadsheet formula
/// injection). The board is taken as it stood when the export started.
#[utoipa::path(get, path = "/api/levels/{level}/export", tag = "leaderboards",
    params(("level" = String, Path, description = "Level name"), ExportQuery),
    responses(
        (status = 200, description = "The board, as an attachment", headers(
            ("content-disposition" = String, description = "`attachment; filename=\"LEVEL-leaderboard.csv\"` (or `.json`)")),
            content(
                (String = "text/csv", example = "rank,player,run_id,finish_tick,time,uploaded_at,replay_url\r\n1,bot,1,1234,0:20.583,2025-01-01T00:00:00Z,/api/runs/1/replay\r\n"),
                (BoardExport = "application/json"),
            )),
        (status = 400, description = "No `format`, a format other than `csv` or `json`, a malformed `season`, or another parameter (`bad_parameter`)", body = ErrorBody),
        (status = 404, description = "No such level (`unknown_level`) or season (`unknown_season`)", body = ErrorBody),
        (status = 429, description = "Rate limited (per address); see Retry-After", body = ErrorBody),
    ))]
pub async fn export(
    State(state): State<AppState>,
    ApiPath(level): ApiPath<String>,
    ApiQuery(ExportQuery {
        format,
        category,
        season,
    }): ApiQuery<ExportQuery>,
) -> Result<Response, ApiError> {
    let (board, season, current) = season_board(
        &state,
        &level,
        season.as_deref(),
        category.unwrap_or_default(),
    )
    .await?;
    let (content_type, extension) = match format {
        ExportFormat::Csv => ("text/csv; charset=utf-8", "csv"),
        ExportFormat::Json => ("application/json", "json"),
    };
    // A past season's file names its season (the current one's keeps its old name).
    let past = if current {
        String::new()
    } else {
        format!("-{season}")
    };
    let disposition = format!(
        "attachment; filename=\"{}{past}-leaderboard.{extension}\"",
        file_name_part(&level)
    );
    let writer = Writer {
        tick_rate: state.catalog.tick_rate(),
        state,
        board,
        season: season.to_string(),
        format,
        as_of_ms: now_ms(),
        cursor: ExportCursor::START,
        source: Source::Index(None),
        stage: Stage::Head,
    };
    // Fused: a body may be polled again after its end (tower-http's compression does, and
    // `unfold` panics if polled after it returned `None`).
    let body = futures_util::stream::unfold(writer, |mut writer| async move {
        match writer.next_chunk().await {
            Ok(Some(chunk)) => Some((Ok(chunk), writer)),
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(error = %e, level = %writer.board.level, "export cut off");
                writer.stage = Stage::Done;
                Some((Err(e), writer))
            }
        }
    })
    .fuse();
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from_stream(body),
    )
        .into_response())
}

/// Where an export's body stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Nothing written yet: the CSV header row, or the JSON document's opening.
    Head,
    /// Writing batches of entries (the last, short one ends with the document's closing).
    Entries,
    Done,
}

/// An export's body, one chunk at a time.
struct Writer {
    state: AppState,
    board: Board,
    season: String,
    format: ExportFormat,
    tick_rate: u32,
    as_of_ms: i64,
    /// The last entry written.
    cursor: ExportCursor,
    /// Where the entries come from.
    source: Source,
    stage: Stage,
}

/// Where an export reads its entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The rank index, while the board stays as it was when the export began (this version;
    /// `None` before the first batch): see `Boards::board_rows_indexed`.
    Index(Option<BoardVersion>),
    /// SQL, as of the export's start, from the cursor on (`Boards::board_batch`): once the
    /// board changed, or if it has no index yet.
    Sql,
}

impl Writer {
    /// The next piece of the body, or `None` at its end.
    async fn next_chunk(&mut self) -> Result<Option<Bytes>, StoreError> {
        match self.stage {
            Stage::Head => {
                // The first batch before the head: it settles the instant the export is of.
                let rows = self.batch(EXPORT_FIRST_BATCH_ROWS).await?;
                let mut chunk = self.head();
                chunk.push_str(&self.batch_chunk(rows, EXPORT_FIRST_BATCH_ROWS));
                Ok(Some(Bytes::from(chunk)))
            }
            Stage::Entries => {
                let rows = self.batch(EXPORT_BATCH_ROWS).await?;
                Ok(Some(Bytes::from(self.batch_chunk(rows, EXPORT_BATCH_ROWS))))
            }
            Stage::Done => Ok(None),
        }
    }

    /// A batch written out, and the document's end after the last (a short batch).
    fn batch_chunk(&mut self, rows: Vec<Entry>, limit: u32) -> String {
        let short = rows.len() < limit as usize;
        let mut chunk = self.entries(rows);
        self.stage = Stage::Entries;
        if short {
            chunk.push_str(&self.tail().unwrap_or_default());
        }
        chunk
    }

    /// The next `limit` entries after the cursor.
    async fn batch(&mut self, limit: u32) -> Result<Vec<Entry>, StoreError> {
        let store = &self.state.store;
        if let Source::Index(since) = self.source {
            let offset = u64::try_from(self.cursor.rank).unwrap_or(0);
            let before = now_ms();
            match store
                .boards()
                .board_rows_indexed(&self.board, since, offset, limit)
                .await?
            {
                Some((version, rows)) => {
                    // The board unchanged since the first batch: as of this instant too (if
                    // it changes before the next batch, SQL goes on as of here).
                    self.as_of_ms = before;
                    self.source = Source::Index(Some(version));
                    return Ok(rows);
                }
                None => self.source = Source::Sql,
            }
        }
        store
            .boards()
            .board_batch(&self.board, self.as_of_ms, self.cursor, limit)
            .await
    }

    fn head(&self) -> String {
        match self.format {
            ExportFormat::Csv => CSV_HEADER.to_string(),
            ExportFormat::Json => {
                let head = BoardExport {
                    level: self.board.level.clone(),
                    level_hash: self.board.level_hash.clone(),
                    tuning_hash: self.board.tuning_hash.clone(),
                    rules_version: self.board.rules_version,
                    season: self.season.clone(),
                    tick_rate: self.tick_rate,
                    as_of: rfc3339(self.as_of_ms),
                    entries: Vec::new(),
                };
                // `{…,"entries":[]}` without its last two bytes: the entries follow.
                let mut json = serde_json::to_string(&head).unwrap_or_default();
                json.truncate(json.len().saturating_sub(2));
                json.push('\n');
                json
            }
        }
    }

    /// The document's closing (JSON), once; then `None`.
    fn tail(&mut self) -> Option<String> {
        self.stage = Stage::Done;
        match self.format {
            ExportFormat::Csv => None,
            ExportFormat::Json => Some("]}\n".to_string()),
        }
    }

    /// A batch of entries (ranked on from the last one written).
    fn entries(&mut self, rows: Vec<Entry>) -> String {
        let mut out = String::with_capacity(rows.len() * 128);
        for row in rows {
            self.cursor = ExportCursor::after(&row);
            let entry = EntryJson::new(row, self.tick_rate);
            match self.format {
                ExportFormat::Csv => {
                    let fields = [
                        entry.rank.to_string(),
                        csv_field(&entry.player),
                        entry.run_id.to_string(),
                        entry.finish_tick.to_string(),
                        csv_field(&entry.time),
                        csv_field(&entry.uploaded_at),
                        csv_field(&entry.replay_url),
                    ];
                    out.push_str(&fields.join(","));
                    out.push_str("\r\n");
                }
                ExportFormat::Json => {
                    if entry.rank > 1 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(&entry).unwrap_or_default());
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// A text field of the CSV: defused against formula injection (a leading apostrophe before
/// `=`, `+`, `-`, `@`, tab or CR — what a spreadsheet would otherwise evaluate), then quoted
/// per RFC 4180 if it holds a comma, a quote, CR or LF.
pub fn csv_field(text: &str) -> String {
    let defused = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if defused.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", defused.replace('"', "\"\""))
    } else {
        defused
    }
}

/// A level name as part of a download's file name: ASCII letters, digits, `-`, `_` and `.`
/// kept, anything else `_` (no quote, slash or control character reaches the header).
fn file_name_part(level: &str) -> String {
    level
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_per_rfc_4180_and_defused() {
        assert_eq!(csv_field("bot"), "bot");
        assert_eq!(csv_field("Zoë O'Neill"), "Zoë O'Neill");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\r\nlines"), "\"two\r\nlines\"");
        for formula in ["=1+1", "+1", "-x", "@SUM(A1)", "\tx"] {
            assert_eq!(csv_field(formula), format!("'{formula}"));
        }
        assert_eq!(
            csv_field("=HYPERLINK(\"x\",1)"),
            "\"'=HYPERLINK(\"\"x\"\",1)\""
        );
        assert_eq!(csv_field("\rx"), "\"'\rx\"");
        assert_eq!(csv_field("x=1"), "x=1");
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_name_part("course"), "course");
        assert_eq!(file_name_part("a\"b/c\\d e"), "a_b_c_d_e");
    }
}
