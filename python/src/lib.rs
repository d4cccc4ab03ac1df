//! `bawo._native`: the PyO3 glue over `engine`, the one module that uses the bawo library.
//! The `bawo` Python package (`bawo/__init__.py`) wraps these classes in its public API.
//!
//! Long calls (a cold probe, a bulk probe, stats, verify, waiting for a tier's next chunk)
//! release the GIL; bulk work runs on rayon's pool.

mod engine;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use engine::{Engine, Fail, PositionText, Sides};

create_exception!(
    _native,
    BawoError,
    PyException,
    "Base class of the errors bawo raises (besides ValueError for malformed input)."
);
create_exception!(
    _native,
    NotCovered,
    BawoError,
    "A well-formed position (or a tier) that the database does not hold."
);
create_exception!(
    _native,
    DatabaseError,
    BawoError,
    "A database whose files are missing, damaged or made for another game; a closed database."
);

fn err(f: Fail) -> PyErr {
    match f {
        Fail::Input(m) => PyValueError::new_err(m),
        Fail::NotCovered(m) => NotCovered::new_err(m),
        Fail::Database(m) => DatabaseError::new_err(m),
    }
}

/// Board text from a string (as the command line takes it) or a sequence of counts.
fn board_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    let mut out = String::new();
    for (k, item) in obj.try_iter()?.enumerate() {
        let item = item?;
        if k > 0 {
            out.push(',');
        }
        match item.extract::<i64>() {
            Ok(v) => {
                let _ = write!(out, "{v}");
            }
            // Whatever it is, the board parser words the refusal.
            Err(_) => out.push_str(&item.str()?.to_cow()?),
        }
    }
    Ok(out)
}

/// Text of an optional argument given as a string or a sequence (joined by commas; an empty
/// sequence reads as `empty`).
fn list_text(obj: Option<&Bound<'_, PyAny>>, empty: &str) -> PyResult<Option<String>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(s.to_cow()?.into_owned()));
    }
    let words = obj
        .try_iter()?
        .map(|item| Ok(item?.str()?.to_cow()?.into_owned()))
        .collect::<PyResult<Vec<String>>>()?;
    Ok(Some(if words.is_empty() {
        empty.to_string()
    } else {
        words.join(",")
    }))
}

fn position_text(
    board: &Bound<'_, PyAny>,
    to_move: &Bound<'_, PyAny>,
    hands: Option<&Bound<'_, PyAny>>,
    houses: Option<&Bound<'_, PyAny>>,
) -> PyResult<PositionText> {
    Ok(PositionText {
        board: board_text(board)?,
        to_move: to_move.str()?.to_cow()?.into_owned(),
        hands: list_text(hands, "0,0")?,
        houses: list_text(houses, "none")?,
    })
}

/// Value codes and depths of a bulk probe.
type Coded<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i16>>);

/// An opened database (see `bawo.Database`).
#[pyclass(frozen, module = "bawo._native")]
struct Db {
    engine: Mutex<Option<Arc<Engine>>>,
    path: String,
}

impl Db {
    fn engine(&self) -> PyResult<Arc<Engine>> {
        self.engine
            .lock()
            .ok()
            .and_then(|e| e.clone())
            .ok_or_else(|| {
                DatabaseError::new_err(format!("the database at {} is closed", self.path))
            })
    }
}

#[pymethods]
impl Db {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let shown = path.display().to_string();
        let e = py.detach(|| Engine::open(&path)).map_err(err)?;
        Ok(Db {
            engine: Mutex::new(Some(Arc::new(e))),
            path: shown,
        })
    }

    #[getter]
    fn path(&self) -> String {
        self.path.clone()
    }

    #[getter]
    fn closed(&self) -> bool {
        self.engine.lock().map_or(true, |e| e.is_none())
    }

    /// Drops the mapped pages and the tables; later calls raise DatabaseError. A tier scan
    /// still running keeps its tier's file until it ends.
    fn close(&self) {
        if let Ok(mut e) = self.engine.lock() {
            if let Some(e) = e.take() {
                e.release();
            }
        }
    }

    /// Drops the mapped pages of the tier files read so far (read back when needed).
    fn release(&self) -> PyResult<()> {
        self.engine()?.release();
        Ok(())
    }

    #[getter]
    fn name(&self) -> PyResult<&'static str> {
        Ok(self.engine()?.name())
    }

    #[getter]
    fn descriptor(&self) -> PyResult<String> {
        Ok(self.engine()?.descriptor())
    }

    /// (parameters, rule options), each a list of (key, value) in descriptor order.
    #[allow(clippy::type_complexity)]
    fn params_and_rules(&self) -> PyResult<(Vec<(String, String)>, Vec<(String, String)>)> {
        Ok(self.engine()?.params_and_rules())
    }

    #[getter]
    fn pits(&self) -> PyResult<usize> {
        Ok(self.engine()?.pits())
    }

    #[getter]
    fn seeds(&self) -> PyResult<u32> {
        Ok(self.engine()?.seeds())
    }

    #[getter]
    fn complete(&self) -> PyResult<bool> {
        Ok(self.engine()?.complete())
    }

    #[getter]
    fn unfinished_note(&self) -> PyResult<Option<String>> {
        Ok(self.engine()?.unfinished_note())
    }

    /// Per tier, the counts `stats --json` gives (without the depth histograms).
    fn tiers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for t in self.engine()?.tiers() {
            let d = PyDict::new(py);
            let c = &t.counts;
            d.set_item("tier", t.tier)?;
            d.set_item("seeds", c.seeds)?;
            d.set_item("states", c.states)?;
            d.set_item("win", c.win)?;
            d.set_item("loss", c.loss)?;
            d.set_item("draw", c.draw)?;
            d.set_item("max_depth", c.max_depth)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// (value, depth) of one position.
    #[pyo3(signature = (board, to_move, hands=None, houses=None))]
    fn probe(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        to_move: &Bound<'_, PyAny>,
        hands: Option<&Bound<'_, PyAny>>,
        houses: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(&'static str, Option<u32>)> {
        let p = position_text(board, to_move, hands, houses)?;
        let e = self.engine()?;
        let o = py.detach(|| e.probe(p)).map_err(err)?;
        Ok((o.value, o.depth))
    }

    /// (value, depth, [(label, value, depth), ...]) of one position, moves best first.
    #[pyo3(signature = (board, to_move, hands=None, houses=None))]
    #[allow(clippy::type_complexity)]
    fn query(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        to_move: &Bound<'_, PyAny>,
        hands: Option<&Bound<'_, PyAny>>,
        houses: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(
        &'static str,
        Option<u32>,
        Vec<(String, &'static str, Option<u32>)>,
    )> {
        let p = position_text(board, to_move, hands, houses)?;
        let e = self.engine()?;
        let q = py.detach(|| e.query(p)).map_err(err)?;
        let moves = q
            .moves
            .into_iter()
            .map(|m| (m.label, m.outcome.value, m.outcome.depth))
            .collect();
        Ok((q.outcome.value, q.outcome.depth, moves))
    }

    /// (values, depths) of the rows of `boards` (C-contiguous uint8, one position a row);
    /// `to_move` is 0 (A) or 1 (B), or a uint8 array with one side a row.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        boards: PyReadonlyArray2<'py, u8>,
        to_move: &Bound<'py, PyAny>,
    ) -> PyResult<Coded<'py>> {
        let cols = boards.shape()[1];
        let flat = boards.as_slice()?;
        let one: Option<u8> = to_move.extract().ok();
        let each: Option<PyReadonlyArray1<'py, u8>> = match one {
            Some(_) => None,
            None => Some(to_move.extract()?),
        };
        let sides = match (&each, one) {
            (Some(a), _) => Sides::Each(a.as_slice()?),
            (None, s) => Sides::All(s.unwrap_or(0)),
        };
        let e = self.engine()?;
        let (values, depths) = py.detach(|| e.probe_many(flat, cols, sides)).map_err(err)?;
        Ok((
            PyArray1::from_vec(py, values),
            PyArray1::from_vec(py, depths),
        ))
    }

    /// Entries stored for tier `tier` (positions with A to move); raises NotCovered for a
    /// tier the database does not hold, DatabaseError for a missing or damaged file.
    fn tier_entries(&self, tier: u32) -> PyResult<u64> {
        self.engine()?.tier_entries(tier).map_err(err)
    }

    /// Starts reading tier `tier` in chunks of at most `chunk_rows` rows.
    fn scan(&self, tier: u32, chunk_rows: usize, both_sides: bool) -> PyResult<TierReader> {
        let s = self
            .engine()?
            .scan(tier, chunk_rows, both_sides)
            .map_err(err)?;
        Ok(TierReader { scan: s })
    }

    /// `bawo stats --json`, as JSON text.
    fn stats_json(&self, py: Python<'_>) -> PyResult<String> {
        let e = self.engine()?;
        py.detach(|| e.stats_json()).map_err(err)
    }

    /// `bawo verify --json`, as JSON text.
    #[pyo3(signature = (sample=None, seed=1, partial=false))]
    fn verify_json(
        &self,
        py: Python<'_>,
        sample: Option<u64>,
        seed: u64,
        partial: bool,
    ) -> PyResult<String> {
        let e = self.engine()?;
        py.detach(|| e.verify_json(sample, seed, partial))
            .map_err(err)
    }
}

/// A tier being read by a thread of its own; iterating gives tuples
/// (index, boards, to_move, value, depth) of numpy arrays.
#[pyclass(frozen, module = "bawo._native")]
struct TierReader {
    scan: engine::Scan,
}

#[pymethods]
impl TierReader {
    /// Rows the whole tier gives.
    #[getter]
    fn rows(&self) -> u64 {
        self.scan.rows()
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(next) = py.detach(|| self.scan.next()) else {
            return Ok(None);
        };
        let c = next.map_err(err)?;
        let boards = PyArray1::from_vec(py, c.boards).reshape([c.rows, c.pits])?;
        let t = PyTuple::new(
            py,
            [
                PyArray1::from_vec(py, c.index).into_any(),
                boards.into_any(),
                PyArray1::from_vec(py, c.to_move).into_any(),
                PyArray1::from_vec(py, c.value).into_any(),
                PyArray1::from_vec(py, c.depth).into_any(),
            ],
        )?;
        Ok(Some(t))
    }
}

/// `bawo verify --db PATH --json`, as JSON text.
#[pyfunction]
#[pyo3(signature = (path, sample=None, seed=1, partial=false))]
fn verify_json(
    py: Python<'_>,
    path: PathBuf,
    sample: Option<u64>,
    seed: u64,
    partial: bool,
) -> PyResult<String> {
    py.detach(|| engine::verify_dir(&path, sample, seed, partial))
        .map_err(err)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Db>()?;
    m.add_class::<TierReader>()?;
    m.add_function(wrap_pyfunction!(verify_json, m)?)?;
    m.add("BawoError", py.get_type::<BawoError>())?;
    m.add("NotCovered", py.get_type::<NotCovered>())?;
    m.add("DatabaseError", py.get_type::<DatabaseError>())?;
    m.add("LOSS", engine::LOSS)?;
    m.add("DRAW", engine::DRAW)?;
    m.add("WIN", engine::WIN)?;
    Ok(())
}
