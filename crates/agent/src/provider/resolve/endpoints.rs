//! Which wire a provider speaks, read from the AI SDK package its catalogue or config entry
//! names (`npm`), and the endpoints of the vendors the catalogue names only by their own SDK
//! package, without a base URL: Strata speaks their OpenAI-compatible APIs instead.

/// A streaming protocol Strata speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireKind {
    /// OpenAI chat completions (`…/chat/completions`), as most vendors and local servers copy it.
    Chat,
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// The OpenAI Responses API (`…/responses`).
    Responses,
}

impl WireKind {
    /// The name used in messages and in `options.api`.
    pub fn as_str(self) -> &'static str {
        match self {
            WireKind::Chat => "chat completions",
            WireKind::Anthropic => "Anthropic Messages",
            WireKind::Responses => "Responses",
        }
    }
}

/// What Strata knows of an AI SDK package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// Spoken over `wire`; `base` is the vendor's endpoint for when the catalogue has none.
    Speaks {
        wire: WireKind,
        base: Option<&'static str>,
    },
    /// Azure OpenAI: the endpoint is built from a resource name and an API version.
    Azure,
    /// A way of signing in Strata does not have; the text says which.
    Unsupported(&'static str),
    /// A package Strata has never heard of: chat completions, if a base URL is configured.
    Unknown,
}

const fn chat(base: &'static str) -> Sdk {
    Sdk::Speaks {
        wire: WireKind::Chat,
        base: Some(base),
    }
}

/// The packages Strata knows, with what it does for each.
pub const SDKS: &[(&str, Sdk)] = &[
    (
        "@ai-sdk/openai-compatible",
        Sdk::Speaks {
            wire: WireKind::Chat,
            base: None,
        },
    ),
    (
        "@ai-sdk/anthropic",
        Sdk::Speaks {
            wire: WireKind::Anthropic,
            base: Some("https://api.anthropic.com"),
        },
    ),
    (
        "@ai-sdk/openai",
        Sdk::Speaks {
            wire: WireKind::Responses,
            base: Some("https://api.openai.com/v1"),
        },
    ),
    ("@ai-sdk/azure", Sdk::Azure),
    ("@ai-sdk/groq", chat("https://api.groq.com/openai/v1")),
    ("@ai-sdk/mistral", chat("https://api.mistral.ai/v1")),
    ("@ai-sdk/xai", chat("https://api.x.ai/v1")),
    ("@ai-sdk/cerebras", chat("https://api.cerebras.ai/v1")),
    ("@ai-sdk/togetherai", chat("https://api.together.xyz/v1")),
    (
        "@ai-sdk/deepinfra",
        chat("https://api.deepinfra.com/v1/openai"),
    ),
    ("@ai-sdk/perplexity", chat("https://api.perplexity.ai")),
    (
        "@ai-sdk/cohere",
        chat("https://api.cohere.ai/compatibility/v1"),
    ),
    ("@ai-sdk/deepseek", chat("https://api.deepseek.com/v1")),
    (
        "@ai-sdk/fireworks",
        chat("https://api.fireworks.ai/inference/v1"),
    ),
    // Gemini's OpenAI-compatible endpoint carries its thought signatures on tool calls.
    (
        "@ai-sdk/google",
        chat("https://generativelanguage.googleapis.com/v1beta/openai"),
    ),
    (
        "@openrouter/ai-sdk-provider",
        chat("https://openrouter.ai/api/v1"),
    ),
    ("@ai-sdk/gateway", chat("https://ai-gateway.vercel.sh/v1")),
    ("@ai-sdk/vercel", chat("https://api.v0.dev/v1")),
    (
        "venice-ai-sdk-provider",
        chat("https://api.venice.ai/api/v1"),
    ),
    ("@aihubmix/ai-sdk-provider", chat("https://aihubmix.com/v1")),
    (
        "@ai-sdk/amazon-bedrock",
        Sdk::Unsupported("Amazon Bedrock's SigV4-signed requests"),
    ),
    (
        "@ai-sdk/google-vertex",
        Sdk::Unsupported("Google Vertex AI's OAuth credentials"),
    ),
    (
        "@ai-sdk/google-vertex/anthropic",
        Sdk::Unsupported("Google Vertex AI's OAuth credentials"),
    ),
    (
        "gitlab-ai-provider",
        Sdk::Unsupported("GitLab's OAuth sign-in"),
    ),
    (
        "@jerome-benoit/sap-ai-provider-v2",
        Sdk::Unsupported("SAP AI Core's OAuth service keys"),
    ),
];

/// What Strata does for package `npm`.
pub fn sdk(npm: &str) -> Sdk {
    SDKS.iter()
        .find(|(name, _)| *name == npm)
        .map_or(Sdk::Unknown, |(_, sdk)| *sdk)
}

/// The wire an `options.api` value or a catalogue `shape` asks for.
pub fn wire_named(name: &str) -> Option<WireKind> {
    match name.trim().to_ascii_lowercase().as_str() {
        "responses" => Some(WireKind::Responses),
        "chat" | "completions" | "chat-completions" => Some(WireKind::Chat),
        "anthropic" | "messages" => Some(WireKind::Anthropic),
        _ => None,
    }
}

/// Whether `url` points at this machine (a local server needs no key).
pub fn is_local(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or(rest);
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split(']').next().map_or(host, |h| &h[1..])
    } else {
        host.split(':').next().unwrap_or(host)
    };
    matches!(host, "localhost" | "0.0.0.0" | "::1") || host.starts_with("127.")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test per vendor the catalogue names only by its SDK package.
    macro_rules! endpoint {
        ($name:ident, $npm:literal, $base:literal) => {
            #[test]
            fn $name() {
                assert_eq!(
                    sdk($npm),
                    Sdk::Speaks {
                        wire: WireKind::Chat,
                        base: Some($base)
                    }
                );
                assert!($base.starts_with("https://") && !$base.ends_with('/'));
            }
        };
    }

    endpoint!(groq, "@ai-sdk/groq", "https://api.groq.com/openai/v1");
    endpoint!(mistral, "@ai-sdk/mistral", "https://api.mistral.ai/v1");
    endpoint!(xai, "@ai-sdk/xai", "https://api.x.ai/v1");
    endpoint!(cerebras, "@ai-sdk/cerebras", "https://api.cerebras.ai/v1");
    endpoint!(
        togetherai,
        "@ai-sdk/togetherai",
        "https://api.together.xyz/v1"
    );
    endpoint!(
        deepinfra,
        "@ai-sdk/deepinfra",
        "https://api.deepinfra.com/v1/openai"
    );
    endpoint!(
        perplexity,
        "@ai-sdk/perplexity",
        "https://api.perplexity.ai"
    );
    endpoint!(
        cohere,
        "@ai-sdk/cohere",
        "https://api.cohere.ai/compatibility/v1"
    );
    endpoint!(deepseek, "@ai-sdk/deepseek", "https://api.deepseek.com/v1");
    endpoint!(
        fireworks,
        "@ai-sdk/fireworks",
        "https://api.fireworks.ai/inference/v1"
    );
    endpoint!(
        google,
        "@ai-sdk/google",
        "https://generativelanguage.googleapis.com/v1beta/openai"
    );
    endpoint!(
        openrouter,
        "@openrouter/ai-sdk-provider",
        "https://openrouter.ai/api/v1"
    );
    endpoint!(
        vercel_gateway,
        "@ai-sdk/gateway",
        "https://ai-gateway.vercel.sh/v1"
    );
    endpoint!(v0, "@ai-sdk/vercel", "https://api.v0.dev/v1");
    endpoint!(
        venice,
        "venice-ai-sdk-provider",
        "https://api.venice.ai/api/v1"
    );
    endpoint!(
        aihubmix,
        "@aihubmix/ai-sdk-provider",
        "https://aihubmix.com/v1"
    );

    #[test]
    fn the_three_native_wires_and_the_unsupported_ones() {
        assert!(matches!(
            sdk("@ai-sdk/anthropic"),
            Sdk::Speaks {
                wire: WireKind::Anthropic,
                ..
            }
        ));
        assert!(matches!(
            sdk("@ai-sdk/openai"),
            Sdk::Speaks {
                wire: WireKind::Responses,
                ..
            }
        ));
        assert_eq!(
            sdk("@ai-sdk/openai-compatible"),
            Sdk::Speaks {
                wire: WireKind::Chat,
                base: None
            }
        );
        assert_eq!(sdk("@ai-sdk/azure"), Sdk::Azure);
        assert!(
            matches!(sdk("@ai-sdk/amazon-bedrock"), Sdk::Unsupported(w) if w.contains("SigV4"))
        );
        assert!(matches!(sdk("@ai-sdk/google-vertex"), Sdk::Unsupported(w) if w.contains("OAuth")));
        assert_eq!(sdk("some-new-provider"), Sdk::Unknown);
    }

    #[test]
    fn wire_names_and_local_urls() {
        assert_eq!(wire_named("Responses"), Some(WireKind::Responses));
        assert_eq!(wire_named("chat"), Some(WireKind::Chat));
        assert_eq!(wire_named("completions"), Some(WireKind::Chat));
        assert_eq!(wire_named("grpc"), None);
        for local in [
            "http://127.0.0.1:11434/v1",
            "http://localhost:1234/v1",
            "http://[::1]:8080",
            "http://user:pw@127.0.0.2/v1",
        ] {
            assert!(is_local(local), "{local}");
        }
        for remote in [
            "https://api.openai.com/v1",
            "http://203.0.113.5/v1",
            "https://localhost.example",
        ] {
            assert!(!is_local(remote), "{remote}");
        }
    }
}
