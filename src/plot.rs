//! The `stats --plot` picture: WIN/LOSS/DRAW shares per tier above, the depth histogram of
//! all positions below. SVG or PNG by the file's extension.
//!
//! Text needs a font: plotters measures labels even for SVG. A font is embedded in the
//! binary (DejaVu Sans Mono, `assets/fonts`, freely licensed) and registered with plotters'
//! `ab_glyph` backend, so plots render on a bare machine with no fonts installed.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use bawo_db::stats::Stats;
use bawo_games::error::{Error, Result};

static FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSansMono.ttf");
const SIZE: (u32, u32) = (1000, 720);
const WIN_COLOR: RGBColor = RGBColor(46, 139, 87);
const LOSS_COLOR: RGBColor = RGBColor(200, 60, 50);
const DRAW_COLOR: RGBColor = RGBColor(120, 120, 200);

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            plotters::style::register_font("sans-serif", style, FONT)
                .unwrap_or_else(|_| panic!("the embedded font is valid"));
        }
    });
}

fn plot_err(e: impl std::fmt::Debug) -> Error {
    Error::Internal(format!("drawing the plot: {e:?}"))
}

/// Which backend a file name asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotKind {
    Svg,
    Png,
}

impl PlotKind {
    pub fn of(path: &Path) -> std::result::Result<PlotKind, bawo_games::game::InputError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(PlotKind::Svg),
            Some("png") => Ok(PlotKind::Png),
            _ => Err(bawo_games::game::InputError::new(format!(
                "--plot {}: the file name must end in .svg or .png",
                path.display()
            ))),
        }
    }
}

/// Draws `stats` into `path` (SVG or PNG by extension), written atomically.
pub fn plot(stats: &Stats, path: &Path) -> Result<()> {
    register_font();
    match PlotKind::of(path)? {
        PlotKind::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
                draw(stats, &root)?;
                root.present().map_err(plot_err)?;
            }
            bawo_store::write_atomic(path, |w| w.write_all(svg.as_bytes()))?;
        }
        PlotKind::Png => {
            let mut rgb = vec![0u8; SIZE.0 as usize * SIZE.1 as usize * 3];
            {
                let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
                draw(stats, &root)?;
                root.present().map_err(plot_err)?;
            }
            let mut png = Vec::new();
            {
                use image::ImageEncoder;
                image::codecs::png::PngEncoder::new(&mut png)
                    .write_image(&rgb, SIZE.0, SIZE.1, image::ExtendedColorType::Rgb8)
                    .map_err(plot_err)?;
            }
            bawo_store::write_atomic(path, |w| w.write_all(&png))?;
        }
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(stats: &Stats, root: &DrawingArea<DB, Shift>) -> Result<()> {
    root.fill(&WHITE).map_err(plot_err)?;
    let root = root
        .titled(&stats.game, ("sans-serif", 20))
        .map_err(plot_err)?;
    let (top, bottom) = root.split_vertically(SIZE.1 / 2 - 10);
    draw_shares(stats, &top)?;
    draw_depths(stats, &bottom)
}

/// The counts below a bar and in it, for one tier.
type SharePick = fn(&bawo_db::stats::TierStats) -> (u64, u64);

/// Stacked bars: per tier, the shares of LOSS (bottom), DRAW and WIN (top).
fn draw_shares<DB: DrawingBackend>(stats: &Stats, area: &DrawingArea<DB, Shift>) -> Result<()> {
    // Only the solved range: a Bao database (tiers of exactly S seeds) draws no empty tiers
    // from 0 up.
    let seeds = || stats.tiers.iter().filter(|t| t.states > 0).map(|t| t.seeds);
    let max_seeds = seeds().max().unwrap_or(0) as f64;
    let min_seeds = seeds().min().unwrap_or(0) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "value for the side to move, share per tier",
            ("sans-serif", 16),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(52)
        // Room on the right for the legend.
        .build_cartesian_2d(
            min_seeds - 0.5..max_seeds + 0.5 + ((max_seeds - min_seeds) / 8.0).max(2.0),
            0f64..100f64,
        )
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("seeds on the board (tier)")
        .y_desc("% of positions")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(plot_err)?;
    let bars = |pick: SharePick| {
        stats.tiers.iter().filter(|t| t.states > 0).map(move |t| {
            let (below, own) = pick(t);
            let n = t.states as f64;
            let x = t.seeds as f64;
            let y0 = 100.0 * below as f64 / n;
            let y1 = 100.0 * (below + own) as f64 / n;
            ((x - 0.4, y0), (x + 0.4, y1))
        })
    };
    let series: [(&str, RGBColor, SharePick); 3] = [
        ("loss", LOSS_COLOR, |t| (0, t.loss)),
        ("draw", DRAW_COLOR, |t| (t.loss, t.draw)),
        ("win", WIN_COLOR, |t| (t.loss + t.draw, t.win)),
    ];
    for (name, color, pick) in series {
        chart
            .draw_series(bars(pick).map(|(a, b)| Rectangle::new([a, b], color.filled())))
            .map_err(plot_err)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_err)
}

/// Bars per depth: positions that win or lose in exactly that many plies, all tiers.
fn draw_depths<DB: DrawingBackend>(stats: &Stats, area: &DrawingArea<DB, Shift>) -> Result<()> {
    let total = stats.states.max(1) as f64;
    let max_d = stats.win_depths.len().max(stats.loss_depths.len()).max(1) as f64;
    let peak = stats
        .win_depths
        .iter()
        .chain(&stats.loss_depths)
        .copied()
        .max()
        .unwrap_or(0) as f64
        * 100.0
        / total;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "depth: plies to the end under best play, all tiers",
            ("sans-serif", 16),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(-0.5f64..max_d - 0.5, 0f64..(peak * 1.1).max(1e-9))
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("depth (plies)")
        .y_desc("% of positions")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(plot_err)?;
    // Wins and losses at the same depth sit side by side; alone, a bar is centred.
    let both = |d: usize| {
        stats.win_depths.get(d).is_some_and(|&c| c > 0)
            && stats.loss_depths.get(d).is_some_and(|&c| c > 0)
    };
    let series: [(&str, RGBColor, &Vec<u64>, f64); 2] = [
        ("win", WIN_COLOR, &stats.win_depths, -0.4),
        ("loss", LOSS_COLOR, &stats.loss_depths, 0.0),
    ];
    for (name, color, hist, shift) in series {
        chart
            .draw_series(
                hist.iter()
                    .enumerate()
                    .filter(|(_, &c)| c > 0)
                    .map(|(d, &c)| {
                        let (x0, x1) = if both(d) {
                            (d as f64 + shift, d as f64 + shift + 0.4)
                        } else {
                            (d as f64 - 0.35, d as f64 + 0.35)
                        };
                        Rectangle::new([(x0, 0.0), (x1, 100.0 * c as f64 / total)], color.filled())
                    }),
            )
            .map_err(plot_err)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_err)
}
