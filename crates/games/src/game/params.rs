//! Game parameters as users type them, before the game they belong to reads them.
//!
//! | type           | role                                                                  |
//! |----------------|-----------------------------------------------------------------------|
//! | [`GameParams`] | a game name, its parameters as `key=value` pairs, rule options text    |
//! | [`ParamReader`]| what a game's constructor reads its own parameters through            |
//!
//! The command line and the manifest reader name no game's parameter: they collect pairs and
//! hand them to the game, which parses, validates and defaults them (see
//! [`super::AnyGame::from_params`]).

use super::input::short;
use super::InputError;

/// A game chosen by name, with its parameters and rule options as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameParams {
    /// The game's name (`bawo`, `kigogo`, `bao`).
    pub game: String,
    /// Game parameters in the order given, e.g. `[("n", "3"), ("lap-cap", "64")]`.
    pub params: Vec<(String, String)>,
    /// Rule options, `key=value,key=value`; `None` when not given.
    pub rules: Option<String>,
    /// The board the game will be asked to parse, when known: games whose size is a parameter
    /// infer it from the board's length when the parameter is not given (Bawo's `n`).
    pub board: Option<String>,
}

impl GameParams {
    /// Parameters of game `game` with nothing else given: every parameter takes its default.
    pub fn named(game: &str) -> GameParams {
        GameParams {
            game: game.to_string(),
            ..Default::default()
        }
    }

    /// Adds (or, when already given, replaces) parameter `key`.
    pub fn set(&mut self, key: &str, value: impl ToString) {
        let value = value.to_string();
        match self.params.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.params.push((key.to_string(), value)),
        }
    }

    /// The value given for parameter `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Parses `key=value` text (as `--param` takes it) into a parameter.
    pub fn add_pair(&mut self, text: &str) -> Result<(), InputError> {
        let (k, v) = text
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| {
                InputError::new(format!(
                    "--param '{}' is not key=value, e.g. n=3",
                    short(text)
                ))
            })?;
        if self.get(k).is_some() {
            return Err(InputError::new(format!(
                "parameter {} is given twice",
                short(k)
            )));
        }
        self.params.push((k.to_string(), v.to_string()));
        Ok(())
    }

    /// The parameters a [`super::Game::descriptor`] line records: the words whose key is one of
    /// the game's parameter keys are parameters, the others rule options.
    pub fn from_descriptor(line: &str) -> Result<GameParams, InputError> {
        let mut words = line.split_whitespace();
        let name = words
            .next()
            .ok_or_else(|| InputError::new("empty game descriptor"))?;
        let keys = super::AnyGame::param_keys(name)?;
        let mut p = GameParams::named(name);
        let mut rules = Vec::new();
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| InputError::new(format!("bad descriptor word '{}'", short(w))))?;
            if keys.contains(&k) {
                p.params.push((k.to_string(), v.to_string()));
            } else {
                rules.push(w.to_string());
            }
        }
        p.rules = Some(rules.join(","));
        Ok(p)
    }

    /// A reader of these parameters for game constructors.
    pub fn reader(&self) -> ParamReader<'_> {
        ParamReader {
            params: self,
            used: vec![false; self.params.len()],
        }
    }
}

/// Reads a game's parameters out of [`GameParams`], remembering which were read so that
/// [`ParamReader::finish`] can refuse the ones the game does not know.
pub struct ParamReader<'a> {
    params: &'a GameParams,
    used: Vec<bool>,
}

impl ParamReader<'_> {
    /// The rule options text (empty when none were given).
    pub fn rules(&self) -> &str {
        self.params.rules.as_deref().unwrap_or("")
    }

    /// The board the game will parse, if known.
    pub fn board(&self) -> Option<&str> {
        self.params.board.as_deref()
    }

    /// Whether parameter `key` was given.
    pub fn given(&self, key: &str) -> bool {
        self.params.get(key).is_some()
    }

    /// Parameter `key` as a number, `None` when not given.
    pub fn number<T: std::str::FromStr>(&mut self, key: &str) -> Result<Option<T>, InputError> {
        let Some(i) = self.params.params.iter().position(|(k, _)| k == key) else {
            return Ok(None);
        };
        self.used[i] = true;
        let v = &self.params.params[i].1;
        v.trim().parse().map(Some).map_err(|_| {
            InputError::new(format!("--{key} takes a whole number, not '{}'", short(v)))
        })
    }

    /// Refuses every parameter the game did not read.
    pub fn finish(self) -> Result<(), InputError> {
        match self.params.params.iter().zip(&self.used).find(|(_, &u)| !u) {
            None => Ok(()),
            Some(((k, _), _)) => Err(not_a_parameter(&self.params.game, k)),
        }
    }
}

/// The error for parameter `key` given to `game`, which does not take it.
pub fn not_a_parameter(game: &str, key: &str) -> InputError {
    let shown = short(key);
    let takers: Vec<&str> = super::AnyGame::NAMES
        .into_iter()
        .filter(|g| super::AnyGame::param_keys(g).is_ok_and(|keys| keys.contains(&key)))
        .collect();
    if !takers.is_empty() {
        return InputError::new(format!(
            "--{shown} applies to --game {} only",
            takers.join(", --game ")
        ));
    }
    let takes = match super::AnyGame::param_keys(game) {
        Ok([]) => "it takes none".to_string(),
        Ok(keys) => format!("its parameters: {}", keys.join(", ")),
        Err(e) => return e,
    };
    InputError::new(format!(
        "--{shown} is no parameter of --game {game} ({takes})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_split_into_parameters_and_rules() {
        let p = GameParams::from_descriptor("bawo n=3 lap-cap=64 kichwa=off capture=any").unwrap();
        assert_eq!(p.game, "bawo");
        assert_eq!(p.get("n"), Some("3"));
        assert_eq!(p.get("lap-cap"), Some("64"));
        assert_eq!(p.rules.as_deref(), Some("kichwa=off,capture=any"));
        assert!(GameParams::from_descriptor("").is_err());
        assert!(GameParams::from_descriptor("chess").is_err());
        assert!(GameParams::from_descriptor("bawo n3").is_err());
    }

    #[test]
    fn unread_and_malformed_parameters_are_refused() {
        let mut p = GameParams::named("kigogo");
        p.set("n", 3);
        let mut r = p.reader();
        assert!(r.number::<u32>("lap-cap").unwrap().is_none());
        assert!(r.finish().is_err());
        let mut p = GameParams::named("bawo");
        p.add_pair("n=x").unwrap();
        assert!(p.add_pair("n=4").is_err());
        assert!(p.add_pair("lap-cap").is_err());
        assert!(p.reader().number::<u32>("n").is_err());
    }
}
