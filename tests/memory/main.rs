//! Peak-memory tests, in a test binary of their own: Linux reports a child's peak resident
//! memory as at least its parent's at the time of `exec`, so these children must be started
//! by a small process, not by the whole suite.

#[path = "../suite/common/mod.rs"]
mod common;
mod memory_cap;
