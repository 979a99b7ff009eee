//! The target capability (API 0.2.1 and later): the user's choices for the session
//! being written or installed, and the codec's report of an untested target
//! version. The host sets the choice around `write` and `prepare` and notes
//! whether the codec asked, so a choice is never silently ignored.

use crate::PluginState;
use crate::wit::latest::target as wit;

/// What the user chose for the target (`--model`, `--provider`, `--allow-untested`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetChoice {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub allow_untested: bool,
}

impl TargetChoice {
    /// Whether the user chose a model or a provider, which the codec must
    /// either apply or refuse.
    pub fn names_something(&self) -> bool {
        self.model.is_some() || self.provider.is_some()
    }
}

/// A target version the codec was not tested with, installed anyway.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Untested {
    /// The version the target runs, when the codec could tell.
    pub found: Option<String>,
    /// The version the codec was tested with.
    pub tested: String,
}

/// The target state of one instance.
#[derive(Debug, Default)]
pub struct TargetState {
    pub choice: TargetChoice,
    /// The codec called `choice` since the choice was set.
    pub asked: bool,
    pub untested: Option<Untested>,
}

impl wit::Host for PluginState {
    fn choice(&mut self) -> wasmtime::Result<wit::TargetChoice> {
        self.target.asked = true;
        let c = &self.target.choice;
        Ok(wit::TargetChoice { model: c.model.clone(), provider: c.provider.clone(), allow_untested: c.allow_untested })
    }

    fn untested(&mut self, found: Option<String>, tested: String) -> wasmtime::Result<()> {
        let clean = |s: String| crate::log::sanitize(&s).chars().take(200).collect::<String>();
        self.target.untested = Some(Untested { found: found.map(clean), tested: clean(tested) });
        Ok(())
    }
}
