//! Tests of every format on realistic schemars schemas and hostile schemas, one file per
//! format; `common` has the schemas and the checks they share. The comparison with openai-python
//! itself is an interop test (tests/tests/strict_schema_interop.rs), since it needs Python.

mod common;
mod every_format;
mod gemini;
mod mcp;
mod passthrough;
#[allow(dead_code)]
mod shapes;
mod strict;
