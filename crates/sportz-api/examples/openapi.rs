//! Prints the OpenAPI document the API serves at `/api/openapi.json`, without starting a server
//! (for an external validator or a client generator):
//!   cargo run -p sportz-api --example openapi > openapi.json

fn main() {
    let doc = sportz_api::openapi::openapi();
    println!(
        "{}",
        serde_json::to_string_pretty(&doc).expect("the document is plain JSON")
    );
}
