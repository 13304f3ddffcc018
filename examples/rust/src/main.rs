//! Plans the activations of a small network through memplan's C API and prints the offsets.
//! Output (checked by the rust_example CTest test): one `buffer` line per buffer, a `plan`
//! line, then what an over-tight capacity and a bad buffer give.
use memplan::{Options, Problem, Status};
use std::process::ExitCode;

// id, first step live, first step dead again, bytes, alignment
const BUFFERS: [(&str, i64, i64, i64, i64); 6] = [
    ("input", 0, 2, 3 * 224 * 224 * 4, 64),
    ("conv1", 1, 3, 32 * 112 * 112 * 4, 64),
    ("workspace", 1, 2, 1 << 20, 4096),
    ("relu1", 2, 4, 32 * 112 * 112 * 4, 64),
    ("pool1", 3, 5, 32 * 56 * 56 * 4, 64),
    ("logits", 4, 6, 1000 * 4, 64),
];

fn run() -> memplan::Result<bool> {
    println!("memplan_version={}", memplan::version());
    let mut problem = Problem::new()?;
    for (id, start, end, size, alignment) in BUFFERS {
        problem.add_buffer(id, start, end, size, alignment)?;
    }
    let mut options = Options::new()?;
    options.algorithm("exact")?.time_limit(5.0)?.seed(1)?.threads(1)?;
    let solution = problem.solve(&options)?;
    let plan = match &solution.plan {
        Some(plan) => plan,
        None => {
            println!("no plan: status={}", solution.status.as_str());
            return Ok(false);
        }
    };
    for (i, (id, start, end, size, alignment)) in BUFFERS.iter().enumerate() {
        println!("buffer id={} start={} end={} size={} alignment={} offset={}",
                 id, start, end, size, alignment, plan.offsets[i]);
    }
    let valid = problem.validate(&plan.offsets).map(|peak| peak == plan.peak).unwrap_or(false);
    println!("plan status={} peak={} load={} lower_bound={} valid={}", solution.status.as_str(), plan.peak,
             solution.load, solution.lower_bound, if valid { "yes" } else { "no" });

    // A capacity below LOAD: the solver proves that nothing fits.
    problem.set_capacity(Some(solution.load - 1))?;
    let tight = problem.solve(&options)?;
    println!("capacity={} status={} plan={}", solution.load - 1, tight.status.as_str(),
             if tight.plan.is_some() { "some" } else { "none" });

    // Bad input is an error naming the buffer and the field.
    match problem.add_buffer("conv2", 5, 5, 4096, 64) {
        Ok(_) => println!("bad_input accepted"),
        Err(e) => println!("bad_input code={} message={}", e.code, e.message),
    }
    Ok(valid && tight.status == Status::Infeasible)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("memplan-example: {}", e);
            ExitCode::FAILURE
        }
    }
}
