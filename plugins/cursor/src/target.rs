//! The user's target choices (`--model`, `--provider`, `--allow-untested`),
//! through the SDK's `target` API when this codec's SDK has it; until then a
//! local stand-in with the same shape (no choices; natively settable).

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetChoice {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub allow_untested: bool,
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    static CHOICE: std::cell::RefCell<TargetChoice> = std::cell::RefCell::new(TargetChoice::default());
    static UNTESTED: std::cell::RefCell<Option<(Option<String>, String)>> = const { std::cell::RefCell::new(None) };
}

/// The user's choices for the current `write` or `prepare`.
pub fn choice() -> TargetChoice {
    #[cfg(not(target_arch = "wasm32"))]
    {
        CHOICE.with(|c| c.borrow().clone())
    }
    #[cfg(target_arch = "wasm32")]
    {
        TargetChoice::default()
    }
}

/// Reports an untested target version the user allowed.
pub fn untested(found: Option<&str>, tested: &str) {
    #[cfg(not(target_arch = "wasm32"))]
    UNTESTED.with(|u| *u.borrow_mut() = Some((found.map(str::to_string), tested.to_string())));
    #[cfg(target_arch = "wasm32")]
    let _ = (found, tested);
}

#[cfg(not(target_arch = "wasm32"))]
pub fn set_for_tests(choice: TargetChoice) {
    CHOICE.with(|c| *c.borrow_mut() = choice);
    UNTESTED.with(|u| *u.borrow_mut() = None);
}

#[cfg(not(target_arch = "wasm32"))]
pub fn reported_untested() -> Option<(Option<String>, String)> {
    UNTESTED.with(|u| u.borrow().clone())
}
