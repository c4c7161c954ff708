//! The credential formats [`redact`](super::redact) knows: one [`Rule`] per format or family.
//!
//! A rule is plain data: a pattern, which part of a match is the secret, how it is masked, and
//! the literal markers the prefilter looks for. Every match of a rule's pattern contains one of
//! its markers (ASCII case-insensitively), or the rule has a probe that holds whenever the pattern
//! can match: that is what lets text without any marker skip every pattern (see `prefilter`).
//!
//! Patterns have no look-around (the regex crate has none); what Hermes does with
//! `(?<![A-Za-z0-9_-])` is an [`Edge`] here, checked on the match's positions, so a separator
//! between two credentials is never consumed by the first and the second is found too.

use super::probes;

/// How a secret is written back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mask {
    /// Hermes' mask: under 18 characters `***`, otherwise the first 6 and last 4 kept
    /// (`sk-pro...wxyz`), so a reader can tell which key it was.
    Partial,
    /// The whole secret becomes `***`: values of `password=…`-style assignments.
    Full,
    /// The whole match becomes this label (a private key block).
    Label(&'static str),
}

/// Characters a token may not touch on either side, so that `task-force-…` is not an `sk-` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Edge {
    /// `[A-Za-z0-9_-]`, Hermes' token boundary.
    Token,
    /// `[A-Za-z0-9_+/-]`: also the standard base64 alphabet, so a JWT-looking run inside an
    /// embedded image is left alone.
    Base64,
}

impl Edge {
    pub(super) fn holds(self, byte: u8) -> bool {
        byte.is_ascii_alphanumeric()
            || matches!(byte, b'_' | b'-')
            || (self == Edge::Base64 && matches!(byte, b'+' | b'/'))
    }
}

/// Which part of a match is the secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    /// The whole match.
    Whole,
    /// One capture group; the rest of the match (a scheme, a key name, a host) is kept.
    Group(usize),
    /// A `key` group and a value in one of the groups `v1`..`v5`: the value is the secret when
    /// the key names one (see `keys`).
    Assignment,
    /// `<key>value</close>`: the value, when `key` names a secret and `close` matches it.
    Element,
    /// A PEM BEGIN line: the block runs to its END line or, without one (a truncated paste, a
    /// `head` of the file), over the base64 body and its `Name: value` headers, line by line
    /// with real or JSON-escaped newlines, until a line that is neither.
    Pem,
    /// A `key` group naming a secret and a YAML block scalar indicator (`password: |`) ending
    /// the match's line: the secret is the block's lines below it (see `yaml`).
    YamlBlock,
}

/// The BEGIN line of a private key block.
pub(super) const PEM_BEGIN: &str = r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----";
/// Its END line.
pub(super) const PEM_END: &str = r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----";

/// What the secret must look like besides matching, for formats whose prefix is also common in
/// ordinary identifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Looks {
    /// Anything the pattern matches.
    Any,
    /// Random: a digit, or both upper- and lower-case letters (`sk_filter_trim_cap` is code).
    Random,
    /// A credential rather than a word: 20 characters or more, or a digit, or an upper-case
    /// letter after the first, or one of `._~+/=` (`Bearer authentication` is prose).
    Credential,
    /// Base64 of `user:password`, as HTTP Basic credentials are (`Basic 20240101` is not).
    BasicAuth,
}

/// One credential format (or a family sharing a shape).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rule {
    /// What it finds, for tests and messages.
    pub name: &'static str,
    /// Literals, one of which occurs (ASCII case-insensitively) in every match. A `?` stands for
    /// an optional separator: nothing, ` `, `_`, `-` or `.`.
    pub markers: &'static [&'static str],
    /// For a format without a literal: a cheap test that holds whenever the pattern can match.
    pub probe: Option<fn(&[u8]) -> bool>,
    /// The pattern (regex crate syntax).
    pub pattern: &'static str,
    /// Which part is the secret.
    pub part: Part,
    /// How it is written back.
    pub mask: Mask,
    /// What the whole match may not touch.
    pub edge: Option<Edge>,
    /// What the secret must look like.
    pub looks: Looks,
}

impl Rule {
    /// A vendor token: the whole match, masked partially, not touching other token characters.
    const fn token(
        name: &'static str,
        markers: &'static [&'static str],
        pattern: &'static str,
    ) -> Rule {
        Rule {
            name,
            markers,
            probe: None,
            pattern,
            part: Part::Whole,
            mask: Mask::Partial,
            edge: Some(Edge::Token),
            looks: Looks::Any,
        }
    }

    /// A secret in capture group `group` of a larger match, masked partially.
    const fn group(
        name: &'static str,
        markers: &'static [&'static str],
        pattern: &'static str,
        group: usize,
    ) -> Rule {
        Rule {
            part: Part::Group(group),
            edge: None,
            ..Rule::token(name, markers, pattern)
        }
    }

    /// `key = value` in all its spellings: the value is masked whole.
    const fn assignment(
        name: &'static str,
        markers: &'static [&'static str],
        pattern: &'static str,
    ) -> Rule {
        Rule {
            part: Part::Assignment,
            mask: Mask::Full,
            edge: None,
            ..Rule::token(name, markers, pattern)
        }
    }

    const fn random(self) -> Rule {
        self.looks(Looks::Random)
    }

    const fn credential(self) -> Rule {
        self.looks(Looks::Credential)
    }

    const fn looks(self, looks: Looks) -> Rule {
        Rule { looks, ..self }
    }

    const fn full(self) -> Rule {
        Rule {
            mask: Mask::Full,
            ..self
        }
    }

    const fn edge(self, edge: Edge) -> Rule {
        Rule {
            edge: Some(edge),
            ..self
        }
    }

    const fn probe(self, probe: fn(&[u8]) -> bool) -> Rule {
        Rule {
            probe: Some(probe),
            ..self
        }
    }
}

/// The words that make a key name a secret, as markers (see [`SECRET_KEY`] for the pattern and
/// `keys::names_secret` for the decision).
const KEY_MARKERS: &[&str] = &[
    "pass",
    "pw",
    "secret",
    "token",
    "credential",
    "auth",
    "sig",
    "cookie",
    "jwt",
    "bearer",
    "key?material",
    "api?key",
    "access?key",
    "private?key",
    "account?key",
    "master?key",
    "encryption?key",
    "signing?key",
    "shared?key",
    "subscription?key",
    "client?key",
    "app?key",
    "license?key",
    "session?key",
    "service?key",
    "role?key",
    "webhook?key",
    "storage?key",
    "admin?key",
    "consumer?key",
    "deploy?key",
    "_key",
    "kennwort",
    "contrase",
    "senha",
    "пароль",
    "Пароль",
    "ПАРОЛЬ",
    "密码",
];

/// A key naming a secret: an identifier containing one of the words of [`KEY_MARKERS`] (the
/// decision whether it really names a secret is `keys::names_secret`'s). No `\b`: the regex
/// crate's is Unicode-aware, so `éPASSWORD` has none before `PASSWORD`; the key simply starts
/// at the first ASCII identifier character. At most 64 characters either side of the word:
/// unbounded, a long run of `passpass…` costs the regex engine a quadratic search. The part
/// before the word is lazy: what follows a key (a separator, a quote, a space, `%`, `>`) is never
/// a key character, so the key always runs to the end of its identifier and the match is the
/// same either way, but the capture engine, which re-reads every match, tries the word at the
/// start first instead of backtracking through every split (2 to 3 times less per match).
macro_rules! secret_key {
    () => {
        concat!(
            r"(?P<key>[A-Za-z0-9_.-]{0,64}?(?:",
            r"pass(?:word|wd|phrase|code|e)?|pwd?|secret|token|credentials?|auth(?:orization)?",
            r"|sig(?:nature)?|cookie|jwt|bearer|material",
            r"|(?:api|access|private|account|master|encryption|signing|shared|subscription",
            r"|client|app|license|session|service|role|webhook|storage|admin|consumer|deploy)",
            r"[ _.-]?keys?|_key",
            r"|kennwort|passwort|contraseña|senha|пароль|密码",
            r")[A-Za-z0-9_.-]{0,64})",
        )
    };
}

/// A value: JSON-escaped quotes, double, single or back quotes (spaces and all), or a bare word.
/// A bare word does not start with what opens a structure or continues an operator (`{`, `[`,
/// `(`, `=`, `:`), and stops at whitespace, quotes, `&` (query strings), `,` and `;` (lists,
/// connection strings), `\` (an escape of the surrounding JSON) and `<>`.
macro_rules! value {
    () => {
        concat!(
            r#"(?:\\"(?P<v1>(?:[^"\\\r\n]|\\[^"\r\n])*)\\""#,
            r#"|"(?P<v2>(?:[^"\\\r\n]|\\.)*)""#,
            r#"|'(?P<v3>[^'\r\n]*)'"#,
            r#"|`(?P<v4>[^`\r\n]*)`"#,
            r#"|(?P<v5>[^\s"'`&,;\\<>{}\[\]()=:][^\s"'`&,;\\<>]*))"#,
        )
    };
}

/// `key = value`, `key: value`, `"key": "value"`, `key => value`, `key := value`, with the key
/// quoted or JSON-escaped or not; spaces and tabs (never a newline) around the separator.
const SECRET_KEY: &str = concat!(
    "(?i)",
    secret_key!(),
    r#"(?:\\?["'`])?[ \t]*(?:=>|:=|=|:)[ \t]*"#,
    value!()
);

/// `password%3Dhunter2`: an assignment URL-encoded once or twice (a query inside a `redirect`
/// or `state` parameter). The value runs over unreserved characters and escapes up to an
/// encoded `&` (`%26`, `%2526`).
const ENCODED_ASSIGNMENT: &str = concat!(
    "(?i)",
    secret_key!(),
    r"%(?:25)?3D",
    r"(?P<v5>(?:[A-Za-z0-9._~+/!*-]|%(?:[013-9a-f][0-9a-f]|2[0-47-9a-f])",
    r"|%25(?:[013-9a-f][0-9a-f]|2[0-57-9a-f]))+)",
);

/// `password: |`, `client_secret: >-`: a YAML block scalar under a secret key; its value is on
/// the lines below (one space at most before the indicator, as the markers say).
const YAML_BLOCK: &str = concat!(
    "(?i)",
    secret_key!(),
    r#"["']?: ?[|>][1-9+-]{0,2}[ \t]*(?:#[^\r\n]*)?\r?\n"#,
);

/// `--password hunter2`, `--api-key sk-…`: a command-line flag naming a secret, then its value.
const SECRET_FLAG: &str = concat!(
    "(?i)--",
    secret_key!(),
    r"[ \t]+",
    r#"(?:"(?P<v2>(?:[^"\\\r\n]|\\.)*)"|'(?P<v3>[^'\r\n]*)'"#,
    r#"|(?P<v5>[^\s"'`&,;\\<>{}\[\]()=:-][^\s"'`&,;\\<>]*))"#
);

/// `<password>hunter2</password>`, `<ApiKey>…</ApiKey>`.
const SECRET_ELEMENT: &str = concat!(
    "(?i)<",
    secret_key!(),
    r"(?:[ \t][^<>]*)?>(?P<value>[^<\r\n]+)</(?P<close>[\w.:-]+)>"
);

/// .NET `appSettings`: `<add key="DbPassword" value="…"/>`.
const KEY_VALUE_ATTRIBUTES: &str =
    r#"(?i)key=\\?"(?P<key>[^"\\]+)\\?"[ \t]+value=\\?"(?P<v2>[^"\\]*)\\?""#;

/// Every format, most specific first (the order only matters for readability: each rule runs
/// over the original text, and overlapping secrets are merged).
pub(super) const RULES: &[Rule] = &[
    // Private keys: the BEGIN line here, the end of the block found by `pem`.
    Rule {
        part: Part::Pem,
        mask: Mask::Label("[REDACTED PRIVATE KEY]"),
        edge: None,
        ..Rule::token(
            "PEM private key block (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP)",
            &["private key"],
            PEM_BEGIN,
        )
    },
    // Keys and values.
    Rule::assignment(
        "secret assignment (key = value, key: value, JSON member)",
        KEY_MARKERS,
        SECRET_KEY,
    ),
    Rule::assignment(
        "URL-encoded secret assignment (password%3D…)",
        &["%3d", "%253d"],
        ENCODED_ASSIGNMENT,
    ),
    Rule {
        part: Part::YamlBlock,
        ..Rule::assignment(
            "YAML block scalar under a secret key (password: |)",
            &[":?|", ":?>"],
            YAML_BLOCK,
        )
    },
    Rule::assignment(
        "secret command-line flag (--password value)",
        KEY_MARKERS,
        SECRET_FLAG,
    ),
    Rule {
        part: Part::Element,
        ..Rule::assignment("secret XML element", KEY_MARKERS, SECRET_ELEMENT)
    },
    Rule::assignment(
        "secret .NET appSettings entry",
        &["key=\"", "key=\\\""],
        KEY_VALUE_ATTRIBUTES,
    ),
    Rule::group(
        ".netrc password",
        &["login"],
        concat!(
            r"(?i)(?:machine[ \t\r\n]+\S+|default)",
            r"[ \t\r\n]+login[ \t\r\n]+\S+[ \t\r\n]+password[ \t\r\n]+(\S+)",
        ),
        1,
    )
    .full(),
    // Headers.
    Rule::group(
        "Authorization header, any scheme",
        &["authorization"],
        concat!(
            r#"(?i)authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?"#,
            r#"(?:[A-Za-z][A-Za-z0-9.+-]*[ \t]+)?([^\s"'\\,;]+)"#,
        ),
        1,
    ),
    Rule::group(
        "Digest / AWS SigV4 credential parameters",
        &["response=", "signature="],
        r#"(?i)(?:response|signature)=\\?"?([A-Za-z0-9+/=_-]{16,})"#,
        1,
    )
    .full(),
    Rule::group(
        "Cookie / Set-Cookie header",
        &["cookie"],
        r#"(?i)cookie:[ \t]*([^\r\n"'\\]+)"#,
        1,
    )
    .full(),
    Rule::group(
        "bare Bearer token",
        &["bearer"],
        r"(?i)bearer[ \t]+([A-Za-z0-9._~+/=-]{8,})",
        1,
    )
    .credential(),
    Rule::group(
        "bare Basic credentials",
        &["basic"],
        r"(?i)basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})",
        1,
    )
    .looks(Looks::BasicAuth),
    // URLs.
    Rule::group(
        "URL password (user:password@host, also redis://:pw@ and passwords containing @)",
        &["@"],
        // The password runs to the last `@` before the host: the authority ends at `/`, `?`,
        // `#`, whitespace or a quote, and the greedy class backs off to its last `@`.
        r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#:"'<>\\]*:([^\s/?#"'<>\\]+)@"#,
        1,
    )
    .full(),
    Rule::group(
        "URL key query parameter (?key=…, &key=…)",
        &["?key=", "&key=", ";key="],
        r#"(?i)[?&;]key=([^&#\s"'<>\\]+)"#,
        1,
    )
    .full()
    .credential(),
    Rule::group(
        "URL bare token (https://TOKEN@host)",
        &["@"],
        r#"[A-Za-z][A-Za-z0-9+.-]*://([^\s/?#:@"'<>\\]{8,})@"#,
        1,
    )
    .credential(),
    Rule::group(
        "Slack webhook URL",
        &["hooks.slack.com/"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{20,})",
        1,
    ),
    Rule::group(
        "Discord webhook URL",
        &["/api/webhooks/"],
        r"/api/webhooks/\d+/([A-Za-z0-9_-]{20,})",
        1,
    ),
    // Tokens without a literal prefix: found by a probe.
    Rule {
        part: Part::Group(1),
        mask: Mask::Full,
        ..Rule::token(
            "Telegram bot token",
            &[],
            r"(?:bot)?\d{8,10}:([A-Za-z0-9_-]{30,})",
        )
    }
    .probe(probes::telegram),
    Rule::token(
        "Discord bot token",
        &[],
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
    )
    .probe(probes::discord),
    Rule::token(
        "Twilio API key / account SID",
        &[],
        r"(?:SK|AC)[0-9a-fA-F]{32}",
    )
    .probe(probes::twilio),
    // JWTs (header only, header.payload, or whole).
    Rule::token(
        "JSON Web Token",
        &["eyj"],
        r"eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}",
    )
    .edge(Edge::Base64),
    // AI providers.
    Rule::token(
        "OpenAI / Anthropic / OpenRouter / DeepSeek key (sk-…)",
        &["sk-"],
        r"sk-[A-Za-z0-9_-]{10,}",
    ),
    Rule::token(
        "Stripe / ElevenLabs secret key (sk_…)",
        &["sk_"],
        r"sk_[A-Za-z0-9_]{10,}",
    )
    .random(),
    Rule::token("Google API key", &["aiza"], r"AIza[A-Za-z0-9_-]{30,}"),
    Rule::token(
        "Google OAuth client secret",
        &["gocspx-"],
        r"GOCSPX-[A-Za-z0-9_-]{20,}",
    ),
    Rule::token(
        "Google OAuth access token",
        &["ya29."],
        r"ya29\.[A-Za-z0-9_-]{20,}",
    ),
    Rule::token(
        "Google OAuth refresh token",
        &["1//0"],
        r"1//0[A-Za-z0-9_-]{30,}",
    ),
    Rule::token("Hugging Face token", &["hf_"], r"hf_[A-Za-z0-9]{10,}").random(),
    Rule::token(
        "Hugging Face org token",
        &["api_org_"],
        r"api_org_[A-Za-z0-9]{20,}",
    ),
    Rule::token("Groq key", &["gsk_"], r"gsk_[A-Za-z0-9]{10,}").random(),
    Rule::token("xAI key", &["xai-"], r"xai-[A-Za-z0-9]{30,}"),
    Rule::token("Perplexity key", &["pplx-"], r"pplx-[A-Za-z0-9]{10,}"),
    Rule::token("Replicate token", &["r8_"], r"r8_[A-Za-z0-9]{10,}"),
    Rule::token(
        "Fireworks key",
        &["fw-", "fw_", "fpk_"],
        r"(?:fw[-_]|fpk_)[A-Za-z0-9]{20,}",
    ),
    Rule::token("Cerebras key", &["csk-"], r"csk-[A-Za-z0-9]{20,}").random(),
    Rule::token("Pinecone key", &["pcsk_"], r"pcsk_[A-Za-z0-9_]{20,}"),
    Rule::token(
        "LangSmith key",
        &["lsv2_"],
        r"lsv2_(?:pt|sk)_[A-Za-z0-9_]{20,}",
    ),
    Rule::token(
        "agent service keys of Hermes' list (Tavily, Exa, Firecrawl, Fal, AgentMail, Mem0, …)",
        &[
            "tvly-",
            "exa_",
            "fc-",
            "fal_",
            "am_",
            "mem0_",
            "brv_",
            "hsk-",
            "retaindb_",
            "syt_",
            "bb_live_",
        ],
        r"(?:tvly-|exa_|fc-|fal_|am_|mem0_|brv_|hsk-|retaindb_|syt_|bb_live_)[A-Za-z0-9_-]{10,}",
    )
    .random(),
    Rule::token(
        "Fernet / Codex encrypted token",
        &["gaaaa"],
        r"gAAAA[A-Za-z0-9_=-]{20,}",
    )
    .edge(Edge::Base64),
    // Code hosting and package registries.
    Rule::token(
        "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_)",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"gh[pousr]_[A-Za-z0-9]{10,}",
    ),
    Rule::token(
        "GitHub fine-grained token",
        &["github_pat_"],
        r"github_pat_[A-Za-z0-9_]{10,}",
    ),
    Rule::token(
        "GitLab token (glpat-, gldt-, glrt-, glptt-, glcbt-, glft-, glimt-, gloas-, glsoat-, …)",
        &[
            "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-",
            "glagent-", "glwt-", "glffct-",
        ],
        r"gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent|wt|ffct)-[A-Za-z0-9_-]{20,}",
    ),
    Rule::token(
        "GitLab runner registration token",
        &["gr1348941"],
        r"GR1348941[A-Za-z0-9_-]{20,}",
    ),
    Rule::token("npm token", &["npm_"], r"npm_[A-Za-z0-9]{10,}").random(),
    Rule::token("PyPI token", &["pypi-"], r"pypi-[A-Za-z0-9_-]{10,}").random(),
    Rule::token("RubyGems key", &["rubygems_"], r"rubygems_[a-f0-9]{48}"),
    Rule::token("NuGet key", &["oy2"], r"oy2[a-z0-9]{43}"),
    Rule::token("crates.io token", &["cio"], r"cio[A-Za-z0-9]{32}").random(),
    Rule::token(
        "Docker Hub token",
        &["dckr_pat_", "dckr_oat_"],
        r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}",
    ),
    Rule::token(
        "JFrog Artifactory key / reference token",
        &["akcp", "cmvmdgtu"],
        r"(?:AKCp[A-Za-z0-9]{60,}|cmVmdGtu[A-Za-z0-9]{50,})",
    ),
    Rule::token(
        "Postman key",
        &["pmak-"],
        r"PMAK-[A-Za-z0-9]{24}-[A-Za-z0-9]{34}",
    ),
    // Cloud and infrastructure.
    Rule::token(
        "AWS access key ID (AKIA, ASIA, ABIA, ACCA, A3T)",
        &["akia", "asia", "abia", "acca", "a3t"],
        r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}",
    ),
    Rule::group(
        "AWS secret access key beside its key ID (CSV, aws configure list)",
        &["akia", "asia"],
        concat!(
            r#"(?:AKIA|ASIA)[A-Z0-9]{16}[ \t]*[,;:|\t"' ]+[ \t]*"#,
            r"([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])",
        ),
        1,
    )
    .full(),
    Rule::token(
        "Azure AD client secret",
        &["q~"],
        r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
    ),
    Rule::token(
        "DigitalOcean token (dop_v1_, doo_v1_, dor_v1_)",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"do[opr]_v1_[A-Za-z0-9]{10,}",
    ),
    Rule::token(
        "HashiCorp Vault token",
        &["hvs.", "hvb.", "hvr."],
        r"hv[sbr]\.[A-Za-z0-9_-]{20,}",
    ),
    Rule::token(
        "Terraform Cloud token",
        &["atlasv1"],
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
    ),
    Rule::token("Heroku key", &["hrku-"], r"HRKU-[A-Za-z0-9_-]{20,}"),
    Rule::token(
        "Fly.io token",
        &["fm1_", "fm2_"],
        r"fm[12]_[A-Za-z0-9+/=_-]{20,}",
    ),
    Rule::token(
        "Supabase token",
        &["sbp_", "sb_secret_"],
        r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})",
    ),
    Rule::token("Netlify token", &["nfp_"], r"nfp_[A-Za-z0-9]{20,}"),
    Rule::token("Render key", &["rnd_"], r"rnd_[A-Za-z0-9]{20,}").random(),
    Rule::token(
        "PlanetScale token",
        &["pscale_"],
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{20,}",
    ),
    Rule::token("Pulumi token", &["pul-"], r"pul-[a-f0-9]{40}"),
    Rule::token("Databricks token", &["dapi"], r"dapi[a-f0-9]{32}(?:-\d+)?"),
    Rule::token(
        "Doppler token",
        &[
            "dp.pt.",
            "dp.st.",
            "dp.sa.",
            "dp.ct.",
            "dp.scim.",
            "dp.audit.",
        ],
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{20,}",
    ),
    Rule::token(
        "Grafana token",
        &["glsa_", "glc_"],
        r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/=]{32,})",
    ),
    Rule::token(
        "New Relic key",
        &["nrak-", "nrii-", "nrjs-"],
        r"NR(?:AK|II|JS)-[A-Za-z0-9]{20,}",
    ),
    Rule::token(
        "Sentry token",
        &["sntrys_", "sntryu_"],
        r"sntry[su]_[A-Za-z0-9+/=_-]{30,}",
    ),
    // Messaging, payments, SaaS.
    Rule::token(
        "Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xoxo-)",
        &[
            "xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xoxe.",
        ],
        r"(?:xoxe\.)?xox[abeoprs]-[A-Za-z0-9_-]{10,}",
    ),
    Rule::token("Slack app token", &["xapp-"], r"xapp-\d+-[A-Za-z0-9-]{10,}"),
    Rule::token(
        "Stripe key (live/test secret, restricted, publishable)",
        &["rk_live_", "rk_test_", "pk_live_", "pk_test_"],
        r"[rp]k_(?:live|test)_[A-Za-z0-9]{10,}",
    ),
    Rule::token(
        "Stripe webhook secret",
        &["whsec_"],
        r"whsec_[A-Za-z0-9+/=]{10,}",
    ),
    Rule::token(
        "SendGrid key (both halves)",
        &["sg."],
        r"SG\.[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]{10,})?",
    ),
    Rule::token("Mailgun key", &["key-"], r"key-[0-9a-zA-Z]{32}"),
    Rule::token("Mailchimp key", &["-us"], r"[0-9a-f]{32}-us[0-9]{1,2}"),
    Rule::token(
        "Shopify token (shpat_, shpca_, shppa_, shpss_)",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
    ),
    Rule::token(
        "Atlassian / Bitbucket token",
        &["atatt", "atctt", "atbb"],
        r"AT(?:ATT|CTT|BB)[A-Za-z0-9_=.-]{20,}",
    ),
    Rule::token(
        "Linear key",
        &["lin_api_", "lin_oauth_"],
        r"lin_(?:api|oauth)_[A-Za-z0-9]{20,}",
    ),
    Rule::token(
        "Notion token",
        &["secret_", "ntn_"],
        r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{10,})",
    ),
    Rule::token("Figma token", &["figd_"], r"figd_[A-Za-z0-9_-]{20,}"),
    Rule::token(
        "Square token",
        &["sq0", "eaaa"],
        r"(?:sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{20,}|EAAA[A-Za-z0-9_-]{40,})",
    ),
    Rule::token(
        "Meta / Facebook access token",
        &["eaa"],
        r"EAA[A-Za-z0-9]{60,}",
    ),
    Rule::token("Dropbox token", &["sl."], r"sl\.[A-Za-z0-9_-]{60,}"),
    // Keys of their own kind.
    Rule::token(
        "age secret key",
        &["age-secret-key-1"],
        r"AGE-SECRET-KEY-1[0-9A-Z]{50,}",
    ),
    Rule::token(
        "BIP32 extended private key",
        &["xprv", "tprv"],
        r"[xt]prv[1-9A-HJ-NP-Za-km-z]{100,}",
    ),
    Rule {
        edge: None,
        ..Rule::token(
            "password hash (crypt: bcrypt, sha512crypt, yescrypt, apr1, argon2)",
            &[
                "$2$", "$2a$", "$2b$", "$2x$", "$2y$", "$5$", "$6$", "$7$", "$y$", "$gy$",
                "$apr1$", "$argon2",
            ],
            r"\$(?:2[abxy]?|5|6|7|y|gy|apr1|argon2(?:id|i|d))\$[A-Za-z0-9./$=,+-]{20,}",
        )
    }
    .full(),
];
