//! The bus (issue 3), being built.
