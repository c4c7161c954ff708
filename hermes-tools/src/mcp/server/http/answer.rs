//! A request's answer as one JSON body when nothing needs a stream.
//!
//! In a session of the `initialize` era `rmcp` answers every request on an SSE stream: a
//! priming event (an id and `retry`, no data), the answer, the end of the body; three writes
//! on the wire for what is one message. Streamable HTTP lets the server choose
//! `application/json` instead for a POST whose client accepts it (every client must accept
//! both), and a priming event matters only for a stream the client may resume. So the gate
//! reads the stream's first events for a short while ([`JSON_WINDOW`]):
//!
//! - the answer (a JSON-RPC result or error) comes first: it is sent alone as the JSON body,
//!   in one write, and the rest of the stream (its end) is read to its end in the background
//!   (so that whoever watches the stream sees it end, as after an SSE answer);
//! - anything else comes first (a progress or log notification, a question to the client, a
//!   keep-alive comment), the stream ends without an answer (its tool closed it: SSE polling),
//!   or the window passes with nothing but the priming event (a long call): the stream is sent
//!   as `rmcp` wrote it, the events read so far first, so nothing is lost and a long call's
//!   client holds the priming event it resumes from.
//!
//! The 2026-07-28 era has no stream to resume: `rmcp` answers its requests as JSON itself
//! (`json_response`), falling back to SSE when a notification comes first.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use futures_util::{FutureExt, StreamExt};
use serde::Deserialize as _;
use serde::de::IgnoredAny;

/// How long an answer may take and still go out as one JSON body; a longer one is streamed.
pub(crate) const JSON_WINDOW: Duration = Duration::from_millis(250);

/// What an SSE frame of `rmcp`'s holds.
#[derive(Debug, PartialEq, Eq)]
enum Frame<'a> {
    /// Events without data (a priming event): nothing for the client but an id.
    Priming,
    /// One event whose data is a JSON-RPC response (a result or an error).
    Answer(&'a str),
    /// Anything else: a notification, a request, a comment, several events.
    Other,
}

/// `response`, an SSE stream answering one request, as one JSON body if its answer comes
/// first and within [`JSON_WINDOW`]; else as it was.
pub(crate) async fn prefer_json(response: Response) -> Response {
    if !response.status().is_success() || !super::has_content_type(&response, "text/event-stream") {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let mut frames = body.into_data_stream();
    let mut held: Vec<Bytes> = Vec::new();
    let deadline = tokio::time::Instant::now() + JSON_WINDOW;
    let mut ended = false;
    let mut failed = None;
    loop {
        let Ok(next) = tokio::time::timeout_at(deadline, frames.next()).await else {
            break;
        };
        let frame = match next {
            Some(Ok(frame)) => frame,
            Some(Err(err)) => {
                failed = Some(err);
                break;
            }
            None => {
                ended = true;
                break;
            }
        };
        match read_frame(&frame) {
            Frame::Priming => held.push(frame),
            Frame::Answer(json) => {
                // The answer's bytes within the frame, not a copy of them.
                let body = frame.slice_ref(json.as_bytes());
                // The stream's end usually follows at once; else it is awaited aside.
                match frames.next().now_or_never() {
                    Some(None) => {}
                    _ => {
                        tokio::spawn(async move { while frames.next().await.is_some() {} });
                    }
                }
                parts.headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                parts.headers.remove(header::CACHE_CONTROL);
                parts.headers.remove(header::CONTENT_LENGTH);
                return Response::from_parts(parts, Body::from(body));
            }
            Frame::Other => {
                held.push(frame);
                break;
            }
        }
    }
    let read = futures_util::stream::iter(held.into_iter().map(Ok::<_, axum::Error>));
    let body = if ended {
        Body::from_stream(read)
    } else {
        let rest = futures_util::stream::iter(failed.map(Err));
        let rest = rest.chain(frames);
        Body::from_stream(read.chain(rest))
    };
    Response::from_parts(parts, body)
}

/// What `frame` holds (`rmcp` writes one event per frame).
///
/// One pass over its lines (events end at an empty line), as the SSE format reads them.
fn read_frame(frame: &[u8]) -> Frame<'_> {
    let Ok(text) = std::str::from_utf8(frame) else {
        return Frame::Other;
    };
    let mut data = None;
    let mut events = 0;
    let mut in_event = false;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            in_event = false;
            continue;
        }
        if !in_event {
            in_event = true;
            events += 1;
        }
        if line.starts_with(':') {
            // A comment (a keep-alive): the stream is being held open.
            return Frame::Other;
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            if data.is_some() {
                // Multi-line data: not how rmcp writes a message.
                return Frame::Other;
            }
            if !value.is_empty() {
                data = Some(value);
            }
        }
    }
    let Some(data) = data else {
        return Frame::Priming;
    };
    if events == 1 && is_answer(data) {
        Frame::Answer(data)
    } else {
        Frame::Other
    }
}

/// Whether `message`, a JSON-RPC message `rmcp` wrote, is a response: a result or an error,
/// with an id (`null` counts, as JSON-RPC has an error answering a request whose id could
/// not be read; rmcp leaves such an id out, and its answer is then streamed).
fn is_answer(message: &str) -> bool {
    begins_as_rmcp_answers(message)
        || serde_json::from_str::<Members>(message)
            .is_ok_and(|message| !message.method && message.id && (message.result || message.error))
}

/// Whether `message` begins as `rmcp` writes a response to a request with a number for an
/// id, `{"jsonrpc":"2.0","id":7,"result":` (or `"error":`): serde writes a struct's members in
/// their order, and rmcp's response types are `jsonrpc`, `id`, then `result` or `error`. Its
/// requests put `method` where an answer's `result` is, and its notifications have no id, so
/// this beginning is an answer's alone. `false` says nothing: another beginning (a string id,
/// other spacing) is read whole.
fn begins_as_rmcp_answers(message: &str) -> bool {
    let Some(rest) = message.strip_prefix(r#"{"jsonrpc":"2.0","id":"#) else {
        return false;
    };
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &rest[digits..];
    digits > 0 && (rest.starts_with(r#","result":"#) || rest.starts_with(r#","error":"#))
}

/// Which members a JSON-RPC message has (`null` counts), read without building it: an answer
/// may be large.
#[derive(serde::Deserialize)]
struct Members {
    #[serde(default, deserialize_with = "present")]
    method: bool,
    #[serde(default, deserialize_with = "present")]
    id: bool,
    #[serde(default, deserialize_with = "present")]
    result: bool,
    #[serde(default, deserialize_with = "present")]
    error: bool,
}

/// `true` for a member that is there, whatever its value.
fn present<'de, D: serde::Deserializer<'de>>(value: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(value).map(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    #[test]
    fn frames_are_told_apart_as_rmcp_writes_them() {
        assert_eq!(
            read_frame(b"data: \nid: 0/3\nretry: 3000\n\n"),
            Frame::Priming
        );
        let answer = b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nid: 1/3\n\n";
        assert_eq!(
            read_frame(answer),
            Frame::Answer(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        );
        let error = b"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-1}}\n\n";
        assert!(matches!(read_frame(error), Frame::Answer(_)));
        let progress =
            b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n";
        assert_eq!(read_frame(progress), Frame::Other);
        let question =
            b"data: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\"}\n\n";
        assert_eq!(read_frame(question), Frame::Other);
        assert_eq!(read_frame(b":\n\n"), Frame::Other);
        assert_eq!(read_frame(b"data: {\"id\":1,\"resu"), Frame::Other);
        // A null member is there: an error answering a request whose id could not be read.
        let unread = b"data: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700}}\n\n";
        assert!(matches!(read_frame(unread), Frame::Answer(_)));
        let no_id = b"data: {\"jsonrpc\":\"2.0\",\"result\":{}}\n\n";
        assert_eq!(read_frame(no_id), Frame::Other);
        // Other orders, spacing and ids are read whole.
        let late_id = b"data: {\"result\":{},\"jsonrpc\":\"2.0\",\"id\":\"a\"}\n\n";
        assert!(matches!(read_frame(late_id), Frame::Answer(_)));
        let spaced = b"data: {\"jsonrpc\": \"2.0\", \"id\": -3, \"error\": {}}\n\n";
        assert!(matches!(read_frame(spaced), Frame::Answer(_)));
        let asked = b"data: {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"sampling/createMessage\",\"params\":{}}\n\n";
        assert_eq!(read_frame(asked), Frame::Other);
        let not_an_object = b"data: [1,2]\n\n";
        assert_eq!(read_frame(not_an_object), Frame::Other);
        // Two events in one frame, a CRLF frame.
        let two = b"data: \nid: 0/1\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        assert_eq!(read_frame(two), Frame::Other);
        let crlf = b"data: {\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{}}\r\nid: 1/3\r\n\r\n";
        assert_eq!(
            read_frame(crlf),
            Frame::Answer(r#"{"jsonrpc":"2.0","id":12,"result":{}}"#)
        );
    }

    fn sse(frames: &'static [&'static [u8]]) -> Response {
        let stream = futures_util::stream::iter(
            frames
                .iter()
                .map(|f| Ok::<_, axum::Error>(Bytes::from_static(f))),
        );
        let mut response = Response::new(Body::from_stream(stream));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        response
    }

    async fn read(response: Response) -> (String, String) {
        let media = response.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_owned();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        (media, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn an_answer_that_comes_first_is_one_json_body() {
        let response = sse(&[
            b"data: \nid: 0/1\nretry: 3000\n\n",
            b"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":true}}\nid: 1/1\n\n",
        ]);
        let (media, body) = read(prefer_json(response).await).await;
        assert_eq!(media, "application/json");
        assert_eq!(body, r#"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#);
    }

    #[tokio::test]
    async fn a_notification_first_or_a_closed_stream_keeps_every_event() {
        const PROGRESS: &[&[u8]] = &[
            b"data: \nid: 0/1\nretry: 3000\n\n",
            b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\nid: 1/1\n\n",
            b"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\nid: 2/1\n\n",
        ];
        let (media, body) = read(prefer_json(sse(PROGRESS)).await).await;
        assert_eq!(media, "text/event-stream");
        let whole: Vec<u8> = PROGRESS.concat();
        assert_eq!(body.as_bytes(), whole.as_slice());

        // A tool closed the stream (SSE polling): priming events only, then the end.
        const CLOSED: &[&[u8]] = &[
            b"data: \nid: 0/1\nretry: 3000\n\n",
            b"data: \nid: 1/1\nretry: 10\n\n",
        ];
        let (media, body) = read(prefer_json(sse(CLOSED)).await).await;
        assert_eq!(media, "text/event-stream");
        assert_eq!(body.as_bytes(), CLOSED.concat().as_slice());
    }

    #[tokio::test]
    async fn a_long_answer_is_streamed_from_its_priming_event() {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
        let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
            let frame = receiver.recv().await?;
            Some((Ok::<_, axum::Error>(frame), receiver))
        });
        let mut response = Response::new(Body::from_stream(stream));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        sender
            .send(Bytes::from_static(b"data: \nid: 0/4\nretry: 3000\n\n"))
            .unwrap();
        // Nothing more within the window: the stream is answered, priming event first.
        let response = prefer_json(response).await;
        assert_eq!(response.status(), StatusCode::OK);
        sender
            .send(Bytes::from_static(
                b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
            ))
            .unwrap();
        drop(sender);
        let (media, body) = read(response).await;
        assert_eq!(media, "text/event-stream");
        assert!(body.starts_with("data: \nid: 0/4"), "{body}");
        assert!(body.ends_with("\"result\":{}}\n\n"), "{body}");
    }
}
