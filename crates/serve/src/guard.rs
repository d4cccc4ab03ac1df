//! What every request passes through before and after its handler: the size limits, and the
//! rule that every error answer is JSON.
//!
//! axum answers some errors itself, with an empty or plain-text body (405 for a method a
//! route does not take); a client of a JSON API should be able to parse every error the same
//! way, so such answers are given the API's `{"error": "..."}` body here. hyper's own answers
//! to requests it cannot parse at all (a malformed request line, a head beyond its limits)
//! are sent before any of this runs; `docs/serve.md` says which.

use axum::extract::Request;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::params::{ApiError, MAX_QUERY};

/// Most bytes of header lines (names and values) read; a request with more answers 431.
pub const MAX_HEAD: usize = 8 << 10;

/// Refuses over-long targets and heads and any request that carries a body (the API is
/// read-only), then gives a JSON body to any error answer that has none.
pub async fn guard(req: Request, next: Next) -> Response {
    if let Some(refused) = refuse(&req) {
        return refused.into_response();
    }
    let method = req.method().clone();
    json_errors(&method, next.run(req).await)
}

fn refuse(req: &Request) -> Option<ApiError> {
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > MAX_QUERY {
        return Some(ApiError {
            status: StatusCode::URI_TOO_LONG,
            message: format!("request target of {target} bytes; at most {MAX_QUERY} are read"),
        });
    }
    let head = head_bytes(req.headers());
    if head > MAX_HEAD {
        return Some(ApiError {
            status: StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            message: format!("{head} bytes of header lines; at most {MAX_HEAD} are read"),
        });
    }
    let has_body = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .is_some_and(|v| v.as_bytes() != b"0")
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    has_body.then(|| ApiError {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        message: "this server is read-only and takes no request body".into(),
    })
}

/// The bytes of the header lines as sent (`name: value` and the line end).
fn head_bytes(headers: &HeaderMap) -> usize {
    headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum()
}

/// `res` as it is, unless it is an error without a JSON body: then the same status with the
/// API's error body (and its `Allow` header, for a 405).
fn json_errors(method: &Method, res: Response) -> Response {
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let message = if status == StatusCode::METHOD_NOT_ALLOWED {
        format!("method {method} is not allowed: this server answers GET (and HEAD) only")
    } else {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    };
    let mut out = ApiError { status, message }.into_response();
    if let Some(allow) = res.headers().get(header::ALLOW) {
        out.headers_mut().insert(header::ALLOW, allow.clone());
    }
    out
}
