//! The user's choices for the target of a `write` or `prepare` (`--model`,
//! `--provider`, `--allow-untested`), and the report of an untested target
//! version (API 0.2.1).
//!
//! A codec asks [`choice`] where its target records a model or provider per
//! session (or in its resume command), and refuses a choice its target cannot
//! honour rather than ignoring it. The host refuses a model or provider given
//! to a codec that never asks. Compiled natively (tests), the choice is a
//! thread-local set with [`set_for_tests`].

/// What the user chose for the target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetChoice {
    /// The model the installed session should use.
    pub model: Option<String>,
    /// The provider the installed session should use.
    pub provider: Option<String>,
    /// The user accepts a target version the codec was not tested with.
    pub allow_untested: bool,
}

/// An untested target version the codec reported (natively: the last one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untested {
    pub found: Option<String>,
    pub tested: String,
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use crate::bindings::trajhost::codec::target as host;

    pub fn choice() -> TargetChoice {
        let c = host::choice();
        TargetChoice { model: c.model, provider: c.provider, allow_untested: c.allow_untested }
    }

    pub fn untested(found: Option<&str>, tested: &str) {
        host::untested(found, tested);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;
    use std::cell::RefCell;

    thread_local! {
        static CHOICE: RefCell<TargetChoice> = RefCell::new(TargetChoice::default());
        static UNTESTED: RefCell<Option<Untested>> = const { RefCell::new(None) };
    }

    pub fn choice() -> TargetChoice {
        CHOICE.with(|c| c.borrow().clone())
    }

    pub fn untested(found: Option<&str>, tested: &str) {
        UNTESTED.with(|u| *u.borrow_mut() = Some(Untested { found: found.map(str::to_string), tested: tested.into() }));
    }

    pub fn set_for_tests(choice: TargetChoice) {
        CHOICE.with(|c| *c.borrow_mut() = choice);
        UNTESTED.with(|u| *u.borrow_mut() = None);
    }

    pub fn reported_untested() -> Option<Untested> {
        UNTESTED.with(|u| u.borrow().clone())
    }
}

/// The user's choices for the current `write` or `prepare`.
pub fn choice() -> TargetChoice {
    imp::choice()
}

/// Reports that the target runs `found` (if known), not the `tested` version,
/// and that the user allowed it ([`TargetChoice::allow_untested`]): the host
/// marks the result as not verified.
pub fn untested(found: Option<&str>, tested: &str) {
    imp::untested(found, tested)
}

/// Natively: sets this thread's choice (and clears a reported untested version).
#[cfg(not(target_arch = "wasm32"))]
pub fn set_for_tests(choice: TargetChoice) {
    imp::set_for_tests(choice)
}

/// Natively: the untested version [`untested`] last reported on this thread.
#[cfg(not(target_arch = "wasm32"))]
pub fn reported_untested() -> Option<Untested> {
    imp::reported_untested()
}
