//! The whole-run clock's tests.

use super::*;

#[test]
fn the_whole_run_eta_follows_the_estimate_then_the_latest_tier() {
    // Three tiers, 100 s estimated for 1,000 positions: 10, 30 and 60 s by their shares.
    let mut c = RunClock::new(&[100, 300, 600], Duration::from_secs(100));
    let t = c.tier_start;
    assert_eq!(c.eta(t), Duration::from_secs(100));
    assert_eq!(c.eta(t + Duration::from_secs(4)), Duration::from_secs(96));
    // The first tier took twice its share: the rest takes twice its estimate too.
    c.tier_finished(100, Duration::from_secs(20));
    let t = c.tier_start;
    assert_eq!(c.eta(t).as_secs(), 180);
    assert_eq!(c.eta(t + Duration::from_secs(50)).as_secs(), 130);
    // The tier in progress runs over its 60 s: it is taken as nearly done, and the tier
    // after it as slower by as much.
    let late = c.eta(t + Duration::from_secs(120)).as_secs_f64();
    assert!((late - (6.0 + 120.0 * 2.0)).abs() < 1e-6, "{late}");
    // The second tier took its share exactly: the ratio is 1 again; a quick tier (under
    // a second) leaves the ratio as it was.
    c.tier_finished(300, Duration::from_secs(30));
    assert_eq!(c.eta(c.tier_start).as_secs(), 60);
    c.tier_finished(600, Duration::from_millis(10));
    assert_eq!(c.eta(c.tier_start), Duration::ZERO);
    let line = c.line(1000, 1000, c.start + Duration::from_secs(125));
    assert_eq!(
        line,
        "whole run: 1.0 k / 1.0 k positions (100%), 8/s, elapsed 2m 05s, eta 0s"
    );
}

#[test]
fn the_eta_follows_the_successor_pass_once_it_has_run_a_while() {
    // One tier estimated at 100 s.
    let mut c = RunClock::new(&[1000], Duration::from_secs(100));
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    c.phase_started("successors", 1000, 0, t);
    // The pass reports first after 2 s of setup (its copies of the lower tiers): too
    // early to trust a pace, so the estimate.
    c.pass_progress(10, 1000, at(2.0));
    assert!((c.eta(at(2.5)).as_secs_f64() - 97.5).abs() < 1e-6);
    // 10% more in 10 s: a whole pass takes 2 + 100 s; 89 s of it are left, then the
    // rest of the tier by the pass's share (one half before any tier measured it). A
    // tenth of the pass has run since its first report: that, blended with the estimate
    // in proportion to how far it is towards `PASS_BLENDED_UNTIL` of what was left then.
    c.pass_progress(110, 1000, at(12.0));
    let whole = 102.0;
    let after = whole * (1.0 / PASS_SHARE - 1.0);
    let trust = 0.1 / (0.99 * PASS_BLENDED_UNTIL);
    let blended = trust * (89.0 + after) + (1.0 - trust) * (100.0 - 12.0);
    assert!((c.eta(at(12.0)).as_secs_f64() - blended).abs() < 1e-6);
    // `PASS_BLENDED_UNTIL` of the pass at the same pace: the pace alone.
    let run = (PASS_BLENDED_UNTIL * 1000.0) as u64;
    let secs = PASS_BLENDED_UNTIL * 100.0;
    c.pass_progress(10 + run, 1000, at(2.0 + secs));
    let left = 99.0 - secs;
    assert!((c.eta(at(2.0 + secs)).as_secs_f64() - (left + after)).abs() < 1e-6);
    // The pass ends at 102 s; the next phase counts down what is left of the tier.
    c.pass_progress(1000, 1000, at(102.0));
    c.phase_started("predecessors", 10, 0, at(102.0));
    assert!((c.eta(at(130.0)).as_secs_f64() - (after - 28.0)).abs() < 1e-6);
    // Past it, the tier is taken as nearly done.
    let late = c.eta(at(300.0)).as_secs_f64();
    assert!((late - 198.0 / 20.0).abs() < 1e-6, "{late}");
    // The tier took 255 s: its pass was 40% of it, the share the next tier's ETA takes.
    c.tier_finished(1000, Duration::from_secs(255));
    assert!((c.pass_share - 0.4).abs() < 1e-9);
}

#[test]
fn the_pace_of_a_pass_sets_the_eta_of_the_tiers_after_it() {
    // Two tiers of 100 and 900 positions, 100 s estimated: 10 s and 90 s.
    let mut c = RunClock::new(&[100, 900], Duration::from_secs(100));
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    // A resumed pass (half done) reporting first after 1 s, then going at 5% a second
    // (more than half of what it had left, `PASS_BLENDED_UNTIL`, so its pace alone is
    // taken): a whole pass is 1 + 20 s, so the tier takes 42 s at a share of one half,
    // 4.2 times its estimate, and so will the next.
    c.phase_started("successors", 100, 50, t);
    c.pass_progress(55, 100, at(1.0));
    c.pass_progress(80, 100, at(6.0));
    let eta = c.eta(at(6.0)).as_secs_f64();
    let whole = 21.0;
    let expected =
        0.20 * 20.0 + whole * (1.0 / PASS_SHARE - 1.0) + 90.0 * whole / PASS_SHARE / 10.0;
    assert!((eta - expected).abs() < 1e-6, "{eta} {expected}");
    // A resumed pass does not set the share.
    c.tier_finished(100, Duration::from_secs(40));
    assert_eq!(c.pass_share, PASS_SHARE);
}

#[test]
fn a_tier_out_of_core_is_given_longer_after_its_pass_and_its_attractor_its_own_pace() {
    // Two tiers of 200 and 2,000 positions (100 and 1,000 stored), 110 s estimated; the
    // second's attractor holds 40% of its cells.
    let mut c = RunClock::with_held(&[200, 2000], &[1.0, 0.4], Duration::from_secs(110));
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    // The first tier: a pass of 10 s, 30 levels, 25 s in all; in memory, so its share
    // is taken as it is.
    c.phase_started("successors", 100, 0, t);
    c.pass_progress(1, 100, at(0.1));
    c.pass_progress(100, 100, at(10.0));
    c.phase_started("attractor", 0, 0, at(10.0));
    c.level_done(29, 100, at(24.0));
    c.tier_finished(200, Duration::from_secs(25));
    assert!((c.pass_share - 0.4).abs() < 1e-9);
    assert_eq!(c.levels, Some(30));
    // Before its pass has said anything, the second tier's estimate (100 s, out of core
    // included) at the first tier's ratio of 2.5.
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    let factor = 1.0 + 0.6 * 30.0 / LEVELS_PER_DOUBLING;
    let first = c.eta(t).as_secs_f64();
    assert!((first - 250.0).abs() < 1e-6, "{first}");
    // The second tier's pass takes 100 s: the rest of the tier in memory would take
    // 150 s, out of core `factor` times that.
    c.phase_started("successors", 1000, 0, t);
    c.pass_progress(10, 1000, at(1.0));
    c.pass_progress(1000, 1000, at(100.0));
    c.phase_started("predecessors", 10, 0, at(100.0));
    let pass = 100.0;
    let after = pass * 1.5 * factor;
    assert!((c.eta(at(100.0)).as_secs_f64() - after).abs() < 1e-6);
    // In its attractor, once a tenth of the positions left after its first level are
    // decided, its own pace from there decides: 200 more of the 950 in 16 s leaves 60 s,
    // then the finish.
    c.phase_started("attractor", 0, 0, at(120.0));
    c.level_done(0, 50, at(124.0));
    let before = c.eta(at(130.0)).as_secs_f64();
    assert!((before - (after - 30.0)).abs() < 1e-6, "{before}");
    c.level_done(1, 250, at(140.0));
    let eta = c.eta(at(140.0)).as_secs_f64();
    assert!((eta - (60.0 + FINISH_SHARE * pass)).abs() < 1e-6, "{eta}");
    // Its share, measured out of core over its own 60 levels, is kept as it would be in
    // memory.
    c.level_done(59, 1000, at(200.0));
    let factor = 1.0 + 0.6 * 60.0 / LEVELS_PER_DOUBLING;
    c.tier_finished(2000, Duration::from_secs_f64(pass + 1.5 * factor * pass));
    assert!((c.pass_share - 0.4).abs() < 1e-6, "{}", c.pass_share);
    assert_eq!(c.levels, Some(60));
    assert_eq!(c.eta(c.tier_start), Duration::ZERO);
}

#[test]
fn a_tier_out_of_core_is_taken_as_estimated_not_scaled_again() {
    // The estimates count the cells a tier's attractor changes on disk already (the dry
    // run's out-of-core term): the clock takes them as they are until the run has said
    // otherwise. Two tiers of 200 and 2,000 positions estimated at 10 s and 150 s, the
    // second holding 40% of its cells.
    let estimates = [Duration::from_secs(10), Duration::from_secs(150)];
    let c = RunClock::with_estimates(&[200, 2000], &[1.0, 0.4], &estimates);
    let eta = c.eta(c.tier_start).as_secs_f64();
    assert!((eta - 160.0).abs() < 1e-6, "{eta}");
    // The first tier took twice its estimate: so should the second.
    let mut c = c;
    c.tier_finished(200, Duration::from_secs(20));
    let eta = c.eta(c.tier_start).as_secs_f64();
    assert!((eta - 300.0).abs() < 1e-6, "{eta}");
}

#[test]
fn a_run_resumed_in_its_attractor_takes_the_attractor_pace() {
    // Two tiers of 2,000 and 4,000 positions (1,000 and 2,000 stored), 60 s estimated;
    // resumed in the first tier's attractor, its pass never seen by this process.
    let mut c = RunClock::new(&[2000, 4000], Duration::from_secs(60));
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    c.phase_started("attractor", 0, 0, t);
    // Until a tenth of what its first level here left is decided, the estimate (20 s for
    // the tier, 40 for the next).
    c.level_done(3, 50, at(20.0));
    let early = c.eta(at(5.0)).as_secs_f64();
    let (current, rest) = c.estimates();
    assert!((early - c.eta_by_estimate(at(5.0), current, rest)).abs() < 1e-9);
    // 200 more of the 950 in 80 s: 300 s left, then the finish (a tenth of the estimated
    // pass, half of the tier's 20 s) and the next tier's 40 s.
    c.level_done(9, 250, at(100.0));
    let eta = c.eta(at(100.0)).as_secs_f64();
    let expected = 300.0 + FINISH_SHARE * 20.0 * PASS_SHARE + 40.0;
    assert!((eta - expected).abs() < 1e-6, "{eta} {expected}");
    assert!(eta > c.eta_by_estimate(at(100.0), current, rest));
}

#[test]
fn a_resumed_attractor_is_timed_on_what_it_had_left() {
    // Regression: a run resumed with most of its tier decided counted decided positions
    // from the resume, so its pace was taken as that of the whole tier (the line's ETA
    // several times too long) and the whole-run line did not move through the tier.
    let mut c = RunClock::new(&[2000, 4000], Duration::from_secs(60));
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    // 800 of the tier's 1,000 stored positions were decided before the resume.
    c.phase_started("attractor", 0, 800, t);
    // Until a tenth of the 190 left after its first level here is decided, the estimate.
    c.level_done(60, 810, at(5.0));
    let early = c.eta(at(5.0)).as_secs_f64();
    let (current, rest) = c.estimates();
    assert!((early - c.eta_by_estimate(at(5.0), current, rest)).abs() < 1e-9);
    // 90 of the 190 in 45 s: 50 s left, then the finish and the next tier's 40 s.
    c.level_done(70, 900, at(50.0));
    let eta = c.eta(at(50.0)).as_secs_f64();
    let expected = 50.0 + FINISH_SHARE * 20.0 * PASS_SHARE + 40.0;
    assert!((eta - expected).abs() < 1e-6, "{eta} {expected}");
    // The line counts the tier's decided positions (both sides to move): 1,800 of
    // 6,000; its rate only those decided here, 200 in 50 s.
    let line = c.line(0, 6000, at(50.0));
    assert!(
        line.contains("1.8 k / 6.0 k positions (30%), 4/s"),
        "{line}"
    );
    // Once the tier is finished, its positions count once.
    c.tier_finished(2000, Duration::from_secs(60));
    let line = c.line(2000, 6000, at(60.0));
    assert!(line.contains("2.0 k / 6.0 k positions (33%)"), "{line}");
}

#[test]
fn each_tier_keeps_its_own_estimate_not_a_share_by_positions() {
    // Regression: the run's estimate was spread over its tiers by positions, so the
    // ratio a small tier set (its positions quicker than the run's average) was taken
    // for the larger, slower ones: Bawo `n = 4` 20 seeds' line said a quarter too little
    // as its 18-seed tier began. Two tiers of 100 and 900 positions estimated at 10 s and
    // 190 s (by positions, 20 s and 180 s).
    let estimates = [Duration::from_secs(10), Duration::from_secs(190)];
    let mut c = RunClock::with_estimates(&[100, 900], &[], &estimates);
    assert!((c.eta(c.tier_start).as_secs_f64() - 200.0).abs() < 1e-6);
    // The first tier takes its own estimate: the second is expected to take its own too
    // (spread by positions, the first would have set a ratio of a half: 90 s).
    c.tier_finished(100, Duration::from_secs(10));
    let eta = c.eta(c.tier_start).as_secs_f64();
    assert!((eta - 190.0).abs() < 1e-6, "{eta}");
    // Twice its own estimate: the second tier's doubles.
    let mut c = RunClock::with_estimates(&[100, 900], &[], &estimates);
    c.tier_finished(100, Duration::from_secs(20));
    let eta = c.eta(c.tier_start).as_secs_f64();
    assert!((eta - 380.0).abs() < 1e-6, "{eta}");
}

#[test]
fn a_pass_is_taken_to_slow_down_as_the_latest_whole_one_did() {
    // Regression: a pass's pace was taken as even, but a pass slows down as it goes, the
    // same way from tier to tier; half-way through Bawo `n = 4` 20 seeds' 18-seed pass, the
    // line said a quarter too little for the whole run. Two tiers, 100 s estimated.
    let mut c = RunClock::new(&[1000, 1000], Duration::from_secs(100));
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    // The first tier's pass: half of it in 4 s, the other half in 6.
    c.phase_started("successors", 100, 0, t);
    c.pass_progress(1, 100, t);
    c.pass_progress(50, 100, at(4.0));
    c.pass_progress(100, 100, at(10.0));
    c.phase_started("predecessors", 10, 0, at(10.0));
    c.tier_finished(1000, Duration::from_secs(20));
    assert!((c.shape.time_share(0.5) - 0.4).abs() < 1e-9);
    // The second tier's pass, half done in 4 s, is taken to need 6 more, not 4.
    let t = c.tier_start;
    let at = |s: f64| t + Duration::from_secs_f64(s);
    c.phase_started("successors", 100, 0, t);
    c.pass_progress(1, 100, t);
    c.pass_progress(50, 100, at(4.0));
    let (pass, ended) = c.pass_time(at(4.0)).expect("pace known");
    assert!(ended.is_none());
    let expected = 4.0 / (c.shape.time_share(0.5) - c.shape.time_share(0.01));
    assert!((pass - expected).abs() < 1e-9, "{pass} {expected}");
    assert!((pass - 10.0).abs() < 0.2, "{pass}");
    let left = c.pass_left(at(4.0));
    assert!((left - 6.0 * 4.0 / (4.0 - 10.0 * c.shape.time_share(0.01))).abs() < 1e-9);
    // Evenly, it would have been 4 s more.
    let even = PassShape::even();
    assert!((4.0 / (even.time_share(0.5) - even.time_share(0.01)) - 4.0 / 0.49).abs() < 1e-9);
}
