//! A route declared once: its method, path, summary, body and answer types beside its
//! handler. The router and the OpenAPI document (`GET /doc`) are both built from the same
//! [`Endpoint`] lists, so a routed path cannot be missing from the document, and the schemas
//! come from the types the handlers decode and encode (schemars).

use axum::Router;
use axum::handler::Handler;
use axum::routing::{MethodFilter, MethodRouter, on};
use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::http::AppState;

/// Writes a schema into the document's generator.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

fn of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// Free-form JSON (the context routes answer opencode's shapes as built JSON).
fn any(_: &mut SchemaGenerator) -> Schema {
    Schema::default()
}

/// What a route answers.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    Json(SchemaFn),
    /// 204, no body.
    Empty,
    /// `text/event-stream` of these items.
    Events(SchemaFn),
}

/// What the document says of one route.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// Lower case, as OpenAPI spells it.
    pub method: &'static str,
    /// axum's syntax (`{id}`, `{*rest}`); [`Route::doc_path`] gives OpenAPI's.
    pub path: &'static str,
    pub summary: &'static str,
    pub body: Option<SchemaFn>,
    pub answer: Answer,
    /// When the route answers 409, what that means (documented with the error body).
    pub conflict: Option<&'static str>,
}

impl Route {
    /// The path in OpenAPI's syntax: a catch-all `{*rest}` is the parameter `{rest}`.
    pub fn doc_path(&self) -> String {
        self.path.replace("{*", "{")
    }
}

/// A route and its handler.
#[derive(Debug)]
pub struct Endpoint {
    pub route: Route,
    handler: MethodRouter<AppState>,
}

macro_rules! method {
    ($name:ident, $filter:ident) => {
        #[doc = concat!("A `", stringify!($name), "` route answering free-form JSON until told otherwise.")]
        pub fn $name<H, T>(path: &'static str, summary: &'static str, handler: H) -> Self
        where
            H: Handler<T, AppState>,
            T: 'static,
        {
            Self::new(stringify!($name), MethodFilter::$filter, path, summary, handler)
        }
    };
}

impl Endpoint {
    fn new<H, T>(
        method: &'static str,
        filter: MethodFilter,
        path: &'static str,
        summary: &'static str,
        handler: H,
    ) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        Self {
            route: Route {
                method,
                path,
                summary,
                body: None,
                answer: Answer::Json(any),
                conflict: None,
            },
            handler: on(filter, handler),
        }
    }

    method!(get, GET);
    method!(post, POST);
    method!(put, PUT);
    method!(patch, PATCH);
    method!(delete, DELETE);

    /// The JSON body it reads.
    pub fn body<B: JsonSchema>(mut self) -> Self {
        self.route.body = Some(of::<B>);
        self
    }

    /// The JSON it answers.
    pub fn json<A: JsonSchema>(mut self) -> Self {
        self.route.answer = Answer::Json(of::<A>);
        self
    }

    /// It may answer 409 with the error body, meaning `what`.
    pub fn conflict(mut self, what: &'static str) -> Self {
        self.route.conflict = Some(what);
        self
    }

    /// It answers 204 with no body.
    pub fn empty(mut self) -> Self {
        self.route.answer = Answer::Empty;
        self
    }

    /// It answers a stream of server-sent events, each `data:` line one `E`.
    pub fn events<E: JsonSchema>(mut self) -> Self {
        self.route.answer = Answer::Events(of::<E>);
        self
    }
}

/// The router of `endpoints`; methods declared for one path share it.
pub fn router(endpoints: Vec<Endpoint>) -> Router<AppState> {
    endpoints
        .into_iter()
        .fold(Router::new(), |r, e| r.route(e.route.path, e.handler))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn nothing() {}

    #[test]
    fn a_catch_all_is_a_plain_parameter_in_the_document() {
        let e = Endpoint::get("/api/{*rest}", "Anything", nothing);
        assert_eq!(e.route.doc_path(), "/api/{rest}");
        assert_eq!(e.route.method, "get");
        assert!(matches!(e.route.answer, Answer::Json(_)));
        assert!(e.route.body.is_none());
    }

    #[test]
    fn the_builders_set_what_the_document_shows() {
        let e = Endpoint::post("/x", "X", nothing).body::<String>().empty();
        assert_eq!(e.route.method, "post");
        assert!(e.route.body.is_some());
        assert!(matches!(e.route.answer, Answer::Empty));
        let e = Endpoint::get("/y", "Y", nothing).events::<u32>();
        assert!(matches!(e.route.answer, Answer::Events(_)));
    }
}
