//! Sizing a run before and while it runs: the memory budget and plan, the disk model and
//! the free-disk check, the bytes a run writes and holds, and the time sample.

pub mod budget;
pub mod disk;
pub mod mem_arg;
pub mod sample;
pub mod shape;
pub mod space;
pub mod window;
