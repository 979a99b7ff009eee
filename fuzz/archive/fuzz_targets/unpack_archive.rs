//! Arbitrary bytes as an archive (`trajhost_unpack::testkit::check`): an
//! error or a tree wholly inside the private dir, never a panic, a link or a
//! write outside.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    trajhost_unpack::testkit::check(data);
});
