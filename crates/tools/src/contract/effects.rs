//! What a tool does to the world, as data the registry and the loop decide from. A tool
//! declares its effects once (`Tool::EFFECTS`, what the surface and plan mode read) and may
//! narrow them per call (`Tool::effects_for`, what the loop's parallelism and the snapshot layer
//! read).

/// A tool's effects (spec §0.7). The loop runs `concurrency_safe` calls in parallel; plan mode
/// hides `destructive` tools; `open_world` tools reach outside the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Effects {
    pub read_only: bool,
    pub destructive: bool,
    pub concurrency_safe: bool,
    pub open_world: bool,
}

impl Effects {
    /// Reads the project, changes nothing, safe to run beside other calls.
    pub const READ_ONLY: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: true,
        open_world: false,
    };
    /// Changes files in the project; runs alone.
    pub const WRITES: Effects = Effects {
        read_only: false,
        destructive: true,
        concurrency_safe: false,
        open_world: false,
    };
}
