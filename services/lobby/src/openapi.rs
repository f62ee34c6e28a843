//! `GET /api/openapi.json`: the OpenAPI 3.1 document of the lobby's JSON API
//! (`services/lobby/openapi.json`, embedded in the binary).
//!
//! Written by hand for the lobby's own shapes (the document, the list's page, the health, the
//! error envelope); the event types it shares with the contract (`Money`, `Level`, …) are copied
//! from `schemas/` by `tests/browser/openapi_sync.py`, which the Python suite runs with `--check`.
//! That suite also runs schemathesis against a running lobby (`tests/browser/test_openapi.py`):
//! every answer must match the document, and none may be a 5xx.

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// The document, as served.
pub const DOCUMENT: &str = include_str!("../openapi.json");

/// `GET /api/openapi.json`.
pub async fn serve() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], DOCUMENT).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::LobbyDocument;
    use floor_events::tournament::{Start, TournamentDefinition};
    use serde_json::Value;

    fn document() -> Value {
        serde_json::from_str(DOCUMENT).expect("openapi.json is JSON")
    }

    #[test]
    fn it_is_openapi_3_1_and_describes_every_route_of_the_json_api() {
        let doc = document();
        assert_eq!(doc["openapi"], "3.1.0");
        let paths: Vec<&str> = doc["paths"].as_object().expect("paths").keys().map(String::as_str).collect();
        for route in [
            "/api",
            "/api/openapi.json",
            "/api/tournaments",
            "/api/tournaments/{id}",
            "/api/tournaments/{id}/structure",
            "/api/tournaments/{id}/events",
            "/api/tournaments/{id}/tables",
            "/api/tournaments/{id}/players",
            "/api/tournaments/{id}/leaders",
            "/api/tournaments/{id}/results",
            "/api/health",
        ] {
            assert!(paths.contains(&route), "{route} is not in openapi.json");
        }
        // Every reference names a component the document has (a schema, or a response shared
        // by every operation: 413, 414, 431).
        let text = DOCUMENT.replace(' ', "");
        for reference in text.split("\"$ref\":\"").skip(1).map(|rest| rest.split('"').next().unwrap_or_default()) {
            let (kind, name) = reference
                .strip_prefix("#/components/")
                .and_then(|r| r.split_once('/'))
                .unwrap_or_else(|| panic!("{reference}: not a component"));
            assert!(["schemas", "responses"].contains(&kind), "{reference}");
            assert!(doc["components"][kind].get(name).is_some(), "{reference} names no component");
        }
        for status in ["413", "414", "431"] {
            assert!(doc["paths"]["/api/tournaments"]["get"]["responses"].get(status).is_some(), "{status}: the HTTP layer's own errors");
        }
    }

    #[test]
    fn a_new_documents_fields_are_the_ones_described() {
        let def = TournamentDefinition {
            name: "OpenAPI".into(),
            start: Start::At("2026-12-06T18:00:00Z".parse().unwrap()),
            ..TournamentDefinition::example()
        };
        let created =
            LobbyDocument::created(floor_events::TournamentId(uuid::Uuid::nil()), &def, "2026-12-01T00:00:00Z".parse().unwrap(), 1);
        let json = serde_json::to_value(&created).expect("serializes");
        let doc = document();
        let schema = &doc["components"]["schemas"]["LobbyDocument"];
        let described = schema["properties"].as_object().expect("properties");
        for key in json.as_object().expect("object").keys() {
            assert!(described.contains_key(key), "the document's {key:?} is not in openapi.json's LobbyDocument");
        }
        for required in schema["required"].as_array().expect("required") {
            let key = required.as_str().expect("a name");
            assert!(json.get(key).is_some(), "openapi.json requires {key:?}, which a new document does not have");
        }
    }
}
