//! A machine client's credentials (`grant = "client_credentials"`): the settings turned into
//! rmcp's [`ClientCredentialsConfig`], the secret or key read only when a token is fetched,
//! and the authorization server's refusals turned into what the operator should check.

use rmcp::transport::auth::ClientCredentialsConfig;

use crate::config::OAuthConfig;
use crate::mcp::client::expand::expand;

/// The client's credentials for the server at `url` (its OAuth resource, RFC 8707).
pub(super) fn credentials(
    config: &OAuthConfig,
    url: &str,
) -> Result<ClientCredentialsConfig, String> {
    // The configuration is checked when read: a machine client has an ID.
    let client_id = config
        .client_id
        .clone()
        .ok_or_else(|| "`grant = \"client_credentials\"` needs `oauth.client_id`".to_owned())?;
    let scopes = config.scopes.clone();
    let resource = Some(url.to_owned());
    if let Some(key) = &config.private_key_jwt {
        return jwt::credentials(client_id, key, scopes, resource);
    }
    Ok(ClientCredentialsConfig::ClientSecret {
        client_id,
        client_secret: secret(config)?,
        scopes,
        resource,
    })
}

/// The client secret: `client_secret` with its `${NAME}`s expanded, or `client_secret_file`'s
/// content without its trailing newline.
fn secret(config: &OAuthConfig) -> Result<String, String> {
    if let Some(secret) = &config.client_secret {
        return expand("oauth.client_secret", secret);
    }
    let Some(path) = &config.client_secret_file else {
        return Err(
            "`grant = \"client_credentials\"` needs `oauth.client_secret`, \
                    `oauth.client_secret_file` or `oauth.private_key_jwt`"
                .to_owned(),
        );
    };
    let text = std::fs::read_to_string(path).map_err(|err| {
        format!(
            "cannot read `oauth.client_secret_file` {}: {err}",
            path.display()
        )
    })?;
    let secret = text.trim_end_matches(['\n', '\r']);
    if secret.is_empty() {
        return Err(format!(
            "`oauth.client_secret_file` {} is empty: write the client's secret in it",
            path.display()
        ));
    }
    Ok(secret.to_owned())
}

/// What to tell the operator when getting a token failed with `error` (rmcp's, which never
/// holds the secret: the token request's body is not in it).
pub(super) fn refused(config: &OAuthConfig, error: &str) -> String {
    let credential = if let Some(key) = &config.private_key_jwt {
        format!(
            "the key in `oauth.private_key_jwt.key_file` {} (its public key registered \
             there, signing with {:?})",
            key.key_file.display(),
            key.algorithm
        )
    } else if let Some(path) = &config.client_secret_file {
        format!(
            "the secret in `oauth.client_secret_file` {}",
            path.display()
        )
    } else {
        "`oauth.client_secret`".to_owned()
    };
    if error.contains("invalid_client") {
        format!(
            "its authorization server refused this client's credentials ({error}): check \
             that `oauth.client_id` is the ID it registered and that {credential} is this \
             client's"
        )
    } else if error.contains("unauthorized_client") || error.contains("unsupported_grant_type") {
        format!(
            "its authorization server does not let this client use the client_credentials \
             grant ({error}): ask its operator to allow it, or authorize as a user (remove \
             `grant`)"
        )
    } else if error.contains("signing key") {
        format!("{credential} cannot sign: {error}; give a PEM private key of that algorithm")
    } else {
        format!("getting a token with this client's credentials failed: {error}")
    }
}

#[cfg(feature = "mcp-oauth-jwt")]
mod jwt {
    use rmcp::transport::auth::{ClientCredentialsConfig, JwtSigningAlgorithm};

    use crate::config::{JwtAlgorithm, PrivateKeyJwt};

    /// `private_key_jwt` credentials: the key read from its file.
    pub(super) fn credentials(
        client_id: String,
        key: &PrivateKeyJwt,
        scopes: Vec<String>,
        resource: Option<String>,
    ) -> Result<ClientCredentialsConfig, String> {
        let signing_key = std::fs::read(&key.key_file).map_err(|err| {
            format!(
                "cannot read `oauth.private_key_jwt.key_file` {}: {err}",
                key.key_file.display()
            )
        })?;
        Ok(ClientCredentialsConfig::PrivateKeyJwt {
            client_id,
            signing_key,
            signing_algorithm: match key.algorithm {
                JwtAlgorithm::Rs256 => JwtSigningAlgorithm::RS256,
                JwtAlgorithm::Rs384 => JwtSigningAlgorithm::RS384,
                JwtAlgorithm::Rs512 => JwtSigningAlgorithm::RS512,
                JwtAlgorithm::Es256 => JwtSigningAlgorithm::ES256,
                JwtAlgorithm::Es384 => JwtSigningAlgorithm::ES384,
            },
            // The assertion's audience is the authorization server's issuer, as SEP-1046 has it.
            token_endpoint_audience: None,
            scopes,
            resource,
        })
    }
}

#[cfg(not(feature = "mcp-oauth-jwt"))]
mod jwt {
    use rmcp::transport::auth::ClientCredentialsConfig;

    use crate::config::PrivateKeyJwt;

    /// Without the signer, no assertion (the configuration check says so first).
    pub(super) fn credentials(
        _client_id: String,
        _key: &PrivateKeyJwt,
        _scopes: Vec<String>,
        _resource: Option<String>,
    ) -> Result<ClientCredentialsConfig, String> {
        Err(
            "`oauth.private_key_jwt` needs hermes-tools built with the feature \
             `mcp-oauth-jwt`"
                .to_owned(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(secret: Option<&str>, file: Option<&std::path::Path>) -> OAuthConfig {
        let mut config = OAuthConfig::default();
        config.grant = crate::config::OAuthGrant::ClientCredentials;
        config.client_id = Some("agent".to_owned());
        config.client_secret = secret.map(str::to_owned);
        config.client_secret_file = file.map(std::path::Path::to_path_buf);
        config
    }

    #[test]
    fn a_secret_file_is_read_without_its_newline_and_never_shown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        std::fs::write(&path, "s3cr3t-value\n").unwrap();
        let got = credentials(&machine(None, Some(&path)), "https://h/mcp").unwrap();
        let ClientCredentialsConfig::ClientSecret {
            client_secret,
            resource,
            ..
        } = &got
        else {
            panic!("a secret's credentials: {got:?}");
        };
        assert_eq!(client_secret, "s3cr3t-value");
        assert_eq!(resource.as_deref(), Some("https://h/mcp"));
        assert!(!format!("{got:?}").contains("s3cr3t"));

        std::fs::write(&path, "\n").unwrap();
        let empty = credentials(&machine(None, Some(&path)), "https://h/mcp").unwrap_err();
        assert!(empty.contains("is empty"), "{empty}");
        let missing = dir.path().join("absent");
        let err = credentials(&machine(None, Some(&missing)), "https://h/mcp").unwrap_err();
        assert!(
            err.contains("cannot read `oauth.client_secret_file`"),
            "{err}"
        );
    }

    #[test]
    fn an_unset_secret_variable_is_named_and_a_refusal_says_what_to_check() {
        let err = credentials(
            &machine(Some("${HERMES_SURELY_UNSET_SECRET}"), None),
            "https://h/mcp",
        )
        .unwrap_err();
        assert!(err.contains("HERMES_SURELY_UNSET_SECRET"), "{err}");
        let config = machine(Some("hunter2"), None);
        let refused = refused(
            &config,
            "Client credentials error: Token exchange failed: invalid_client",
        );
        assert!(refused.contains("`oauth.client_id`"), "{refused}");
        assert!(refused.contains("`oauth.client_secret`"), "{refused}");
        assert!(!refused.contains("hunter2"), "{refused}");
        let grant = refused_grant(&config);
        assert!(grant.contains("allow it"), "{grant}");
    }

    fn refused_grant(config: &OAuthConfig) -> String {
        refused(config, "Token exchange failed: unauthorized_client")
    }
}
