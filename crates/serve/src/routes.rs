//! The router: a fixed table of paths, each either an embedded page file or an API handler.
//!
//! Every answer that is not the page is JSON: errors are `{"error": "..."}` with 400 for bad
//! input, 404 for unknown databases and paths, 414, 431 and 413 for over-long or bodied
//! requests ([`super::guard`]) and 500 for a failure reading a database. Probes run on the
//! blocking pool, but for `/api/query`, which runs inline; a panic becomes a 500 for that
//! request only.

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, Uri};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

use super::guard::guard;
use super::line::perfect_line;
use super::page;
use super::params::{ApiError, DbQuery, NoQuery, PositionQuery};
use super::served::{Served, ServedDb};
use super::shapes::{covered, db_json, moves_json, position_json, DbJson};
use bawo_db::query;
use bawo_games::with_game;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(serde_json::json!({ "error": self.message }));
        (self.status, body).into_response()
    }
}

/// The whole application: page, API, 404 fallback and the request-size guard.
pub fn router(served: Served) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route("/app.js", get(app_js))
        .route("/style.css", get(style_css))
        .route("/api/dbs", get(api_dbs))
        .route("/api/position", get(api_position))
        .route("/api/query", get(api_query))
        .route("/api/moves", get(api_moves))
        .route("/api/line", get(api_line))
        .route("/api/stats", get(api_stats))
        .fallback(not_found)
        .layer(middleware::from_fn(guard))
        .with_state(served)
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::not_found(format!("nothing at {}", uri.path()))
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Body::from(body),
    )
        .into_response()
}

async fn index() -> Response {
    asset("text/html; charset=utf-8", page::INDEX_HTML)
}

async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", page::APP_JS)
}

async fn style_css() -> Response {
    asset("text/css; charset=utf-8", page::STYLE_CSS)
}

/// The answer to a request whose handler panicked (logged; the server goes on).
fn panicked() -> Response {
    crate::note(format_args!("bawo serve: error: a request panicked"));
    ApiError::internal("the request failed inside the server").into_response()
}

/// Runs `f` on the blocking pool and answers its value as JSON.
async fn blocking<T: Serialize + Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => panicked(),
    }
}

/// Runs `f` on the worker thread itself and answers its value as JSON: for `/api/query`,
/// which reads a handful of (mostly cached) blocks in microseconds, the hop to the blocking
/// pool and back costs more than the work under a burst of requests. A panic is still a 500
/// for that request only.
fn inline<T: Serialize>(f: impl FnOnce() -> Result<T, ApiError>) -> Response {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => panicked(),
    }
}

fn query_of<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(t)| t)
        .map_err(|e| ApiError::bad_request(e.body_text()))
}

async fn api_dbs(State(s): State<Served>, q: Result<Query<NoQuery>, QueryRejection>) -> Response {
    blocking(move || {
        query_of(q)?;
        Ok(s.all().iter().map(|d| db_json(d)).collect::<Vec<DbJson>>())
    })
    .await
}

/// The body every position endpoint shares: on the blocking pool, read the query, find the
/// database, read the position in the database's game, then evaluate `$body` with them bound
/// to the given names, answering its value as JSON.
macro_rules! on_position {
    ($s:ident, $q:ident, |$query:ident, $d:ident, $g:ident, $pos:ident| $body:expr) => {
        on_position!(@run blocking, $s, $q, |$query, $d, $g, $pos| $body).await
    };
    (inline $s:ident, $q:ident, |$query:ident, $d:ident, $g:ident, $pos:ident| $body:expr) => {
        on_position!(@run inline, $s, $q, |$query, $d, $g, $pos| $body)
    };
    (@run $how:ident, $s:ident, $q:ident, |$query:ident, $d:ident, $g:ident, $pos:ident| $body:expr) => {
        $how(move || {
            let $query = query_of($q)?;
            let found = $s.find($query.db.as_deref())?;
            let $d: &ServedDb = &found;
            with_game!($d.db.game(), $g => {
                let $pos = $query.position($g)?;
                $body
            })
        })
    };
}

type PositionParams = Result<Query<PositionQuery>, QueryRejection>;

async fn api_position(State(s): State<Served>, q: PositionParams) -> Response {
    on_position!(s, q, |_q, d, g, pos| Ok(position_json(d, g, &pos)))
}

async fn api_query(State(s): State<Served>, q: PositionParams) -> Response {
    on_position!(inline s, q, |_q, d, g, pos| {
        covered(d, g, &pos)?;
        Ok(query(&d.db, g, &pos)?)
    })
}

async fn api_moves(State(s): State<Served>, q: PositionParams) -> Response {
    on_position!(s, q, |_q, _d, g, pos| Ok(moves_json(g, &pos)))
}

async fn api_line(State(s): State<Served>, q: PositionParams) -> Response {
    on_position!(s, q, |q, d, g, pos| {
        let limit = q.line_limit()?;
        Ok(perfect_line(d, g, pos, limit)?)
    })
}

async fn api_stats(State(s): State<Served>, q: Result<Query<DbQuery>, QueryRejection>) -> Response {
    blocking(move || {
        let q = query_of(q)?;
        let stats = s.find(q.db.as_deref())?.stats()?;
        Ok(stats.as_ref().clone())
    })
    .await
}
