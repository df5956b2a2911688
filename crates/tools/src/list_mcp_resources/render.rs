//! The listing the model reads: one JSON document with every server's resources and templates
//! (each template with the parameters of its URI template), and the servers that failed.

use serde_json::{Map, Value, json};
use strata_services::mcp::ResourceListing;

/// The JSON text of `listed` and `failed` (`(server, why)`), with the counts of resources and
/// templates.
pub fn listing(listed: &[ResourceListing], failed: &[(String, String)]) -> (String, usize, usize) {
    let mut resources = Vec::new();
    let mut templates = Vec::new();
    for l in listed {
        for r in &l.resources {
            let mut o = Map::new();
            o.insert("server".into(), json!(r.server));
            o.insert("uri".into(), json!(r.uri));
            o.insert("name".into(), json!(r.name));
            put(&mut o, "title", r.title.as_deref());
            put(&mut o, "description", r.description.as_deref());
            put(&mut o, "mimeType", r.mime_type.as_deref());
            if let Some(size) = r.size {
                o.insert("size".into(), json!(size));
            }
            resources.push(Value::Object(o));
        }
        for t in &l.templates {
            let mut o = Map::new();
            o.insert("server".into(), json!(t.server));
            o.insert("uriTemplate".into(), json!(t.uri_template));
            o.insert("name".into(), json!(t.name));
            put(&mut o, "title", t.title.as_deref());
            put(&mut o, "description", t.description.as_deref());
            put(&mut o, "mimeType", t.mime_type.as_deref());
            o.insert(
                "parameters".into(),
                json!(template_parameters(&t.uri_template)),
            );
            templates.push(Value::Object(o));
        }
    }
    let counts = (resources.len(), templates.len());
    let mut doc = Map::new();
    doc.insert("resources".into(), Value::Array(resources));
    doc.insert("resourceTemplates".into(), Value::Array(templates));
    if !failed.is_empty() {
        let errors = failed
            .iter()
            .map(|(server, error)| json!({"server": server, "error": error}))
            .collect();
        doc.insert("errors".into(), Value::Array(errors));
    }
    let text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default();
    (text, counts.0, counts.1)
}

fn put(o: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        o.insert(key.into(), json!(v));
    }
}

/// The variable names of an RFC 6570 URI template, in order, each once: `{id}`, `{+path}`,
/// `{?q,limit}`, `{name*}` and `{var:3}` give `id`, `path`, `q`, `limit`, `name`, `var`.
pub fn template_parameters(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let expr = after[..close].trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for var in expr.split(',') {
            let name = var
                .split(':')
                .next()
                .unwrap_or_default()
                .trim_end_matches('*');
            if !name.is_empty() && !out.iter().any(|o| o == name) {
                out.push(name.to_string());
            }
        }
        rest = &after[close + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_services::mcp::{McpResource, McpResourceTemplate};

    #[test]
    fn template_parameters_follow_rfc_6570_expressions() {
        assert_eq!(
            template_parameters("demo://text/{resourceId}"),
            ["resourceId"]
        );
        assert_eq!(template_parameters("x://search{?q,limit}"), ["q", "limit"]);
        assert_eq!(
            template_parameters("x://{+path}/{name*}{#frag}{var:3}/{path}"),
            ["path", "name", "frag", "var"]
        );
        assert!(template_parameters("x://fixed").is_empty());
        assert_eq!(template_parameters("x://{a}/{unclosed"), ["a"]);
    }

    #[test]
    fn the_listing_is_one_json_document() {
        let listed = vec![ResourceListing {
            resources: vec![McpResource {
                server: "docs".into(),
                uri: "docs://a".into(),
                name: "a".into(),
                title: None,
                description: Some("The a.".into()),
                mime_type: Some("text/plain".into()),
                size: Some(3),
            }],
            templates: vec![McpResourceTemplate {
                server: "docs".into(),
                uri_template: "docs://{id}".into(),
                name: "by id".into(),
                title: None,
                description: None,
                mime_type: None,
            }],
        }];
        let failed = vec![("db".to_string(), "it stopped".to_string())];
        let (text, resources, templates) = listing(&listed, &failed);
        assert_eq!((resources, templates), (1, 1));
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            doc,
            json!({
                "resources": [{"server": "docs", "uri": "docs://a", "name": "a",
                    "description": "The a.", "mimeType": "text/plain", "size": 3}],
                "resourceTemplates": [{"server": "docs", "uriTemplate": "docs://{id}",
                    "name": "by id", "parameters": ["id"]}],
                "errors": [{"server": "db", "error": "it stopped"}],
            })
        );
    }
}
