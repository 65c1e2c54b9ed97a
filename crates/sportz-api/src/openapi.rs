//! The route table ([`ROUTES`]: method, path, summary, whether the operator token is needed) and
//! the OpenAPI 3.1 document served at `/api/openapi.json`: operations and body schemas are derived
//! with `utoipa` from the handlers and the Rust types they read and answer; the table adds the
//! summaries, the security and the error answers. Tests check the table against the router and
//! the document, that every body has a schema, and that a validator accepts the document.

use axum::Json;
use serde_json::{Value, json};
use utoipa::OpenApi;

use crate::dto::OpenApiDocument;
use crate::error::ErrorBody;
use crate::rest;

/// One documented route.
#[derive(Debug)]
pub struct RouteDoc {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub operator: bool,
}

/// Every route, documented; the OpenAPI document is generated from this table and a test checks
/// that each entry is routed.
pub const ROUTES: &[RouteDoc] = &[
    RouteDoc {
        method: "get",
        path: "/matches",
        summary: "List matches (filters: status, phase; cursor, limit)",
        operator: false,
    },
    RouteDoc {
        method: "post",
        path: "/matches",
        summary: "Create a match (broadcasts match_created)",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}",
        summary: "Get a match",
        operator: false,
    },
    RouteDoc {
        method: "patch",
        path: "/matches/{id}",
        summary: "Update a match",
        operator: true,
    },
    RouteDoc {
        method: "delete",
        path: "/matches/{id}",
        summary: "Delete a match (409 while processing)",
        operator: true,
    },
    RouteDoc {
        method: "patch",
        path: "/matches/{id}/score",
        summary: "Update the score (broadcasts score_update)",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/commentary",
        summary: "List commentary, newest first",
        operator: false,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/commentary",
        summary: "Post commentary (to the match's room)",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/start",
        summary: "Start (or resume) processing",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/pause",
        summary: "Pause processing",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/stop",
        summary: "Stop processing",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/restart",
        summary: "Restart in a new session",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/sessions",
        summary: "List processing sessions",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/events",
        summary: "List detected events (filters: kind, sessionId; cursor, limit)",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/calibration",
        summary: "Get the pitch calibration and its reprojection error",
        operator: false,
    },
    RouteDoc {
        method: "put",
        path: "/matches/{id}/calibration",
        summary: "Set the pitch calibration (≥ 4 non-degenerate pairs)",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/calibration/auto",
        summary: "Find the pitch in the still at t without clicks: the camera and point pairs (not saved)",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/sessions/{sid}/export",
        summary: "A session's recording as jsonl, events-csv, cdf, gsr or mot (?format=), streamed",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/still",
        summary: "A JPEG frame of the video at ?t= seconds",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/video",
        summary: "The annotated live video (boxes, ids, ball trail) as MJPEG, where the match is analysed",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/api/workers",
        summary: "Workers from their heartbeats",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/api/openapi.json",
        summary: "This document",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/health",
        summary: "Liveness and readiness (bus, store, fan-out)",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/health/live",
        summary: "Liveness only",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/metrics",
        summary: "Prometheus metrics",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/ws",
        summary: "Match-centre WebSocket (welcome, subscribe, match_created, score_update, commentary)",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/ws/matches/{id}",
        summary: "Live tracking WebSocket: snapshot then relay of contract messages",
        operator: false,
    },
];

/// The operations, from the handlers' `#[utoipa::path]` attributes; their bodies' schemas come
/// from the Rust types (`crate::dto`, `crate::rest::bodies`, the contract's shapes).
#[derive(OpenApi)]
#[openapi(
    info(title = "sportz API"),
    paths(
        rest::matches::list_matches,
        rest::matches::create_match,
        rest::matches::get_match,
        rest::matches::update_match,
        rest::matches::delete_match,
        rest::commentary::update_score,
        rest::commentary::list_commentary,
        rest::commentary::add_commentary,
        rest::sessions::start,
        rest::sessions::pause,
        rest::sessions::stop,
        rest::sessions::restart,
        rest::sessions::list_sessions,
        rest::sessions::list_events,
        rest::recordings::export_session,
        rest::calibration::get_calibration,
        rest::calibration::set_calibration,
        rest::calibration::auto_calibration,
        rest::calibration::still,
        rest::video::live_video,
        rest::system::workers,
        openapi_json,
        rest::system::health,
        rest::system::live,
        rest::system::prometheus,
        crate::ws::centre,
        crate::ws::live,
    ),
    components(schemas(ErrorBody))
)]
struct ApiDoc;

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
    })
}

/// The OpenAPI 3.1 document: the operations of `ApiDoc`, with the summaries, the operator
/// security and the error answers of [`ROUTES`].
///
/// # Panics
/// Never: the document is plain data.
#[must_use]
pub fn openapi() -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).expect("the document serialises");
    doc["components"]["securitySchemes"] = json!({
        "operator": {"type": "http", "scheme": "bearer", "description": "An operator token (or a viewer token, to read where one is required)"}
    });
    for r in ROUTES {
        let Some(op) = doc["paths"]
            .get_mut(r.path)
            .and_then(|p| p.get_mut(r.method))
        else {
            continue; // the tests name what is missing
        };
        op["summary"] = json!(r.summary);
        let limited = r.path.starts_with("/matches") || r.path.starts_with("/api/");
        let mut errors = Vec::new();
        if limited {
            errors.extend([
                ("400", "Bad input: the fields that failed, or a malformed body or cursor"),
                ("401", "Missing or unknown token (operator routes; reading, when a viewer token is required)"),
                ("404", "No such match (or route)"),
                ("429", "Rate limited (see Retry-After)"),
            ]);
        }
        if r.path.starts_with("/ws") {
            errors.push(("429", "Too many upgrades (see Retry-After)"));
        }
        // before the operator routes' generic 409: the first description of a code wins
        if r.path.ends_with("/still") || r.path.ends_with("/calibration/auto") {
            errors.extend([
                (
                    "409",
                    "The match has no readable video (no source, a device or synthetic source, no frame at t)",
                ),
                ("503", "Reading the frame took longer than 15 s"),
            ]);
        }
        if r.operator {
            op["security"] = json!([{"operator": []}]);
            errors.extend([
                ("403", "A viewer token cannot change anything"),
                (
                    "409",
                    "Not allowed in the match's current status, or a duplicate",
                ),
            ]);
        }
        let responses = op["responses"]
            .as_object_mut()
            .expect("every operation has responses");
        for (code, description) in errors {
            responses
                .entry(code)
                .or_insert_with(|| error_response(description));
        }
    }
    doc
}

#[utoipa::path(
    get,
    path = "/api/openapi.json",
    responses((status = 200, description = "This document", body = OpenApiDocument))
)]
pub(crate) async fn openapi_json() -> Json<Value> {
    Json(openapi())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    const OPERATIONS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

    fn operations(doc: &Value) -> BTreeSet<(String, String)> {
        let mut out = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for method in OPERATIONS {
                if item.get(method).is_some() {
                    out.insert((method.to_owned(), path.clone()));
                }
            }
        }
        out
    }

    #[test]
    fn the_document_has_exactly_the_routes_of_the_table() {
        let doc = openapi();
        let table: BTreeSet<(String, String)> = ROUTES
            .iter()
            .map(|r| (r.method.to_owned(), r.path.to_owned()))
            .collect();
        assert_eq!(operations(&doc), table);
        assert_eq!(doc["openapi"], "3.1.0");
        for r in ROUTES {
            let op = &doc["paths"][r.path][r.method];
            assert_eq!(op["summary"], r.summary, "{} {}", r.method, r.path);
            assert_eq!(
                op.get("security").is_some(),
                r.operator,
                "{} {}",
                r.method,
                r.path
            );
        }
    }

    /// A schema is there: a `$ref` to a component that exists, or an inline schema that says
    /// something (a type, a composition, properties…).
    fn check_schema(doc: &Value, schema: &Value, what: &str) {
        let obj = schema
            .as_object()
            .unwrap_or_else(|| panic!("{what}: no schema"));
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            let name = r
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{what}: $ref {r} outside the components"));
            assert!(
                doc["components"]["schemas"].get(name).is_some(),
                "{what}: $ref {r} to a missing component"
            );
        } else {
            assert!(
                ["type", "oneOf", "allOf", "anyOf", "properties", "items"]
                    .iter()
                    .any(|k| obj.contains_key(*k)),
                "{what}: an empty schema {schema}"
            );
        }
    }

    fn check_content(doc: &Value, content: Option<&Value>, what: &str) {
        let content = content
            .and_then(Value::as_object)
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| panic!("{what}: no content"));
        for (media, c) in content {
            check_schema(doc, &c["schema"], &format!("{what} ({media})"));
        }
    }

    #[test]
    fn every_request_body_and_every_2xx_body_has_a_schema() {
        let doc = openapi();
        // the session controls carry no body
        let bodiless = ["/start", "/pause", "/stop", "/restart"];
        for r in ROUTES {
            let op = &doc["paths"][r.path][r.method];
            let what = format!("{} {}", r.method, r.path);
            let mutates = matches!(r.method, "post" | "put" | "patch");
            if mutates && !bodiless.iter().any(|s| r.path.ends_with(s)) {
                check_content(
                    &doc,
                    op["requestBody"].get("content"),
                    &format!("{what} request"),
                );
            }
            let responses = op["responses"].as_object().expect("responses");
            let mut answered = false;
            for (code, resp) in responses {
                if code == "101" {
                    answered = true;
                } else if code.starts_with('2') {
                    answered = true;
                    if code != "204" {
                        check_content(&doc, resp.get("content"), &format!("{what} {code}"));
                    }
                } else if let Some(c) = resp.get("content") {
                    check_content(&doc, Some(c), &format!("{what} {code}"));
                }
            }
            assert!(answered, "{what}: no 2xx (or 101) answer");
        }
    }

    #[test]
    fn operation_ids_are_unique() {
        let doc = openapi();
        let mut seen = BTreeSet::new();
        for r in ROUTES {
            let id = doc["paths"][r.path][r.method]["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{} {}: no operationId", r.method, r.path));
            assert!(seen.insert(id.to_owned()), "operationId {id} twice");
        }
    }
}
