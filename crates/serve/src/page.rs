//! The explorer page: three files compiled into the binary, so the server reads no file of
//! its own at run time and serves nothing but these and the API.

/// `/` : the page.
pub const INDEX_HTML: &str = include_str!("page/index.html");
/// `/app.js` : board drawing, navigation, editor, statistics plot, play mode.
pub const APP_JS: &str = include_str!("page/app.js");
/// `/style.css`.
pub const STYLE_CSS: &str = include_str!("page/style.css");
