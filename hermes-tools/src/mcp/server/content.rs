//! The linked resources and prompts (`#[resource]`, `#[prompt]`) as MCP serves them:
//! listings, reads and gets, completion, and subscriptions to resource updates.
//!
//! Text that reaches the client is masked like any answer; a binary resource is passed as its
//! bytes. Every refusal says what to fix: an unknown URI or prompt names the ones there are,
//! a missing argument is named.

use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::sync::Mutex;
use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, Prompt as McpPrompt,
    PromptArgument, PromptMessage, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, ResourceUpdatedNotificationParam, Role,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};

use super::convert::content_block;
use crate::call::answer::ContentPart;
use crate::call::combinators::{BoxFuture, caught};
use crate::mcp::prompts::{PROMPTS, PromptRole};
use crate::mcp::resources::{self, RESOURCES, ResourceBody};
use crate::secrets::echoed;

/// Whether anything is linked to serve: the capabilities are declared only then.
pub(super) fn has_resources() -> bool {
    !RESOURCES.is_empty()
}

/// Whether any prompt is linked.
pub(super) fn has_prompts() -> bool {
    !PROMPTS.is_empty()
}

/// `resources/list`: the resources with a fixed URI.
pub(super) fn list_resources() -> ListResourcesResult {
    let resources = RESOURCES
        .iter()
        .filter(|declared| !declared.is_template())
        .map(|declared| {
            let mut resource = Resource::new(declared.uri, declared.name);
            resource.description = Some(declared.description.to_owned());
            resource.mime_type = Some(declared.mime_type.to_owned());
            resource
        })
        .collect();
    ListResourcesResult::with_all_items(resources)
}

/// `resources/templates/list`: the resources whose URI is a template.
pub(super) fn list_templates() -> ListResourceTemplatesResult {
    let templates = RESOURCES
        .iter()
        .filter(|declared| declared.is_template())
        .map(|declared| {
            let mut template = ResourceTemplate::new(declared.uri, declared.name);
            template.description = Some(declared.description.to_owned());
            template.mime_type = Some(declared.mime_type.to_owned());
            template
        })
        .collect();
    ListResourceTemplatesResult::with_all_items(templates)
}

/// The error for a URI no resource has.
fn unknown_uri(uri: &str) -> ErrorData {
    let known: Vec<&str> = RESOURCES.iter().map(|declared| declared.uri).collect();
    let uri = echoed(uri);
    ErrorData::resource_not_found(
        format!(
            "Unknown resource: {uri:?}. Read one of resources/list, or a URI of a template of \
             resources/templates/list ({}).",
            known.join(", ")
        ),
        Some(json!({"uri": uri})),
    )
}

/// `resources/read`.
pub(super) async fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let (declared, values) = resources::matching(uri).ok_or_else(|| unknown_uri(uri))?;
    let body = guarded(|| (declared.read)(&values))
        .await
        .map_err(|message| {
            ErrorData::internal_error(
                format!(
                    "reading {:?} failed: {}",
                    echoed(uri),
                    crate::secrets::redact(&message)
                ),
                None,
            )
        })?;
    let contents = match body {
        ResourceBody::Text(text) => ResourceContents::text(crate::secrets::redact(&text), uri),
        ResourceBody::Blob(base64) => ResourceContents::blob(base64, uri),
    };
    Ok(ReadResourceResult::new(vec![
        contents.with_mime_type(declared.mime_type),
    ]))
}

/// The outcome of a generated resource reader or prompt getter, a panic in it (when called
/// or polled) being an error the client is told, as a tool's panic is.
async fn guarded<T>(
    start: impl FnOnce() -> BoxFuture<'static, Result<T, String>>,
) -> Result<T, String> {
    let panicked = |_| "it panicked".to_owned();
    let future = std::panic::catch_unwind(AssertUnwindSafe(start)).map_err(panicked)?;
    caught(future).await.map_err(panicked)?
}

/// The URIs one session subscribed to, kept in the session's state.
#[derive(Default)]
pub(super) struct Subscriptions {
    uris: Mutex<BTreeSet<String>>,
    /// Whether a task already sends this session the updates of its URIs.
    followed: AtomicBool,
}

impl Subscriptions {
    /// Subscribes to `uri`, which must name a resource; the first subscription of a session
    /// starts sending it `notifications/resources/updated`, until the client goes.
    pub(super) fn subscribe(
        self: &Arc<Self>,
        uri: &str,
        peer: &Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        resources::matching(uri).ok_or_else(|| unknown_uri(uri))?;
        self.uris.lock().insert(uri.to_owned());
        if !self.followed.swap(true, Ordering::AcqRel) {
            tokio::spawn(send_updates(Arc::clone(self), peer.clone()));
        }
        Ok(())
    }

    /// Ends the subscription to `uri` (none: nothing to do).
    pub(super) fn unsubscribe(&self, uri: &str) {
        self.uris.lock().remove(uri);
    }
}

/// Sends `peer` an update of each URI it subscribed to, while its transport is open.
async fn send_updates(subscriptions: Arc<Subscriptions>, peer: Peer<RoleServer>) {
    let wanted = |uri: &str| subscriptions.uris.lock().contains(uri);
    let notify = |uri: String| {
        let peer = peer.clone();
        async move {
            let params = ResourceUpdatedNotificationParam::new(uri);
            peer.notify_resource_updated(params).await.is_ok()
        }
    };
    // A session's client may go without a failed send to say so.
    let closed = async {
        let mut check = tokio::time::interval(std::time::Duration::from_secs(1));
        while !peer.is_transport_closed() {
            check.tick().await;
        }
    };
    tokio::select! {
        () = follow_updates(wanted, notify) => {}
        () = closed => {}
    }
}

/// Calls `notify` with each URI that [`resources::updated`] names and `wanted` accepts, in
/// order, until `notify` reports that the client can no longer be reached: the updates of a
/// legacy session's `resources/subscribe` and of a `subscriptions/listen` stream alike.
pub(super) async fn follow_updates<Sent>(
    wanted: impl Fn(&str) -> bool,
    mut notify: impl FnMut(String) -> Sent,
) where
    Sent: std::future::Future<Output = bool>,
{
    let (sender, mut updates) = tokio::sync::mpsc::unbounded_channel();
    // Registered while this runs: dropped with it, and then no longer told.
    let _sink: Arc<resources::UpdateSink> = {
        let sink: Arc<resources::UpdateSink> = Arc::new(move |uri: &str| {
            let _ = sender.send(uri.to_owned());
        });
        resources::listen(&sink);
        sink
    };
    while let Some(uri) = updates.recv().await {
        if wanted(&uri) && !notify(uri).await {
            return;
        }
    }
}

/// The URIs of `requested` that name a resource (by its URI or a template's): those a
/// `subscriptions/listen` stream is acknowledged, the others being left out of its filter.
pub(super) fn known_uris(requested: &[String]) -> Vec<String> {
    requested
        .iter()
        .filter(|uri| resources::matching(uri).is_some())
        .cloned()
        .collect()
}

/// `prompts/list`.
pub(super) fn list_prompts() -> ListPromptsResult {
    let prompts = PROMPTS
        .iter()
        .map(|declared| {
            let arguments = declared
                .arguments
                .iter()
                .map(|argument| {
                    let mut listed = PromptArgument::new(argument.name);
                    listed.description =
                        (!argument.description.is_empty()).then(|| argument.description.to_owned());
                    listed.required = Some(argument.required);
                    listed
                })
                .collect();
            McpPrompt::new(declared.name, Some(declared.description), Some(arguments))
        })
        .collect();
    ListPromptsResult::with_all_items(prompts)
}

/// `prompts/get`.
pub(super) async fn get(params: GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let name = params.name.as_str();
    let Some(declared) = crate::mcp::prompts::find(name) else {
        let known: Vec<&str> = PROMPTS.iter().map(|declared| declared.name).collect();
        let name = echoed(name);
        return Err(ErrorData::invalid_params(
            format!(
                "Unknown prompt: {name:?}. Get one of: {}.",
                known.join(", ")
            ),
            Some(json!({"prompt": name, "prompts": known})),
        ));
    };
    let given: Vec<(String, String)> = params
        .arguments
        .unwrap_or_default()
        .into_iter()
        .map(|(key, value)| match value {
            Value::String(text) => (key, text),
            other => (key, other.to_string()),
        })
        .collect();
    let missing = declared.missing(&given);
    if !missing.is_empty() {
        return Err(ErrorData::invalid_params(
            format!(
                "Prompt {name:?} needs the argument(s) {}; give each as a string.",
                missing.join(", ")
            ),
            Some(json!({"prompt": name, "missing": missing})),
        ));
    }
    let prompt = guarded(|| (declared.get)(&given))
        .await
        .map_err(|message| {
            ErrorData::internal_error(
                format!(
                    "prompt {name:?} failed: {}",
                    crate::secrets::redact(&message)
                ),
                None,
            )
        })?;
    let messages = prompt
        .messages()
        .iter()
        .map(|(role, part)| {
            let role = match role {
                PromptRole::User => Role::User,
                PromptRole::Assistant => Role::Assistant,
            };
            PromptMessage::new(role, content_block(&masked(part)))
        })
        .collect();
    let mut result = GetPromptResult::new(messages);
    result.description = Some(declared.description.to_owned());
    Ok(result)
}

/// `part` with credentials masked in what it says.
fn masked(part: &ContentPart) -> ContentPart {
    let mut part = part.clone();
    match &mut part {
        ContentPart::Text { text } => *text = crate::secrets::redact(text).into_owned(),
        ContentPart::Resource {
            text: Some(text), ..
        } => *text = crate::secrets::redact(text).into_owned(),
        _ => {}
    }
    part
}

/// `completion/complete`: the declaration's completer's suggestions (at most 100), else none.
pub(super) fn complete(params: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let completer = match &params.r#ref {
        Reference::Prompt(reference) => {
            crate::mcp::prompts::find(&reference.name)
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("Unknown prompt: {:?}.", echoed(&reference.name)),
                        None,
                    )
                })?
                .complete
        }
        Reference::Resource(reference) => {
            resources::find(&reference.uri)
                .ok_or_else(|| unknown_uri(&reference.uri))?
                .complete
        }
        _ => {
            return Err(ErrorData::invalid_params(
                "completion/complete completes a `ref/prompt` or a `ref/resource` argument",
                None,
            ));
        }
    };
    let (argument, typed) = (&params.argument.name, &params.argument.value);
    let mut values = match completer {
        Some(complete) => std::panic::catch_unwind(|| complete(argument, typed))
            .map_err(|_| ErrorData::internal_error("the completer panicked", None))?,
        None => Vec::new(),
    };
    let total = values.len();
    values.truncate(CompletionInfo::MAX_VALUES);
    let mut info =
        CompletionInfo::new(values).map_err(|message| ErrorData::internal_error(message, None))?;
    info.total = u32::try_from(total).ok();
    info.has_more = Some(total > CompletionInfo::MAX_VALUES);
    Ok(CompleteResult::new(info))
}
