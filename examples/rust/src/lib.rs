//! A small safe wrapper over memplan's C API: owned handles freed on drop, errors as
//! `Result<_, Error>` carrying the library's code and message, results copied into Rust values.
pub mod ffi;

use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int};
use std::ptr::{self, NonNull};

/// A failed call: the C API's error code and its message (naming the buffer and field at fault).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ffi::memplan_error,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {}: {})", self.message, self.code, text(unsafe { ffi::memplan_error_string(self.code) }))
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

fn text(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

/// Turns a return code into a Result; on failure reads this thread's error message.
fn check(code: ffi::memplan_error) -> Result<()> {
    if code == ffi::MEMPLAN_OK {
        Ok(())
    } else {
        Err(Error { code, message: text(unsafe { ffi::memplan_last_error() }) })
    }
}

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error {
        code: ffi::MEMPLAN_ERROR_INVALID_ARGUMENT,
        message: format!("{} '{}' contains a NUL byte", what, s.replace('\0', "\\0")),
    })
}

/// The library's version ("MAJOR.MINOR.PATCH").
pub fn version() -> String {
    text(unsafe { ffi::memplan_version() })
}

/// Buffers with lifetimes [start, end) and sizes, and an optional capacity.
pub struct Problem {
    raw: NonNull<ffi::memplan_problem>,
}

// The C API allows a handle to move between threads and to be read (solve, load, validate)
// from several threads at once; every mutation here takes &mut self.
unsafe impl Send for Problem {}
unsafe impl Sync for Problem {}

impl Problem {
    pub fn new() -> Result<Problem> {
        let mut raw = ptr::null_mut();
        check(unsafe { ffi::memplan_problem_create(&mut raw) })?;
        Ok(Problem { raw: NonNull::new(raw).expect("memplan_problem_create returned NULL") })
    }

    /// Adds a buffer live during [start, end) and returns its index (its place in `offsets`).
    pub fn add_buffer(&mut self, id: &str, start: i64, end: i64, size: i64, alignment: i64) -> Result<usize> {
        let id = c_string("buffer id", id)?;
        let mut index = 0usize;
        check(unsafe {
            ffi::memplan_problem_add_buffer(self.raw.as_ptr(), id.as_ptr(), start, end, size, alignment, &mut index)
        })?;
        Ok(index)
    }

    /// Pre-places buffer `index` at `offset`.
    pub fn set_fixed_offset(&mut self, index: usize, offset: i64) -> Result<()> {
        check(unsafe { ffi::memplan_problem_set_fixed_offset(self.raw.as_ptr(), index, offset) })
    }

    /// The peak must not exceed `capacity` (None: no limit).
    pub fn set_capacity(&mut self, capacity: Option<i64>) -> Result<()> {
        let c = capacity.unwrap_or(ffi::MEMPLAN_NO_CAPACITY);
        check(unsafe { ffi::memplan_problem_set_capacity(self.raw.as_ptr(), c) })
    }

    pub fn len(&self) -> usize {
        let mut n = 0usize;
        check(unsafe { ffi::memplan_problem_buffer_count(self.raw.as_ptr(), &mut n) }).expect("valid handle");
        n
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// LOAD: the largest total size live at one instant, a lower bound on any plan's peak.
    pub fn load(&self) -> i64 {
        let mut load = 0i64;
        check(unsafe { ffi::memplan_problem_load(self.raw.as_ptr(), &mut load) }).expect("valid handle");
        load
    }

    /// Plans the problem. Ok even when no plan fits the capacity: see `Solution::status`.
    pub fn solve(&self, options: &Options) -> Result<Solution> {
        let mut raw = ptr::null_mut();
        check(unsafe { ffi::memplan_solve(self.raw.as_ptr(), options.raw.as_ptr(), &mut raw) })?;
        let result = ResultHandle(raw);
        let mut status: ffi::memplan_status = 0;
        let (mut lower_bound, mut load, mut has_plan) = (0i64, 0i64, 0 as c_int);
        unsafe {
            check(ffi::memplan_result_status(result.0, &mut status))?;
            check(ffi::memplan_result_lower_bound(result.0, &mut lower_bound))?;
            check(ffi::memplan_result_load(result.0, &mut load))?;
            check(ffi::memplan_result_has_plan(result.0, &mut has_plan))?;
        }
        let plan = if has_plan != 0 {
            let mut offsets = vec![0i64; self.len()];
            let mut peak = 0i64;
            unsafe {
                check(ffi::memplan_result_offsets(result.0, offsets.as_mut_ptr(), offsets.len()))?;
                check(ffi::memplan_result_peak(result.0, &mut peak))?;
            }
            Some(Plan { offsets, peak })
        } else {
            None
        };
        Ok(Solution { status: Status::from_raw(status), lower_bound, load, plan })
    }

    /// Checks a plan (one offset per buffer) with the independent checker; Ok(peak) if valid.
    pub fn validate(&self, offsets: &[i64]) -> Result<i64> {
        let mut peak = 0i64;
        check(unsafe { ffi::memplan_validate(self.raw.as_ptr(), offsets.as_ptr(), offsets.len(), &mut peak) })?;
        Ok(peak)
    }
}

impl Drop for Problem {
    fn drop(&mut self) {
        unsafe { ffi::memplan_problem_destroy(self.raw.as_ptr()) }
    }
}

struct ResultHandle(*mut ffi::memplan_result);

impl Drop for ResultHandle {
    fn drop(&mut self) {
        unsafe { ffi::memplan_result_destroy(self.0) }
    }
}

/// Solver settings; the defaults are the library's ("auto", 10 s, seed 1, one thread).
pub struct Options {
    raw: NonNull<ffi::memplan_options>,
}

unsafe impl Send for Options {}
unsafe impl Sync for Options {}

impl Options {
    pub fn new() -> Result<Options> {
        let mut raw = ptr::null_mut();
        check(unsafe { ffi::memplan_options_create(&mut raw) })?;
        Ok(Options { raw: NonNull::new(raw).expect("memplan_options_create returned NULL") })
    }

    pub fn algorithm(&mut self, name: &str) -> Result<&mut Self> {
        let name = c_string("algorithm", name)?;
        check(unsafe { ffi::memplan_options_set_algorithm(self.raw.as_ptr(), name.as_ptr()) })?;
        Ok(self)
    }

    pub fn time_limit(&mut self, seconds: f64) -> Result<&mut Self> {
        check(unsafe { ffi::memplan_options_set_time_limit(self.raw.as_ptr(), seconds) })?;
        Ok(self)
    }

    pub fn seed(&mut self, seed: u64) -> Result<&mut Self> {
        check(unsafe { ffi::memplan_options_set_seed(self.raw.as_ptr(), seed) })?;
        Ok(self)
    }

    pub fn threads(&mut self, threads: i32) -> Result<&mut Self> {
        check(unsafe { ffi::memplan_options_set_threads(self.raw.as_ptr(), threads) })?;
        Ok(self)
    }

    /// Overrides the problem's capacity (None: use the problem's).
    pub fn capacity(&mut self, capacity: Option<i64>) -> Result<&mut Self> {
        let c = capacity.unwrap_or(ffi::MEMPLAN_NO_CAPACITY);
        check(unsafe { ffi::memplan_options_set_capacity(self.raw.as_ptr(), c) })?;
        Ok(self)
    }
}

impl Drop for Options {
    fn drop(&mut self) {
        unsafe { ffi::memplan_options_destroy(self.raw.as_ptr()) }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Feasible,
    Optimal,
    Infeasible,
    NoPlan,
}

impl Status {
    fn from_raw(s: ffi::memplan_status) -> Status {
        match s {
            ffi::MEMPLAN_STATUS_FEASIBLE => Status::Feasible,
            ffi::MEMPLAN_STATUS_OPTIMAL => Status::Optimal,
            ffi::MEMPLAN_STATUS_INFEASIBLE => Status::Infeasible,
            _ => Status::NoPlan,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Feasible => "feasible",
            Status::Optimal => "optimal",
            Status::Infeasible => "infeasible",
            Status::NoPlan => "no_plan",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub offsets: Vec<i64>, // offsets[i] belongs to the buffer with index i
    pub peak: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    pub status: Status,
    pub lower_bound: i64,
    pub load: i64,
    pub plan: Option<Plan>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_code_and_message() {
        let mut p = Problem::new().unwrap();
        let e = p.add_buffer("conv", 0, 1, -8, 1).unwrap_err();
        assert_eq!(e.code, ffi::MEMPLAN_ERROR_INVALID_ARGUMENT);
        assert!(e.message.contains("'conv'") && e.message.contains("size"), "{}", e);
        assert!(p.is_empty());
        let e = p.add_buffer("a\0b", 0, 1, 8, 1).unwrap_err();
        assert!(e.message.contains("NUL"), "{}", e);
        let e = Options::new().unwrap().algorithm("nope").err().unwrap();
        assert_eq!(e.code, ffi::MEMPLAN_ERROR_UNKNOWN_ALGORITHM);
    }

    #[test]
    fn solve_then_validate() {
        let mut p = Problem::new().unwrap();
        p.add_buffer("a", 0, 2, 100, 1).unwrap();
        p.add_buffer("b", 1, 3, 50, 64).unwrap();
        let mut o = Options::new().unwrap();
        o.algorithm("greedy").unwrap();
        let s = p.solve(&o).unwrap();
        let plan = s.plan.expect("a plan");
        assert_eq!(p.validate(&plan.offsets).unwrap(), plan.peak);
        assert_eq!(p.validate(&[0, 0]).unwrap_err().code, ffi::MEMPLAN_ERROR_INVALID_PLAN);
        assert_eq!(s.load, 150);
    }

    #[test]
    fn one_problem_solved_from_several_threads_gives_one_plan() {
        let mut p = Problem::new().unwrap();
        for i in 0..40i64 {
            p.add_buffer(&format!("t{}", i), i % 7, i % 7 + 1 + i % 5, 64 * (1 + i % 9), 64).unwrap();
        }
        let mut o = Options::new().unwrap();
        o.algorithm("simulated-annealing").unwrap().seed(3).unwrap().time_limit(0.0).unwrap();
        let plans: Vec<Solution> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| p.solve(&o).unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let first = plans[0].plan.clone().expect("a plan");
        assert_eq!(p.validate(&first.offsets).unwrap(), first.peak);
        for s in &plans {
            assert_eq!(s, &plans[0]);
        }
    }
}
