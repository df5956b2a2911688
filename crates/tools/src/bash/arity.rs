//! The bash arity table: how many leading words of a command name what it does.
//!
//! A permission rule such as `git log *` must cover `git log --oneline -5` but not `git push`, so
//! the `always` pattern of a bash ask keeps the command words that select an action and replaces
//! the rest with `*`. The table (spec §7.4) maps a command, or a command plus its first
//! subcommand, to that number of words.

/// `(key, arity)`, sorted by key bytes so lookups can binary-search; a test checks the order.
/// Keys are one word, or two words joined by a single space.
static TABLE: &[(&str, usize)] = &[
    ("aws", 3),
    ("az", 3),
    ("bazel", 2),
    ("brew", 2),
    ("bun", 2),
    ("bun run", 3),
    ("bun x", 3),
    ("cargo", 2),
    ("cargo add", 3),
    ("cargo run", 3),
    ("cat", 1),
    ("cd", 1),
    ("cdk", 2),
    ("cf", 2),
    ("chmod", 1),
    ("chown", 1),
    ("cmake", 2),
    ("composer", 2),
    ("consul", 2),
    ("consul kv", 3),
    ("cp", 1),
    ("crictl", 2),
    ("deno", 2),
    ("deno task", 3),
    ("docker", 2),
    ("docker builder", 3),
    ("docker compose", 3),
    ("docker container", 3),
    ("docker image", 3),
    ("docker network", 3),
    ("docker volume", 3),
    ("doctl", 3),
    ("echo", 1),
    ("eksctl", 2),
    ("eksctl create", 3),
    ("env", 1),
    ("export", 1),
    ("firebase", 2),
    ("flyctl", 2),
    ("gcloud", 3),
    ("gh", 3),
    ("git", 2),
    ("git config", 3),
    ("git remote", 3),
    ("git stash", 3),
    ("go", 2),
    ("gradle", 2),
    ("grep", 1),
    ("helm", 2),
    ("heroku", 2),
    ("hugo", 2),
    ("ip", 2),
    ("ip addr", 3),
    ("ip link", 3),
    ("ip netns", 3),
    ("ip route", 3),
    ("kill", 1),
    ("killall", 1),
    ("kind", 2),
    ("kind create", 3),
    ("kubectl", 2),
    ("kubectl kustomize", 3),
    ("kubectl rollout", 3),
    ("kustomize", 2),
    ("ln", 1),
    ("ls", 1),
    ("make", 2),
    ("mc", 2),
    ("mc admin", 3),
    ("minikube", 2),
    ("mkdir", 1),
    ("mongosh", 2),
    ("mv", 1),
    ("mvn", 2),
    ("mysql", 2),
    ("ng", 2),
    ("npm", 2),
    ("npm exec", 3),
    ("npm init", 3),
    ("npm run", 3),
    ("npm view", 3),
    ("nvm", 2),
    ("nx", 2),
    ("openssl", 2),
    ("openssl req", 3),
    ("openssl x509", 3),
    ("pip", 2),
    ("pipenv", 2),
    ("pnpm", 2),
    ("pnpm dlx", 3),
    ("pnpm exec", 3),
    ("pnpm run", 3),
    ("podman", 2),
    ("podman container", 3),
    ("podman image", 3),
    ("poetry", 2),
    ("ps", 1),
    ("psql", 2),
    ("pulumi", 2),
    ("pulumi stack", 3),
    ("pwd", 1),
    ("pyenv", 2),
    ("python", 2),
    ("rake", 2),
    ("rbenv", 2),
    ("redis-cli", 2),
    ("rm", 1),
    ("rmdir", 1),
    ("rustup", 2),
    ("serverless", 2),
    ("sfdx", 3),
    ("skaffold", 2),
    ("sleep", 1),
    ("sls", 2),
    ("source", 1),
    ("sst", 2),
    ("swift", 2),
    ("systemctl", 2),
    ("tail", 1),
    ("terraform", 2),
    ("terraform workspace", 3),
    ("tmux", 2),
    ("touch", 1),
    ("turbo", 2),
    ("ufw", 2),
    ("unset", 1),
    ("vault", 2),
    ("vault auth", 3),
    ("vault kv", 3),
    ("vercel", 2),
    ("volta", 2),
    ("which", 1),
    ("wp", 2),
    ("yarn", 2),
    ("yarn dlx", 3),
    ("yarn run", 3),
];

/// The arity of `key` (one word, or two joined by a space), when the table knows it.
fn arity_of(key: &str) -> Option<usize> {
    TABLE
        .binary_search_by(|(k, _)| k.cmp(&key))
        .ok()
        .and_then(|i| TABLE.get(i))
        .map(|(_, arity)| *arity)
}

/// The leading tokens that name the action of a command: for the longest known key formed by the
/// first tokens, its arity's worth of tokens (fewer when the command is shorter); an unknown
/// command gives its first token; no tokens give none.
///
/// Every key has at most one space, and a join of three or more tokens has at least two, so only
/// the first one and two tokens can ever match; longer prefixes are not tried.
pub fn arity_prefix<S: AsRef<str>>(tokens: &[S]) -> &[S] {
    let mut len = tokens.len().min(2);
    while len > 0 {
        let key = match tokens {
            [a, b, ..] if len == 2 => format!("{} {}", a.as_ref(), b.as_ref()),
            [a, ..] => a.as_ref().to_owned(),
            [] => break,
        };
        if let Some(arity) = arity_of(&key) {
            return &tokens[..arity.min(tokens.len())];
        }
        len -= 1;
    }
    &tokens[..tokens.len().min(1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(words: &[&str]) -> Vec<String> {
        let tokens: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        arity_prefix(&tokens).to_vec()
    }

    #[test]
    fn table_is_sorted_unique_and_complete() {
        assert!(
            TABLE.windows(2).all(|w| w[0].0 < w[1].0),
            "TABLE must be strictly sorted"
        );
        assert_eq!(TABLE.len(), 136);
        let count = |n| TABLE.iter().filter(|(_, a)| *a == n).count();
        assert_eq!((count(1), count(2), count(3)), (25, 64, 47));
        assert_eq!(TABLE.iter().filter(|(k, _)| k.contains(' ')).count(), 41);
    }

    #[test]
    fn spec_checks() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["unknown-tool", "a", "b"], &["unknown-tool"]),
            (&["git", "checkout", "main"], &["git", "checkout"]),
            (&["aws", "s3", "ls", "my-bucket"], &["aws", "s3", "ls"]),
            (
                &["docker", "compose", "up", "service"],
                &["docker", "compose", "up"],
            ),
            (&["consul", "kv", "get", "config"], &["consul", "kv", "get"]),
            (&["npm", "run", "dev"], &["npm", "run", "dev"]),
            (&["ls", "-la"], &["ls"]),
            (&["git", "log", "--oneline", "-5"], &["git", "log"]),
            (&["npm", "install", "left-pad"], &["npm", "install"]),
            (&["cargo", "run", "--bin", "x"], &["cargo", "run", "--bin"]),
            (&["echo"], &["echo"]),
            (&["unknown"], &["unknown"]),
            (&[], &[]),
        ];
        for (input, want) in cases {
            assert_eq!(prefix(input), *want, "arity_prefix({input:?})");
        }
    }

    /// Every key, given exactly as many tokens as the key has words, comes back whole; given
    /// extra tokens, the first `arity` come back.
    #[test]
    fn every_key_exact_and_extended() {
        for (key, arity) in TABLE {
            let words: Vec<&str> = key.split(' ').collect();
            assert_eq!(prefix(&words), words, "exact input for key {key:?}");
            let mut long = words.clone();
            long.extend(["x1", "x2", "x3", "x4"]);
            assert_eq!(
                prefix(&long),
                long[..*arity].to_vec(),
                "long input for key {key:?}"
            );
        }
    }

    #[test]
    fn works_on_str_slices_and_is_case_sensitive() {
        let tokens = ["GIT", "log"];
        assert_eq!(arity_prefix(&tokens), &["GIT"]);
        let tokens = ["kubectl", "rollout", "status", "deploy/x"];
        assert_eq!(arity_prefix(&tokens), &["kubectl", "rollout", "status"]);
    }
}
