//! The lobby serves its OpenAPI document (issue 23, "Directors"), and a document it serves has
//! only fields the OpenAPI document describes. The whole API is checked against it by
//! schemathesis in the Python suite (tests/browser/test_openapi.py).

use floor_tests::{freezeout, http_get, http_request, World};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_serves_its_openapi_document() {
    let world = World::start().await;
    let tournament = world.create(freezeout(100)).await;
    let http = world.platform().http().expect("lobby serves HTTP");

    let (status, content_type, body) = http_request(http, "GET", "/api/openapi.json").await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    assert_eq!(body, floor_lobby::openapi::DOCUMENT, "the embedded file, as it is");
    let openapi: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(openapi["openapi"], "3.1.0");
    let (_, routes) = http_get(http, "/api").await;
    assert!(routes.contains("/api/openapi.json"), "GET /api lists it: {routes}");

    let (status, doc) = http_get(http, &format!("/api/tournaments/{tournament}")).await;
    assert_eq!(status, 200, "{doc}");
    let doc: Value = serde_json::from_str(&doc).expect("JSON");
    let described = openapi["components"]["schemas"]["LobbyDocument"]["properties"].as_object().expect("properties");
    for key in doc.as_object().expect("object").keys().filter(|k| *k != "waiting_on") {
        assert!(described.contains_key(key), "the served document's {key:?} is not described in openapi.json");
    }
}
