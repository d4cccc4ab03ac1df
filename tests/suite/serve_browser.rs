//! The explorer page in headless Chromium, driven through chromedriver: every move the page
//! shows carries the value and depth `bawo query --json` gives; clicking a move shows the
//! position `bawo moves --json` says it leads to; a screenshot of each game's page is saved
//! under `target/` (or `BAWO_SCREENSHOTS`, which is how `docs/` got its pictures).
//!
//! Skipped, with a message, where `chromedriver` is not installed (Debian: `apt-get install
//! chromium chromium-driver`; `.ci/run` installs both).

use crate::serve_support;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bawo_serve::{start, ServeConfig};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::Value as Json;
use serve_support::*;

/// `chromedriver` on the PATH, if any.
fn chromedriver() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromedriver"))
            .find(|p| p.is_file())
    })
}

/// chromedriver on a free local port; killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_driver(path: &PathBuf) -> Driver {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let d = Driver { child, port };
    let t = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    d
}

async fn connect(port: u16) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900"]
        }),
    );
    // Plain HTTP to the local chromedriver: no TLS stack (and no system OpenSSL) needed.
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a chromedriver session")
}

fn screenshot_dir() -> PathBuf {
    let d = std::env::var_os("BAWO_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-screenshots"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Waits until `#board` shows `board` (the page loads asynchronously).
async fn wait_for_board(c: &Client, board: &str) {
    let t = Instant::now();
    loop {
        let el = c.find(Locator::Css("#board")).await.unwrap();
        if el.attr("data-board").await.unwrap().as_deref() == Some(board) {
            // The moves arrive with the position; wait until they are drawn too.
            if !c
                .find_all(Locator::Css("#moves li"))
                .await
                .unwrap()
                .is_empty()
            {
                return;
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "page never showed {board}"
        );
        // A short blocking nap: the test runtime has a second worker for the session.
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every shown move as (move, value, depth) from its data attributes.
async fn shown_moves(c: &Client) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for b in c
        .find_all(Locator::Css("#moves [data-move]"))
        .await
        .unwrap()
    {
        out.push((
            b.attr("data-move").await.unwrap().unwrap_or_default(),
            b.attr("data-value").await.unwrap().unwrap_or_default(),
            b.attr("data-depth").await.unwrap().unwrap_or_default(),
        ));
    }
    out
}

fn expected_moves(query: &Json) -> Vec<(String, String, String)> {
    query["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["value"].as_str().unwrap().to_string(),
                m["depth"]
                    .as_u64()
                    .map(|d| d.to_string())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

async fn check_game(
    c: Client,
    base: String,
    name: &'static str,
    dir: PathBuf,
    flags: &'static [&'static str],
    board: &'static str,
) {
    let c = &c;
    let d = dir.to_str().unwrap();
    c.goto(&format!("{base}/?db={name}&board={}&to_move=A", enc(board)))
        .await
        .unwrap();
    wait_for_board(c, board).await;
    let query = bin_json(&[
        "query",
        "--db",
        d,
        "--board",
        board,
        "--to-move",
        "A",
        "--json",
    ]);
    let shown = shown_moves(c).await;
    assert!(!shown.is_empty(), "{name}: no move shown on {board}");
    assert_eq!(shown, expected_moves(&query), "{name}: {board}");
    let value = c.find(Locator::Css("#value")).await.unwrap();
    assert_eq!(
        value.attr("data-value").await.unwrap().as_deref(),
        query["value"].as_str()
    );
    // The statistics plot draws one bar pair per depth of the database.
    c.find(Locator::Css("#stats-btn"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let t = Instant::now();
    while c
        .find_all(Locator::Css("#stats-plot rect"))
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{name}: no statistics plot"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    screenshot(c, &format!("serve-{name}.png")).await;

    // Click the first (best) move: the page shows the position `bawo moves` says follows.
    let mut args = vec!["moves"];
    args.extend_from_slice(flags);
    args.extend(["--board", board, "--to-move", "A", "--json"]);
    let moves = bin_json(&args);
    let (label, _, _) = &shown[0];
    let next = moves["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"].as_str() == Some(label))
        .unwrap();
    let next_board: Vec<String> = next["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.to_string())
        .collect();
    let next_board = next_board.join(",");
    c.find(Locator::Css(&format!("#moves [data-move=\"{label}\"]")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_board(c, &next_board).await;
    let side = c.find(Locator::Css("#board")).await.unwrap();
    assert_eq!(
        side.attr("data-to-move").await.unwrap().as_deref(),
        next["to_move"].as_str()
    );
    let url = c.current_url().await.unwrap();
    assert!(url.as_str().contains(&enc(&next_board)), "{url}");
    let after = bin_json(&[
        "query",
        "--db",
        d,
        "--board",
        &next_board,
        "--to-move",
        next["to_move"].as_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        shown_moves(c).await,
        expected_moves(&after),
        "{name}: after {label}"
    );

    // Back returns to the first position.
    c.find(Locator::Css("#back"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_board(c, board).await;
}

async fn screenshot(c: &Client, file: &str) {
    let png = c.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    let path = screenshot_dir().join(file);
    std::fs::write(&path, png).unwrap();
    println!("screenshot: {}", path.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_database_and_plays_moves() {
    let Some(driver_path) = chromedriver() else {
        println!(
            "SKIPPED serve_browser: chromedriver not found on PATH \
             (install Debian's chromium and chromium-driver to run this test)"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dirs = three_dbs(tmp.path());
    let server = start(ServeConfig::new(
        dirs.clone(),
        "127.0.0.1:0".parse::<SocketAddr>().unwrap(),
    ))
    .unwrap();
    let base = server.url();
    let driver = start_driver(&driver_path);
    let c = connect(driver.port).await;

    let games: [(&str, &PathBuf, &'static [&'static str], &str); 3] = [
        ("bawo2", &dirs[0], BAWO, "1,2,0,1,0,2,0,0"),
        (
            "kigogo",
            &dirs[1],
            KIGOGO,
            "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\
             0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0",
        ),
        (
            "bao",
            &dirs[2],
            BAO,
            "0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0",
        ),
    ];
    let mut failure = None;
    for (name, dir, flags, board) in games {
        // On its own task, so that a failed check still closes the browser below.
        let run = check_game(c.clone(), base.clone(), name, dir.clone(), flags, board);
        if let Err(e) = tokio::spawn(run).await.map_err(|e| e.to_string()) {
            failure = Some(format!("{name}: {e}"));
            break;
        }
    }
    let _ = c.close().await;
    drop(driver);
    server.stop().unwrap();
    if let Some(f) = failure {
        panic!("{f}");
    }
}
