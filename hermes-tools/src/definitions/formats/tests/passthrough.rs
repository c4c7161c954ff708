//! `openai`, `responses` and `anthropic`: the parameter schema as it is.

use serde_json::Value;

use super::common::{all_shapes, hostile_schemas};
use crate::definitions::formats::{Format, parameters_for};

#[test]
fn openai_responses_and_anthropic_pass_parameters_through() {
    let mut inputs: Vec<Value> = all_shapes().into_iter().map(|(_, schema)| schema).collect();
    inputs.extend(hostile_schemas());
    for schema in &inputs {
        for format in [Format::OpenAi, Format::Responses, Format::Anthropic] {
            assert_eq!(&parameters_for(format, schema), schema, "{format}");
        }
    }
}
