//! The route table ([`ROUTES`]) and the OpenAPI document generated from it, served at
//! `/api/openapi.json`.

use axum::Json;
use serde_json::{Value, json};

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
        method: "get",
        path: "/matches/{id}/still",
        summary: "A JPEG frame of the video at ?t= seconds",
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

/// The OpenAPI 3.1 document of [`ROUTES`].
#[must_use]
pub fn openapi() -> Value {
    let mut paths = serde_json::Map::new();
    for r in ROUTES {
        let entry = paths.entry(r.path.to_owned()).or_insert_with(|| json!({}));
        let mut op = json!({
            "summary": r.summary,
            "responses": {
                "200": {"description": "OK: `{data: …}`"},
                "400": {"description": "Validation failed: `{error: {code, message, fields}}`"},
                "404": {"description": "Not found"},
                "429": {"description": "Rate limited (Retry-After)"}
            }
        });
        if r.path.contains("{id}") {
            op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^match_[0-9A-HJKMNP-TV-Z]{26}$"}}]);
        }
        if r.operator {
            op["security"] = json!([{"operator": []}]);
            op["responses"]["401"] = json!({"description": "Missing or unknown operator token"});
        }
        entry[r.method] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "sportz API", "version": env!("CARGO_PKG_VERSION")},
        "components": {"securitySchemes": {"operator": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    })
}

pub(crate) async fn openapi_json() -> Json<Value> {
    Json(openapi())
}
