/// What an archive may hold. The defaults suit a CLI opening one person's
/// session history: larger than any real store, far smaller than a bomb.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Bytes written in all (8 GiB).
    pub max_total_bytes: u64,
    /// Bytes written per byte of archive read, once past `ratio_floor` (200).
    pub max_ratio: u64,
    /// Output below which the ratio is not checked (64 MiB): a small archive
    /// of repetitive logs compresses well and is harmless.
    pub ratio_floor: u64,
    /// Members (files, directories, links) in all (200,000).
    pub max_entries: u64,
    /// Bytes in one member's name (1,024).
    pub max_path_bytes: usize,
    /// Components in one member's name (64).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_total_bytes: 8 << 30,
            max_ratio: 200,
            ratio_floor: 64 << 20,
            max_entries: 200_000,
            max_path_bytes: 1024,
            max_depth: 64,
        }
    }
}
