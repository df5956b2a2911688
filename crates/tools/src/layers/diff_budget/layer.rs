use strata_services::diff_budget::DiffBudget;
use strata_services::fs::FsUtil;
use tower_layer::Layer;

use super::service::DiffBudgetCheck;

/// Watches a tool's calls when the budget is on and the tool changes files; otherwise the
/// layer passes calls straight through.
#[derive(Debug, Clone, Default)]
pub struct DiffBudgetLayer {
    watch: Option<(DiffBudget, FsUtil)>,
}

impl DiffBudgetLayer {
    /// `permission` is the tool's permission key: only `edit` tools are watched.
    pub fn new(budget: DiffBudget, fs: FsUtil, permission: &str) -> Self {
        let on = budget.limits().is_some() && permission == "edit";
        Self {
            watch: on.then_some((budget, fs)),
        }
    }

    /// A layer that watches nothing (run-time tools, which change no project files).
    pub fn off() -> Self {
        Self::default()
    }
}

impl<S> Layer<S> for DiffBudgetLayer {
    type Service = DiffBudgetCheck<S>;

    fn layer(&self, inner: S) -> DiffBudgetCheck<S> {
        DiffBudgetCheck::new(inner, self.watch.clone())
    }
}
