//! The utility tools of a server that offers resources or prompts, as Hermes adds them: the
//! model reads a server's resources and prompts through tools, since tools are all it calls.
//!
//! | the server advertises | tools added (`mcp__<server>__…`) |
//! |---|---|
//! | `resources` | `list_resources` (resources and URI templates), `read_resource {uri}` |
//! | `prompts` | `list_prompts` (with their arguments), `get_prompt {name, arguments}` |
//!
//! A capability alone is not enough: many servers advertise both whatever they hold (the
//! Python SDK's do), so the utilities of a kind are added only when the server lists at least
//! one resource (or URI template), or one prompt: four tools that can only say "none" would
//! cost every model turn their definitions. The lists are read again with the tools, on each
//! `list_changed` notification (tools, resources or prompts).
//!
//! They are planned with the server's tools, so `include` and `exclude` name them too, and a
//! tool of the server with the same name wins (the utility is reported as not registered).

use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, ReadResourceRequestParams, ReadResourceResult,
    ResourceContents,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::{Map, Value, json};

use super::call_result;
use crate::call::answer::{IntoAnswer, ToolAnswer, ToolContent};

/// One utility tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Utility {
    ListResources,
    ReadResource,
    ListPrompts,
    GetPrompt,
}

impl Utility {
    /// The utilities the server behind `peer` gets: those of each capability it advertises
    /// and holds something for (the first page of each list tells).
    pub(crate) async fn offered(peer: &Peer<RoleClient>) -> Vec<Utility> {
        let Some(info) = peer.peer_info() else {
            return Vec::new();
        };
        let mut offered = Vec::new();
        if info.capabilities.resources.is_some() && holds_resources(peer).await {
            offered.extend([Utility::ListResources, Utility::ReadResource]);
        }
        if info.capabilities.prompts.is_some()
            && peer
                .list_prompts(None)
                .await
                .is_ok_and(|listed| !listed.prompts.is_empty())
        {
            offered.extend([Utility::ListPrompts, Utility::GetPrompt]);
        }
        offered
    }

    /// Its name on the server's side of `mcp__<server>__<name>`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Utility::ListResources => "list_resources",
            Utility::ReadResource => "read_resource",
            Utility::ListPrompts => "list_prompts",
            Utility::GetPrompt => "get_prompt",
        }
    }

    pub(crate) fn description(self, server: &str, local_prefix: &str) -> String {
        match self {
            Utility::ListResources => format!(
                "List the resources the MCP server {server:?} offers (URI, name, type) and its URI \
                 templates. Read one with {local_prefix}read_resource."
            ),
            Utility::ReadResource => format!(
                "Read one resource of the MCP server {server:?} by its URI (from \
                 {local_prefix}list_resources, or a URI template filled in)."
            ),
            Utility::ListPrompts => format!(
                "List the prompts the MCP server {server:?} offers, with their arguments. Get one \
                 with {local_prefix}get_prompt."
            ),
            Utility::GetPrompt => format!(
                "Get one prompt of the MCP server {server:?}, filled in with its arguments: the \
                 messages it holds."
            ),
        }
    }

    pub(crate) fn schema(self) -> Value {
        match self {
            Utility::ListResources | Utility::ListPrompts => {
                json!({"type": "object", "properties": {}, "additionalProperties": false})
            }
            Utility::ReadResource => json!({
                "type": "object",
                "properties": {
                    "uri": {"type": "string", "description": "The URI of the resource."}
                },
                "required": ["uri"],
                "additionalProperties": false
            }),
            Utility::GetPrompt => json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The prompt's name."},
                    "arguments": {
                        "type": "object",
                        "description": "The prompt's arguments, by name.",
                        "additionalProperties": {"type": "string"}
                    }
                },
                "required": ["name"],
                "additionalProperties": false
            }),
        }
    }

    /// Runs the utility on `peer`. `args` were validated against [`Self::schema`].
    pub(crate) async fn run(
        self,
        peer: Peer<RoleClient>,
        args: Value,
    ) -> Result<ToolAnswer, ServiceError> {
        let text = |key: &str| args[key].as_str().unwrap_or_default().to_owned();
        Ok(match self {
            Utility::ListResources => {
                let resources = peer.list_all_resources().await?;
                // Templates are optional for a server: one that has none may refuse the list.
                let templates = peer.list_all_resource_templates().await.unwrap_or_default();
                let resources: Vec<Value> = resources
                    .iter()
                    .map(|resource| {
                        pick(
                            resource,
                            &["uri", "name", "title", "description", "mimeType", "size"],
                        )
                    })
                    .collect();
                let templates: Vec<Value> = templates
                    .iter()
                    .map(|template| {
                        pick(
                            template,
                            &["uriTemplate", "name", "title", "description", "mimeType"],
                        )
                    })
                    .collect();
                json!({"resources": resources, "templates": templates}).into_answer()
            }
            Utility::ReadResource => {
                let read = peer
                    .read_resource(ReadResourceRequestParams::new(text("uri")))
                    .await?;
                read_answer(read)
            }
            Utility::ListPrompts => {
                let prompts = peer.list_all_prompts().await?;
                let prompts: Vec<Value> = prompts
                    .iter()
                    .map(|prompt| pick(prompt, &["name", "title", "description", "arguments"]))
                    .collect();
                json!({"prompts": prompts}).into_answer()
            }
            Utility::GetPrompt => {
                let mut params = GetPromptRequestParams::new(text("name"));
                params.arguments = args["arguments"].as_object().cloned();
                prompt_answer(peer.get_prompt(params).await?)
            }
        })
    }
}

/// Whether the server lists a resource or a URI template (a failed list counts as none).
async fn holds_resources(peer: &Peer<RoleClient>) -> bool {
    if peer
        .list_resources(None)
        .await
        .is_ok_and(|listed| !listed.resources.is_empty())
    {
        return true;
    }
    peer.list_resource_templates(None)
        .await
        .is_ok_and(|listed| !listed.resource_templates.is_empty())
}

/// The keys of `item`'s JSON form that a model can use (not icons, annotations or `_meta`).
fn pick(item: &impl serde::Serialize, keys: &[&str]) -> Value {
    let Ok(Value::Object(mut all)) = serde_json::to_value(item) else {
        return Value::Null;
    };
    let picked: Map<String, Value> = keys
        .iter()
        .filter_map(|key| all.remove(*key).map(|value| ((*key).to_owned(), value)))
        .collect();
    Value::Object(picked)
}

/// A resource's contents: text as text, images as images, other binaries said, not shown.
fn read_answer(read: ReadResourceResult) -> ToolAnswer {
    let mut content = ToolContent::new();
    let mut texts = Vec::new();
    let mut any_image = false;
    for part in read.contents {
        match part {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                texts.push(format!("[resource {uri}]\n{text}"));
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => match mime_type.as_deref() {
                Some(mime) if mime.starts_with("image/") => {
                    any_image = true;
                    if !texts.is_empty() {
                        content = content.text(std::mem::take(&mut texts).join("\n"));
                    }
                    content = content.image(blob, mime);
                }
                mime => texts.push(format!(
                    "[resource {uri} ({}), binary, {} base64 characters, not shown]",
                    mime.unwrap_or("unknown type"),
                    blob.len()
                )),
            },
            _ => texts.push("[resource contents of a kind this client cannot show]".to_owned()),
        }
    }
    if any_image {
        if !texts.is_empty() {
            content = content.text(texts.join("\n"));
        }
        return content.into_answer();
    }
    json!({"result": texts.join("\n")}).into_answer()
}

/// A prompt's messages, each with its role and its content as text.
fn prompt_answer(prompt: GetPromptResult) -> ToolAnswer {
    let messages: Vec<Value> = prompt
        .messages
        .into_iter()
        .map(|message| {
            let role = serde_json::to_value(&message.role).unwrap_or(Value::Null);
            json!({"role": role, "content": call_result::describe(message.content)})
        })
        .collect();
    let mut answer = Map::new();
    if let Some(description) = prompt.description {
        answer.insert("description".into(), Value::String(description));
    }
    answer.insert("messages".into(), Value::Array(messages));
    Value::Object(answer).into_answer()
}
