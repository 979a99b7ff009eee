//! trajhost codec for mini-swe-agent (`mini`, the PyPI package `mini-swe-agent`
//! 2.x): reads the trajectory document a run leaves,
//! `~/.config/mini-swe-agent/last_mini_run.traj.json` (overwritten by every
//! run; the folder is `MSWEA_GLOBAL_CONFIG_DIR` when set), and the
//! `*.traj.json` files `mini -o FILE` writes there, into canonical records.
//!
//! The document (`trajectory_format: "mini-swe-agent-1.1"`):
//! `{info, messages, trajectory_format}`. `info` holds the run's config
//! (model, agent templates, environment), `model_stats` (cost, calls),
//! `mini_version`, `exit_status` and `submission`; `messages` are
//! OpenAI-style chat messages with an `extra` member each (`system`,
//! `user`, `assistant` with `tool_calls` to its one tool `bash`, `tool`
//! with the command's `returncode` and `output`), and a last `exit` message.
//!
//! mini records no session id: a trajectory is named by its file name
//! (`last_mini_run` for the default file). mini has no resume, so this codec
//! only reads (`writes` is empty).
//!
//! Module map: [`document`] (the document and its messages, kept raw with
//! their byte spans), [`discover`] (`discover`, `inspect`), [`sniff`] (a
//! loose trajectory file), [`read`] (messages → canonical records,
//! [`KNOWN_ROLES`]).

pub mod discover;
pub mod document;
pub mod read;
pub mod sniff;

pub use trajhost_codec_sdk::known::Handling;

/// The format read.
pub const READS: &str = "mini-swe-agent-1.1";
/// Where mini keeps its global config and the trajectory of the last run.
pub const STORE: &str = ".config/mini-swe-agent";
/// The file name ending of a trajectory.
pub const TRAJ_SUFFIX: &str = ".traj.json";

/// Every message `role` of a trajectory.
pub const KNOWN_ROLES: &[(&str, Handling)] = &[
    ("system", Handling::Mapped("system")),
    ("user", Handling::Mapped("user")),
    ("assistant", Handling::Mapped("assistant (model, usage, cost from extra.response), tool_call per tool_calls")),
    ("tool", Handling::Mapped("tool_result (ok from extra.returncode)")),
    ("exit", Handling::Mapped("observation exit/<exit_status>, text the submission")),
];

/// How `role` is handled; `None` for a role never seen.
pub fn handling(role: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_ROLES, role)
}

trajhost_codec_sdk::codec_identity! {
    /// The mini-swe-agent codec (read only).
    codec: MiniSweAgent,
    harness: "mini-swe-agent",
    /// mini-swe-agent releases whose trajectories this codec reads: 2.x, the
    /// tool-calling agent (`trajectory_format` `mini-swe-agent-1.1`).
    native_versions: ">=2.0.0, <3.0.0",
    version_shows: "`info.mini_version` of the trajectory document",
    formats: reads([READS]),
    globs: [format!("{STORE}/*{TRAJ_SUFFIX}")],
    reader: read::Reader,
    methods: { discover, inspect, read = read::open, sniff },
}
