//! The system prompt: who the agent is, how it should work, and where it runs.

use strata_services::instance::InstanceInfo;

/// The system prompt for a run in `info`'s project.
pub fn system_prompt(info: &InstanceInfo, model_id: &str, date: &str) -> String {
    let vcs = info.vcs.unwrap_or("none");
    format!(
        "You are Strata, a coding agent working in the user's project through the tools you \
are given. Work out what the user wants, look at the code before changing it, make the change \
with the tools, and check your work where you can. Prefer small, precise edits. When you are \
done, answer briefly: say what you did and anything the user must know. Do not invent file \
contents or tool results; read them.

Environment:
- Project directory: {dir}
- Worktree: {worktree}
- Version control: {vcs}
- Platform: {os}
- Today: {date}
- Model: {model_id}",
        dir = info.directory.display(),
        worktree = info.worktree.display(),
        os = std::env::consts::OS,
    )
}

/// Today's date (UTC) as `YYYY-MM-DD`, from milliseconds since the epoch.
pub fn utc_date(ms: i64) -> String {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let days = ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(951_782_400_000), "2000-02-29");
        assert_eq!(utc_date(1_767_225_600_000), "2026-01-01");
    }
}
