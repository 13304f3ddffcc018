//! Hand-written declarations of the C API in include/memplan/memplan.h (no bindgen).
//! Keep in step with that header: the enums are C ints, the handles opaque.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int};

#[repr(C)]
pub struct memplan_problem {
    _private: [u8; 0],
}
#[repr(C)]
pub struct memplan_options {
    _private: [u8; 0],
}
#[repr(C)]
pub struct memplan_result {
    _private: [u8; 0],
}

pub type memplan_error = c_int;
pub const MEMPLAN_OK: memplan_error = 0;
pub const MEMPLAN_ERROR_NULL_ARGUMENT: memplan_error = 1;
pub const MEMPLAN_ERROR_INVALID_ARGUMENT: memplan_error = 2;
pub const MEMPLAN_ERROR_UNKNOWN_ALGORITHM: memplan_error = 3;
pub const MEMPLAN_ERROR_OUT_OF_RANGE: memplan_error = 4;
pub const MEMPLAN_ERROR_NO_PLAN: memplan_error = 5;
pub const MEMPLAN_ERROR_INVALID_PLAN: memplan_error = 6;
pub const MEMPLAN_ERROR_OUT_OF_MEMORY: memplan_error = 7;
pub const MEMPLAN_ERROR_INTERNAL: memplan_error = 8;

pub type memplan_status = c_int;
pub const MEMPLAN_STATUS_FEASIBLE: memplan_status = 0;
pub const MEMPLAN_STATUS_OPTIMAL: memplan_status = 1;
pub const MEMPLAN_STATUS_INFEASIBLE: memplan_status = 2;
pub const MEMPLAN_STATUS_NO_PLAN: memplan_status = 3;
#[allow(dead_code)]
pub const MEMPLAN_STATUS_INVALID: memplan_status = 4;

pub const MEMPLAN_NO_CAPACITY: i64 = -1;

extern "C" {
    pub fn memplan_version() -> *const c_char;
    pub fn memplan_last_error() -> *const c_char;
    pub fn memplan_error_string(code: memplan_error) -> *const c_char;

    pub fn memplan_problem_create(out: *mut *mut memplan_problem) -> memplan_error;
    pub fn memplan_problem_destroy(problem: *mut memplan_problem);
    pub fn memplan_problem_add_buffer(problem: *mut memplan_problem, id: *const c_char, start: i64,
                                      end: i64, size: i64, alignment: i64,
                                      out_index: *mut usize) -> memplan_error;
    pub fn memplan_problem_set_fixed_offset(problem: *mut memplan_problem, index: usize,
                                            offset: i64) -> memplan_error;
    pub fn memplan_problem_set_capacity(problem: *mut memplan_problem, capacity: i64) -> memplan_error;
    pub fn memplan_problem_buffer_count(problem: *const memplan_problem,
                                        out_count: *mut usize) -> memplan_error;
    pub fn memplan_problem_load(problem: *const memplan_problem, out_load: *mut i64) -> memplan_error;

    pub fn memplan_options_create(out: *mut *mut memplan_options) -> memplan_error;
    pub fn memplan_options_destroy(options: *mut memplan_options);
    pub fn memplan_options_set_algorithm(options: *mut memplan_options,
                                         name: *const c_char) -> memplan_error;
    pub fn memplan_options_set_time_limit(options: *mut memplan_options, seconds: f64) -> memplan_error;
    pub fn memplan_options_set_seed(options: *mut memplan_options, seed: u64) -> memplan_error;
    pub fn memplan_options_set_threads(options: *mut memplan_options, threads: c_int) -> memplan_error;
    pub fn memplan_options_set_capacity(options: *mut memplan_options, capacity: i64) -> memplan_error;

    pub fn memplan_solve(problem: *const memplan_problem, options: *const memplan_options,
                         out: *mut *mut memplan_result) -> memplan_error;
    pub fn memplan_result_destroy(result: *mut memplan_result);
    pub fn memplan_result_status(result: *const memplan_result,
                                 out_status: *mut memplan_status) -> memplan_error;
    pub fn memplan_result_has_plan(result: *const memplan_result, out_has_plan: *mut c_int) -> memplan_error;
    pub fn memplan_result_peak(result: *const memplan_result, out_peak: *mut i64) -> memplan_error;
    pub fn memplan_result_lower_bound(result: *const memplan_result,
                                      out_lower_bound: *mut i64) -> memplan_error;
    pub fn memplan_result_load(result: *const memplan_result, out_load: *mut i64) -> memplan_error;
    pub fn memplan_result_offsets(result: *const memplan_result, out: *mut i64,
                                  count: usize) -> memplan_error;
    pub fn memplan_result_offset(result: *const memplan_result, index: usize,
                                 out_offset: *mut i64) -> memplan_error;

    pub fn memplan_validate(problem: *const memplan_problem, offsets: *const i64, count: usize,
                            out_peak: *mut i64) -> memplan_error;
}
