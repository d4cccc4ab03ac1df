//! What a solve is asked for, reconciled with its run directory.
//!
//! A fresh solve takes the game from the parameters given (each game supplies its own
//! defaults) and its seed budget from `--seeds` or the game's default. A resumed solve takes
//! game, parameters and rules from the run directory's manifest; whatever was given as well
//! must agree with it, and only `--seeds` may differ (to extend a finished run).

use std::path::{Path, PathBuf};

use crate::Manifest;
use bawo_games::error::{Error, InputError, Result};
use bawo_games::game::{AnyGame, GameParams};

/// A solve as requested, before it is checked against the run directory.
#[derive(Clone, Debug)]
pub struct SolveRequest {
    /// The game and its parameters as given.
    pub params: GameParams,
    /// Whether the game's name was given (not defaulted): only then may it contradict a run
    /// directory being resumed.
    pub game_given: bool,
    /// Seeds asked for (the game's default, if absent).
    pub seeds: Option<u32>,
    /// Run directory asked for (derived from the game, if absent).
    pub out: Option<PathBuf>,
    /// Continue the run in `out`: its manifest says what is solved.
    pub resume: bool,
}

/// What will be solved, and where.
#[derive(Clone, Debug)]
pub struct ResolvedSolve {
    /// The game.
    pub game: AnyGame,
    /// Seeds to solve up to.
    pub seeds: u32,
    /// The run directory.
    pub out: PathBuf,
}

impl SolveRequest {
    /// The game, seed budget and run directory this request means.
    pub fn resolve(&self) -> Result<ResolvedSolve> {
        if self.resume {
            return self.resolve_resume();
        }
        let game = AnyGame::from_params(&self.params)?;
        let seeds = self.seeds.unwrap_or_else(|| game.default_seeds());
        let out = self
            .out
            .clone()
            .unwrap_or_else(|| default_out(&game.descriptor(), seeds));
        Ok(ResolvedSolve { game, seeds, out })
    }

    fn resolve_resume(&self) -> Result<ResolvedSolve> {
        let out = self.out.clone().ok_or_else(|| {
            Error::Input(InputError::new(
                "--resume needs --out DIR (the run to continue)",
            ))
        })?;
        let m = Manifest::load(&out)?.ok_or_else(|| {
            Error::Missing(format!("nothing to resume: {} holds no run", out.display()))
        })?;
        let game = reconcile(&self.params, self.game_given, &m.game, &out)?;
        Ok(ResolvedSolve {
            game,
            seeds: self.seeds.unwrap_or(m.seeds),
            out,
        })
    }
}

/// The game of the run in `out`, whose manifest records `stored` as its descriptor, refusing
/// given parameters, rules or game name that disagree with it.
pub fn reconcile(
    given: &GameParams,
    game_given: bool,
    stored: &str,
    out: &Path,
) -> Result<AnyGame> {
    let mut p = GameParams::from_descriptor(stored)?;
    if given.game != p.game && game_given {
        return Err(Error::Mismatch(format!(
            "{} holds a run of {}, not {}",
            out.display(),
            p.game,
            given.game
        )));
    }
    for (k, v) in &given.params {
        p.set(k, v);
    }
    let differs = |held: &str, asked: &str| {
        Error::Mismatch(format!(
            "{} holds a run of '{held}', not '{asked}'",
            out.display()
        ))
    };
    if given.rules.is_some() {
        let held = AnyGame::from_params(&p)?;
        p.rules = given.rules.clone();
        let asked = AnyGame::from_params(&p)?;
        if asked.descriptor() != held.descriptor() {
            return Err(differs(&held.descriptor(), &asked.descriptor()));
        }
    }
    let game = AnyGame::from_params(&p)?;
    if game.descriptor() != stored {
        return Err(differs(stored, &game.descriptor()));
    }
    Ok(game)
}

/// The default run directory: `bawo-db/<descriptor as a file name>-s<seeds>`.
pub fn default_out(descriptor: &str, seeds: u32) -> PathBuf {
    let slug: String = descriptor
        .split_whitespace()
        .map(|w| w.replace('=', ""))
        .collect::<Vec<_>>()
        .join("-");
    PathBuf::from("bawo-db").join(format!("{slug}-s{seeds}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(game: &str) -> SolveRequest {
        SolveRequest {
            params: GameParams::named(game),
            game_given: true,
            seeds: None,
            out: None,
            resume: false,
        }
    }

    #[test]
    fn every_game_has_defaults() {
        let r = request("bawo").resolve().unwrap();
        assert_eq!(
            r.game.descriptor(),
            "bawo n=3 lap-cap=64 kichwa=off capture=any"
        );
        assert_eq!(r.seeds, 12);
        assert_eq!(
            r.out,
            Path::new("bawo-db/bawo-n3-lap-cap64-kichwaoff-captureany-s12")
        );
        assert_eq!(request("kigogo").resolve().unwrap().seeds, 5);
        assert_eq!(request("bao").resolve().unwrap().seeds, 5);
    }

    #[test]
    fn resumed_parameters_must_agree_with_the_run() {
        let stored = "bawo n=2 lap-cap=16 kichwa=off capture=any";
        let out = Path::new("run");
        let mut p = GameParams::named("bawo");
        assert_eq!(
            reconcile(&p, false, stored, out).unwrap().descriptor(),
            stored
        );
        p.set("n", 2);
        assert!(reconcile(&p, true, stored, out).is_ok());
        p.set("n", 3);
        assert!(reconcile(&p, true, stored, out).is_err());
        let mut p = GameParams::named("bawo");
        p.rules = Some("kichwa=relay".into());
        assert!(reconcile(&p, false, stored, out).is_err());
        p.rules = Some("capture=any".into());
        assert!(reconcile(&p, false, stored, out).is_ok());
        assert!(reconcile(&GameParams::named("kigogo"), true, stored, out).is_err());
        assert!(reconcile(&GameParams::named("kigogo"), false, stored, out).is_ok());
    }
}
