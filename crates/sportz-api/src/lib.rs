//! The sportz API (issue 5): the Sportz match-centre REST endpoints and `/ws` rooms, the
//! `/ws/matches/{id}` snapshot-and-relay, and the consumers of `status:updates` and
//! `events:stream`. It talks to workers only through the contract (`sportz-contract`) on the bus.
//!
//! Not built yet: this crate only reserves its place in the workspace.
