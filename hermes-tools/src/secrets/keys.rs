//! Which key names a secret, and which values are not secrets even under such a key.
//!
//! A key is split into lower-case words (at `_`, `-`, `.`, spaces and camel-case humps:
//! `SecretAccessKey` is `secret access key`, `X-Amz-Signature` is `x amz signature`). It names
//! a secret when one word is a secret word and the words around it do not make it a count, a
//! limit, a path or a cursor:
//!
//! | key | secret? | why |
//! |---|---|---|
//! | `password`, `DB_PASSWORD`, `MYSQLPASSWORD` | yes | a word ends in `password` |
//! | `api_key`, `x-api-key`, `AccountKey`, `SecretAccessKey` | yes | a qualified `key` / `secret` |
//! | `DB_PASS`, `X-Amz-Signature`, `sig`, `AUTH`, `pwd` | yes | weak words, qualified or exact |
//! | `max_tokens`, `token_count`, `tokenizer`, `secretary` | no | a plural, a count, another word |
//! | `nextPageToken`, `GITHUB_TOKEN_FILE`, `secretName` | no | a cursor, a path, a name |
//! | `pass`, `signature`, `author`, `primary_key`, `OLDPWD` | no | too common alone, or no word |
//! | `MAPBOX_KEY`, `private_key_id` | yes | an environment variable's `_KEY`; a key's id |
//!
//! Under a secret key, a value that is a placeholder (`${DB_PASSWORD}`, `<password>`, `null`,
//! `true`), an environment lookup (`os.getenv("X")`, `process.env.X`), the key itself
//! (`password=password`, `token: self.token`), a type (`password: String`) or a mask already
//! (`***`) is left as is: code and docs stay readable, and redaction is idempotent.

/// Words that name a secret wherever they end a word: `DBPASSWORD`, `mytoken`.
const STRONG: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "passwort",
    "kennwort",
    "contraseña",
    "senha",
    "пароль",
    "密码",
    "secret",
    "token",
    "credential",
    "credentials",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "accountkey",
];

/// Words that name a secret only as a whole word.
const EXACT: &[&str] = &["auth", "sig", "cookie", "pwd", "jwt", "bearer"];

/// Words that name a secret only as a whole word beside others (`DB_PASS`, but not `pass: 3`).
const QUALIFIED: &[&str] = &["pass", "pw", "passe", "signature"];

/// Words that make a following `key` (or `keys`) a secret.
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "access",
    "private",
    "account",
    "master",
    "encryption",
    "signing",
    "shared",
    "subscription",
    "client",
    "app",
    "license",
    "session",
    "service",
    "role",
    "webhook",
    "storage",
    "admin",
    "consumer",
    "deploy",
    "secret",
];

/// A word after the secret word that makes the key describe the secret rather than hold it.
const HARMLESS_AFTER: &[&str] = &[
    "count",
    "counts",
    "limit",
    "limits",
    "max",
    "min",
    "length",
    "len",
    "size",
    "type",
    "types",
    "kind",
    "url",
    "uri",
    "urls",
    "endpoint",
    "file",
    "files",
    "path",
    "dir",
    "name",
    "names",
    "id",
    "ids",
    "expiry",
    "expires",
    "expiration",
    "ttl",
    "timeout",
    "lifetime",
    "header",
    "headers",
    "env",
    "var",
    "field",
    "prefix",
    "format",
    "policy",
    "required",
    "enabled",
    "usage",
    "budget",
    "index",
    "source",
    "provider",
    "issuer",
    "store",
    "cache",
    "hint",
    "label",
    "ref",
    "arn",
    "rotation",
    "created",
    "updated",
    "at",
    "set",
    "stdin",
    "method",
    "mode",
    "scheme",
    "manager",
    "process",
    "version",
    "strategy",
    "config",
    "class",
];

/// A word before the secret word that makes the key a count or a cursor.
const HARMLESS_BEFORE: &[&str] = &[
    "max",
    "min",
    "num",
    "total",
    "input",
    "output",
    "completion",
    "prompt",
    "reasoning",
    "cached",
    "next",
    "page",
    "prev",
    "previous",
    "continuation",
    "pagination",
    "cursor",
    "has",
    "is",
    "use",
    "show",
    "require",
    "requires",
    "enable",
    "needs",
    "no",
];

/// Splits a key into lower-case words at non-alphanumerics and camel-case humps.
pub(super) fn words(key: &str) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let hump = i > 0
            && c.is_uppercase()
            && (chars[i - 1].is_lowercase()
                || (chars[i - 1].is_uppercase()
                    && chars.get(i + 1).is_some_and(|n| n.is_lowercase())));
        if hump && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Does this key (of an assignment, a JSON member, a flag, an XML element) name a secret?
pub(super) fn names_secret(key: &str) -> bool {
    let words = words(key);
    let word = |i: usize| words.get(i).map(String::as_str);
    (0..words.len()).any(|i| {
        let w = words[i].as_str();
        // Where the phrase naming the secret starts: `api key` starts at `api`.
        let start = if matches!(w, "key" | "keys")
            && i > 0
            && KEY_QUALIFIERS.contains(&words[i - 1].as_str())
        {
            Some(i - 1)
        } else if w == "material" && i > 0 && words[i - 1] == "key" {
            // `key_material` (Hermes' JSON keys)
            Some(i - 1)
        } else if w == "key"
            && i + 1 == words.len()
            && i > 0
            && is_env_name(key)
            && !NOT_SECRET_KEYS.contains(&words[i - 1].as_str())
        {
            // `MAPBOX_KEY=…`: an environment variable ending in `_KEY`, for any vendor.
            Some(i)
        } else if STRONG.iter().any(|s| w.ends_with(s))
            || EXACT.contains(&w)
            || (QUALIFIED.contains(&w) && words.len() > 1)
        {
            Some(i)
        } else {
            None
        };
        start.is_some_and(|start| {
            // A service account's `private_key_id` names its key in the issuer's records:
            // masked, unlike other ids.
            let key_id = word(i + 1) == Some("id") && words[start..=i] == ["private", "key"];
            let described =
                !key_id && word(i + 1).is_some_and(|after| HARMLESS_AFTER.contains(&after));
            let counted = start > 0 && HARMLESS_BEFORE.contains(&words[start - 1].as_str());
            !described && !counted
        })
    })
}

/// Words before an environment variable's `_KEY` that make it no credential.
const NOT_SECRET_KEYS: &[&str] = &[
    "public",
    "primary",
    "foreign",
    "partition",
    "sort",
    "cache",
    "idempotency",
    "unique",
    "row",
    "range",
    "lookup",
    "group",
    "routing",
    "hot",
    "short",
    "shortcut",
];

/// `MAPBOX_KEY`: an environment variable's name (ASCII upper case, digits, underscores).
fn is_env_name(key: &str) -> bool {
    key.bytes().any(|b| b.is_ascii_uppercase())
        && key
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Is this a header that carries a credential whole (`Authorization`, `Cookie`)? In text,
/// their own rules mask them (keeping the scheme); as a JSON member the value goes whole.
pub(super) fn is_credential_header(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    )
}

/// Values that are not secrets whatever the key: placeholders, literals, lookups, masks.
pub(super) fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let v = lower.trim();
    // Nothing alphanumeric (`//`, `-`, `...`): punctuation, not a secret.
    if !v.chars().any(char::is_alphanumeric) || is_mask(value) {
        return true;
    }
    if matches!(
        v,
        "true"
            | "false"
            | "null"
            | "none"
            | "nil"
            | "undefined"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "required"
            | "optional"
            | "enabled"
            | "disabled"
            | "redacted"
            | "hidden"
            | "masked"
            | "n/a"
            | "-"
            | "basic"
            | "bearer"
            | "digest"
            | "oauth"
            | "oauth2"
            | "token"
            | "password"
            | "secret"
            | "apikey"
            | "api_key"
            | "|"
            | ">"
            | "|-"
            | ">-"
    ) {
        return true;
    }
    // Placeholders and template references.
    let wrapped = |open: &str, close: &str| v.starts_with(open) && v.ends_with(close);
    if wrapped("${", "}") || wrapped("{{", "}}") || wrapped("<", ">") || wrapped("%(", ")s") {
        return true;
    }
    // `$DB_PASSWORD`: a shell variable (upper case), not a literal.
    if let Some(name) = value.strip_prefix('$')
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    {
        return true;
    }
    // Environment lookups and calls: code that names where the secret comes from.
    const LOOKUPS: &[&str] = &[
        "os.getenv",
        "os.environ",
        "process.env",
        "env::var",
        "std::env::var",
        "system.getenv",
        "env[",
        "env.fetch",
        "getenv(",
        "env(",
        "import.meta.env",
        "secrets.",
        "vault(",
    ];
    if LOOKUPS.iter().any(|l| v.starts_with(l)) {
        return true;
    }
    is_call(v)
}

/// `get_password()`, `read_secret(`: an identifier (path) and an opening parenthesis.
fn is_call(v: &str) -> bool {
    let Some(open) = v.find('(') else {
        return false;
    };
    let callee = &v[..open];
    !callee.is_empty()
        && callee
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && callee
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':'))
        && (v.len() == open + 1 || v.ends_with(')'))
}

/// `***`, `********`, `sk-pro...wxyz`, `[REDACTED …]`: what a mask (ours or another's) looks
/// like.
pub(super) fn is_mask(value: &str) -> bool {
    if value.len() >= 3 && value.bytes().all(|b| b == b'*') {
        return true;
    }
    if value.starts_with("[REDACTED") {
        return true;
    }
    let chars: Vec<char> = value.chars().collect();
    chars.len() == 13 && chars[6..9] == ['.', '.', '.']
}

/// `password=password`, `token: self.token`, `"apiKey": apiKey`: the value names the key (code),
/// compared without case and separators.
pub(super) fn echoes_key(key: &str, value: &str) -> bool {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let is_path = value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'));
    let last = |s: &str| s.rsplit(['.', '-']).next().unwrap_or(s).to_owned();
    is_path
        && !value.is_empty()
        && squash(&last(value)) == squash(&last(key.trim_start_matches('-')))
}

/// `password: String`, `token: &str`, `api_key: Option<…>`: a type annotation, not a value.
pub(super) fn is_type(value: &str) -> bool {
    const TYPES: &[&str] = &[
        "string",
        "str",
        "&str",
        "option",
        "vec",
        "bool",
        "boolean",
        "number",
        "int",
        "integer",
        "float",
        "bytes",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "f32",
        "f64",
        "self",
        "secret",
        "secretstring",
        "secretbox",
        "box",
        "arc",
        "rc",
        "cow",
        "any",
        "object",
        "unknown",
        "optional",
        "list",
        "dict",
        "char",
        "secretstr",
        "pathbuf",
        "path",
        "text",
        "varchar",
        "uuid",
        "sensitive",
    ];
    let head = value
        .split(['<', '[', ',', ';', ')', '>', ' ', '|', '='])
        .next()
        .unwrap_or(value)
        .trim_start_matches('&');
    TYPES.contains(&head.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_into_words_at_separators_and_humps() {
        assert_eq!(words("SecretAccessKey"), ["secret", "access", "key"]);
        assert_eq!(words("X-Amz-Signature"), ["x", "amz", "signature"]);
        assert_eq!(words("OPENAI_API_KEY"), ["openai", "api", "key"]);
        assert_eq!(words("APIKey"), ["api", "key"]);
        assert_eq!(words("éPASSWORD"), ["é", "password"]);
        assert_eq!(words("Ümlaut_password"), ["ümlaut", "password"]);
    }

    #[test]
    fn secret_keys_are_named_and_lookalikes_are_not() {
        for key in [
            "password",
            "DB_PASSWORD",
            "MYSQLPASSWORD",
            "api_key",
            "x-api-key",
            "apiKey",
            "AccountKey",
            "SecretAccessKey",
            "aws_secret_access_key",
            "DB_PASS",
            "X-Amz-Signature",
            "sig",
            "AUTH",
            "pwd",
            "client_secret",
            "SECRET_KEY_BASE",
            "auth_token",
            "id_token",
            "passphrase",
            "Ümlaut_password",
            "пароль",
            "credentials",
            "service_role_key",
            "Ocp-Apim-Subscription-Key",
            "SharedAccessKey",
            "session_token",
            "mot_de_passe",
            "API key",
            "MAPBOX_KEY",
            "WEATHERAPI_KEY",
            "private_key_id",
        ] {
            assert!(names_secret(key), "{key} names a secret");
        }
        for key in [
            "max_tokens",
            "token_count",
            "tokenizer",
            "secretary",
            "nextPageToken",
            "GITHUB_TOKEN_FILE",
            "secretName",
            "pass",
            "signature",
            "author",
            "primary_key",
            "OLDPWD",
            "token_type",
            "api_key_id",
            "passwordless",
            "input_tokens",
            "session",
            "keys",
            "cookies",
            "has_password",
            "password_min_length",
            "PUBLIC_KEY",
            "cache_key",
            "KEY",
            "MAPBOX_KEY_ID",
        ] {
            assert!(!names_secret(key), "{key} does not name a secret");
        }
    }

    #[test]
    fn placeholders_lookups_types_and_masks_are_not_values() {
        for value in [
            "${DB_PASSWORD}",
            "{{ secret }}",
            "<your-password>",
            "null",
            "true",
            "$API_TOKEN",
            "os.getenv(\"X\")",
            "process.env.TOKEN",
            "get_password()",
            "***",
            "sk-pro...wxyz",
            "[REDACTED PRIVATE KEY]",
        ] {
            assert!(is_placeholder(value), "{value}");
        }
        for value in ["hunter2", "$ecr3t", "correct horse", "abc(def", "12345"] {
            assert!(!is_placeholder(value), "{value}");
        }
        assert!(echoes_key("password", "password"));
        assert!(echoes_key("api_key", "self.api_key"));
        assert!(echoes_key("--token", "args.token"));
        assert!(!echoes_key("password", "mypassword1"));
        assert!(is_type("String"));
        assert!(is_type("Option<String>"));
        assert!(is_type("&str"));
        assert!(!is_type("hunter2"));
    }
}
