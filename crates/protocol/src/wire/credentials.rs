//! The server's Basic-auth credentials as the environment gives them, read the same way by
//! `strata serve` and by every client of it (`strata attach`, `strata run --attach`).
//!
//! The password is `STRATA_SERVER_PASSWORD`, else `OPENCODE_SERVER_PASSWORD`; the username is
//! `STRATA_SERVER_USERNAME`, else `OPENCODE_SERVER_USERNAME`. An empty value counts as unset,
//! so `STRATA_SERVER_PASSWORD=` turns auth off rather than requiring an empty password. A
//! server with no username accepts any; a client with none sends [`DEFAULT_USERNAME`].

/// The username a client sends when none is set (opencode's).
pub const DEFAULT_USERNAME: &str = "opencode";

/// A password (auth is on when there is one) and an optional username.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ServerCredentials {
    pub password: Option<String>,
    pub username: Option<String>,
}

impl std::fmt::Debug for ServerCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerCredentials")
            .field("password", &self.password.as_ref().map(|_| "<set>"))
            .field("username", &self.username)
            .finish()
    }
}

impl ServerCredentials {
    /// From the environment, as `var` reads it (`|k| std::env::var(k).ok()` in production).
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Self {
        let first = |names: [&str; 2]| names.iter().find_map(|n| var(n).filter(|v| !v.is_empty()));
        Self {
            password: first(["STRATA_SERVER_PASSWORD", "OPENCODE_SERVER_PASSWORD"]),
            username: first(["STRATA_SERVER_USERNAME", "OPENCODE_SERVER_USERNAME"]),
        }
    }

    /// With `explicit` (a `--password` flag) in place of the environment's, when it is given
    /// and not empty.
    pub fn with_password(mut self, explicit: Option<String>) -> Self {
        if let Some(p) = explicit.filter(|p| !p.is_empty()) {
            self.password = Some(p);
        }
        self
    }

    /// The username a client sends.
    pub fn client_username(&self) -> &str {
        self.username.as_deref().unwrap_or(DEFAULT_USERNAME)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn unset_means_no_auth_and_the_default_user() {
        let c = ServerCredentials::from_env(env(&[]));
        assert_eq!(c, ServerCredentials::default());
        assert_eq!(c.client_username(), "opencode");
    }

    #[test]
    fn empty_counts_as_unset_and_falls_through_to_opencode_s_names() {
        let c = ServerCredentials::from_env(env(&[
            ("STRATA_SERVER_PASSWORD", ""),
            ("STRATA_SERVER_USERNAME", ""),
        ]));
        assert_eq!(c.password, None);
        assert_eq!(c.username, None);
        let c = ServerCredentials::from_env(env(&[
            ("STRATA_SERVER_PASSWORD", ""),
            ("OPENCODE_SERVER_PASSWORD", "oc-pass"),
            ("OPENCODE_SERVER_USERNAME", "oc-user"),
        ]));
        assert_eq!(c.password.as_deref(), Some("oc-pass"));
        assert_eq!(c.client_username(), "oc-user");
        // An empty flag does not clear a password the environment set.
        assert_eq!(
            c.with_password(Some(String::new())).password.as_deref(),
            Some("oc-pass")
        );
    }

    #[test]
    fn strata_s_names_win_and_a_flag_wins_over_both() {
        let c = ServerCredentials::from_env(env(&[
            ("STRATA_SERVER_PASSWORD", "s-pass"),
            ("OPENCODE_SERVER_PASSWORD", "oc-pass"),
            ("STRATA_SERVER_USERNAME", "s-user"),
        ]));
        assert_eq!(c.password.as_deref(), Some("s-pass"));
        assert_eq!(c.client_username(), "s-user");
        let flagged = c.with_password(Some("flag".into()));
        assert_eq!(flagged.password.as_deref(), Some("flag"));
        assert!(!format!("{flagged:?}").contains("flag\""), "{flagged:?}");
    }
}
