//! Cheap tests for the formats that have no literal to look for (Telegram and Discord bot
//! tokens, Twilio SIDs): each holds whenever its rule's pattern can match, and costs one
//! `memchr` pass plus a few byte comparisons per candidate.

use std::sync::LazyLock;

use memchr::{memchr_iter, memmem};

fn is_token(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-')
}

/// Does `bytes[from..from + len]` exist and hold only bytes satisfying `test`?
fn run(bytes: &[u8], from: usize, len: usize, test: fn(u8) -> bool) -> bool {
    bytes
        .get(from..from + len)
        .is_some_and(|slice| slice.iter().all(|&b| test(b)))
}

/// `\d{8,}:[A-Za-z0-9_-]{30,}`: a colon with 8 digits before it and 30 token bytes after.
pub(super) fn telegram(bytes: &[u8]) -> bool {
    if bytes.len() < 39 {
        return false;
    }
    memchr_iter(b':', bytes).any(|colon| {
        // The byte before the colon first: in JSON it is almost always a quote.
        colon >= 8
            && bytes[colon - 1].is_ascii_digit()
            && run(bytes, colon - 8, 8, |b| b.is_ascii_digit())
            && run(bytes, colon + 1, 30, is_token)
    })
}

/// `[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.`: a dot with 24 token bytes before it and
/// six token bytes and a dot after.
pub(super) fn discord(bytes: &[u8]) -> bool {
    if bytes.len() < 32 {
        return false;
    }
    memchr_iter(b'.', bytes).any(|dot| {
        dot >= 24
            && bytes.get(dot + 7) == Some(&b'.')
            && run(bytes, dot + 1, 6, is_token)
            && run(bytes, dot - 24, 24, is_token)
    })
}

/// `(?:SK|AC)[0-9a-fA-F]{32}`.
pub(super) fn twilio(bytes: &[u8]) -> bool {
    // A SID is 34 bytes: shorter text (most small answers) has none, and needs no search.
    if bytes.len() < 34 {
        return false;
    }
    // Built once: a finder's set-up costs more than searching a small answer.
    static FINDERS: LazyLock<[memmem::Finder<'static>; 2]> =
        LazyLock::new(|| [memmem::Finder::new(b"SK"), memmem::Finder::new(b"AC")]);
    FINDERS.iter().any(|finder| {
        finder
            .find_iter(bytes)
            .any(|at| run(bytes, at + 2, 32, |b| b.is_ascii_hexdigit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_probe_holds_on_its_format_and_not_on_prose() {
        assert!(telegram(
            b"bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawx"
        ));
        assert!(!telegram(b"at 12:30 on 2024-01-01, {\"a\": 1}"));
        assert!(discord(
            b"MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123"
        ));
        assert!(!discord(b"The end. Next sentence. a.b.c"));
        assert!(twilio(b"SK0123456789abcdef0123456789abcdef"));
        assert!(!twilio(b"ASK SKY ACE ACCOUNT"));
    }
}
