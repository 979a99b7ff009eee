//! The archive reader against archives built here: ordinary ones of each
//! format, and the hostile suite (every case must end in a clear error or a
//! safe result, with nothing written outside the private dir).

mod build;
mod hostile;
mod ordinary;
mod regressions;
