//! How `strata models` shows the resolver's listing: a table grouped by provider, or JSON rows.
//! Plain functions over [`ListedProvider`] values, so the layout is tested without a catalogue.

use serde_json::{Value, json};
use strata_agent::provider::credentials::KeyOrigin;
use strata_agent::provider::resolve::{KeySource, ListedProvider};

const HEADERS: [&str; 7] = [
    "MODEL",
    "CONTEXT",
    "OUTPUT",
    "IN $/M",
    "OUT $/M",
    "CACHE READ $/M",
    "REASONING",
];

/// The table: one block per provider (its name, where its key comes from or what it still
/// needs), then one row per model; the model column is as wide as the longest id shown.
pub(super) fn table(providers: &[ListedProvider]) -> String {
    let width = providers
        .iter()
        .flat_map(|p| p.models.iter().map(move |m| p.id.len() + 1 + m.id.len()))
        .chain([HEADERS[0].len()])
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, p) in providers.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{} ({}): {}\n", p.id, p.name, status(p)));
        if p.models.is_empty() {
            out.push_str("  (no models listed)\n");
            continue;
        }
        out.push_str(&row(width, HEADERS.map(str::to_string)));
        for m in &p.models {
            let c = &m.info.cost;
            out.push_str(&row(
                width,
                [
                    format!("{}/{}", p.id, m.id),
                    tokens(m.info.context),
                    tokens(m.info.output),
                    price(c.input),
                    price(c.output),
                    price(c.cache_read),
                    if m.info.reasoning { "yes" } else { "no" }.to_string(),
                ],
            ));
        }
    }
    out
}

fn row(width: usize, cells: [String; 7]) -> String {
    let [model, context, output, input, out, cache, reasoning] = cells;
    format!(
        "  {model:<width$}  {context:>7}  {output:>7}  {input:>7}  {out:>7}  {cache:>14}  \
         {reasoning}\n"
    )
}

/// Where the provider's key comes from, or what it still needs.
fn status(p: &ListedProvider) -> String {
    if let Some(problem) = &p.problem {
        return format!("not usable: {problem}");
    }
    match &p.key {
        Some(KeySource::Env(name)) => format!("key from {name}"),
        Some(KeySource::Config) => "key from the config".to_string(),
        Some(KeySource::Stored(KeyOrigin::Strata)) => "key from `strata auth login`".to_string(),
        Some(KeySource::Stored(KeyOrigin::Opencode)) => "key from opencode's auth.json".into(),
        None => "no key needed".to_string(),
    }
}

/// A token count, short: `131K`, `1M`; `-` when unknown.
pub(super) fn tokens(n: u64) -> String {
    // Limits stay far below 2^53, where f64 is exact.
    #[allow(clippy::cast_precision_loss)]
    let f = n as f64;
    match n {
        0 => "-".to_string(),
        1..1_000 => n.to_string(),
        1_000..100_000 => format!("{}K", trim(format!("{:.1}", f / 1e3))),
        100_000..1_000_000 => format!("{:.0}K", f / 1e3),
        _ => format!("{}M", trim(format!("{:.1}", f / 1e6))),
    }
}

/// A price in dollars per million tokens: at least two decimals, at most three.
pub(super) fn price(p: f64) -> String {
    if p == 0.0 {
        return "0".to_string();
    }
    let text = format!("{p:.3}");
    match text.strip_suffix('0') {
        Some(two) => two.to_string(),
        None => text,
    }
}

fn trim(text: String) -> String {
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

/// One JSON object per model: `{id, provider, name, context, output, cost, reasoning, usable}`.
pub(super) fn json_rows(providers: &[ListedProvider]) -> Value {
    let rows = providers.iter().flat_map(|p| {
        p.models.iter().map(move |m| {
            let c = &m.info.cost;
            json!({
                "id": format!("{}/{}", p.id, m.id),
                "provider": p.id,
                "name": m.name,
                "context": m.info.context,
                "output": m.info.output,
                "cost": {
                    "input": c.input,
                    "output": c.output,
                    "cache_read": c.cache_read,
                    "cache_write": c.cache_write,
                },
                "reasoning": m.info.reasoning,
                "usable": p.usable(),
            })
        })
    });
    Value::Array(rows.collect())
}

#[cfg(test)]
mod tests {
    use strata_agent::catalogue::{ModelInfo, Price};
    use strata_agent::provider::resolve::ListedModel;

    use super::*;

    fn provider(id: &str, problem: Option<&str>, key: Option<KeySource>) -> ListedProvider {
        ListedProvider {
            id: id.into(),
            name: id.to_uppercase(),
            env: vec![],
            npm: None,
            base: None,
            configured: false,
            key,
            problem: problem.map(str::to_string),
            models: vec![ListedModel {
                id: "m-1".into(),
                name: "Model One".into(),
                info: ModelInfo {
                    id: format!("{id}/m-1"),
                    context: 131_072,
                    output: 8_192,
                    reasoning: true,
                    cost: Price {
                        input: 0.59,
                        output: 0.075,
                        cache_read: 0.0,
                        cache_write: 1.0,
                    },
                    interleaved: None,
                },
                ..ListedModel::default()
            }],
        }
    }

    #[test]
    fn numbers_are_short_and_unknown_limits_show_a_dash() {
        assert_eq!(tokens(0), "-");
        assert_eq!(tokens(512), "512");
        assert_eq!(tokens(8_192), "8.2K");
        assert_eq!(tokens(200_000), "200K");
        assert_eq!(tokens(1_048_576), "1M");
        assert_eq!(tokens(2_500_000), "2.5M");
        assert_eq!(price(0.0), "0");
        assert_eq!(price(0.59), "0.59");
        assert_eq!(price(0.075), "0.075");
        assert_eq!(price(15.0), "15.00");
    }

    #[test]
    fn the_table_groups_models_under_their_provider_with_its_key_or_its_problem() {
        let text = table(&[
            provider("alpha", None, Some(KeySource::Env("ALPHA_KEY".into()))),
            provider("beta", Some("set BETA_KEY"), None),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "alpha (ALPHA): key from ALPHA_KEY");
        assert!(lines[1].trim_start().starts_with("MODEL"), "{text}");
        let cells: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(
            cells,
            ["alpha/m-1", "131K", "8.2K", "0.59", "0.075", "0", "yes"]
        );
        assert_eq!(lines[3], "");
        assert_eq!(lines[4], "beta (BETA): not usable: set BETA_KEY");
    }

    #[test]
    fn json_rows_carry_prices_and_whether_the_model_can_be_called() {
        let rows = json_rows(&[provider("beta", Some("no key"), None)]);
        assert_eq!(
            rows,
            json!([{
                "id": "beta/m-1", "provider": "beta", "name": "Model One",
                "context": 131072, "output": 8192,
                "cost": {"input": 0.59, "output": 0.075, "cache_read": 0.0, "cache_write": 1.0},
                "reasoning": true, "usable": false,
            }])
        );
    }
}
