//! The OpenAPI document at `/api/openapi.json`: it parses as OpenAPI 3 (the `oas3` crate's
//! typed model), every `$ref` resolves, every path parameter is declared, and it lists
//! exactly the router's routes — the router and the document come from one list
//! (`api::routes`); a served document that is not that list's, or a documented route the
//! router does not serve, fails here.

mod support;

use std::collections::BTreeSet;

use serde_json::Value;
use support::*;

/// Every `"$ref"` string anywhere in `value`.
fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("$ref", Value::String(r)) => out.push(r),
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(list) => list.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_validates_and_lists_exactly_the_routes() {
    let db = TestDb::new(&Backend::Sqlite).await;
    let mut config = config(&db);
    config.admin_token = Some("openapi-test-admin-token".into());
    let server = TestServer::start(config).await;
    let (http, base) = (&server.http, server.base.as_str());
    let response = http
        .get(format!("{base}/api/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();

    let spec = oas3::from_json(&text).expect("the document parses as OpenAPI 3");
    let version = spec
        .validate_version()
        .expect("a supported OpenAPI version");
    assert_eq!(version.major, 3);
    let json: Value = serde_json::from_str(&text).unwrap();

    // Every reference resolves to a component.
    let mut all = Vec::new();
    refs(&json, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let pointer = r
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("external $ref {r}"));
        assert!(json.pointer(pointer).is_some(), "unresolved $ref {r}");
    }

    // Operations: unique ids, responses, declared path parameters.
    let mut documented = BTreeSet::new();
    let mut operation_ids = BTreeSet::new();
    for (path, method, operation) in spec.operations() {
        documented.insert((method.to_string(), path.clone()));
        let id = operation.operation_id.clone().unwrap_or_default();
        assert!(operation_ids.insert(id.clone()), "operationId {id:?} twice");
        let responses = operation.responses.as_ref().map_or(0, |r| r.len());
        assert!(responses > 0, "{method} {path}: no responses");
        let declared: BTreeSet<String> =
            json["paths"][&path][method.as_str().to_lowercase()]["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap().to_string())
                .collect();
        let in_path: BTreeSet<String> = path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(str::to_string)
            .collect();
        assert_eq!(declared, in_path, "{method} {path}: path parameters");
    }

    // Exactly the route list's operations.
    let routed: BTreeSet<(String, String)> = pogo_server::api::route_list()
        .into_iter()
        .map(|(method, path)| (method.to_string(), path.to_string()))
        .collect();
    let missing: Vec<_> = routed.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&routed).collect();
    assert!(
        missing.is_empty(),
        "routes missing from the OpenAPI document: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "documented routes the router does not list: {extra:?}"
    );

    // And the router serves each documented route (not the 404 fallback, not 405).
    for (method, path) in &documented {
        let url = format!(
            "{base}{}",
            path.replace("{id}", "1")
                .replace("{level}", "course")
                .replace("{name}", "x")
        );
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let response = http.request(method.clone(), &url).send().await.unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        assert_ne!(status, 405, "{method} {path}");
        assert_ne!(body["error"], "no_route", "{method} {path} is not routed");
        assert_ne!(status, 500, "{method} {path}: {body}");
    }
    server.stop().await;
}
