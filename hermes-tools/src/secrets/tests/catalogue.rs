//! The credential catalogue as test data: one row per format, `(name, sample, secret)`.
//!
//! `sample` is a realistic text holding a credential (a line of a config file, a header, a
//! command, a JSON answer) and `secret` the part of it that must never reach the model. The
//! values are random, shaped like the real ones; none is live.
//!
//! This file stands alone (no `use`) so that other crates' tests can include it with
//! `#[path = ".../hermes-tools/src/secrets/tests/catalogue.rs"] mod catalogue;` and run the
//! same table through their own paths (a tool's answer, terminal output, a file read).

// Public for the other crates' tests that include this file by `#[path]`.
#![allow(unreachable_pub)]

/// `(name, sample text holding the secret, the secret that must vanish)`, one row per format.
pub const CATALOGUE: &[(&str, &str, &str)] = &[
    (
        "OpenAI project key",
        "calling the API with sk-proj-qEjHD6HVIgE6C8WscR85pYXfx-Uon8COTjE3j1cB1lOE_6ez now",
        "sk-proj-qEjHD6HVIgE6C8WscR85pYXfx-Uon8COTjE3j1cB1lOE_6ez",
    ),
    (
        "OpenAI legacy key",
        "key: sk-zOEBUx3KxOEqYdl5wHiDP4QLQnUx3YPVGxDS366sG1SazsSP",
        "sk-zOEBUx3KxOEqYdl5wHiDP4QLQnUx3YPVGxDS366sG1SazsSP",
    ),
    (
        "OpenAI service account key",
        "svc sk-svcacct-KJsfDoFZZdSB_T3xqpnNUCTYh1jSeuyTqhXnW87Q",
        "sk-svcacct-KJsfDoFZZdSB_T3xqpnNUCTYh1jSeuyTqhXnW87Q",
    ),
    (
        "Anthropic key",
        "anthropic=sk-ant-api03-WlQh4tdLEgJezhhwunYzFuPOcYTYcj2HZS4WcmugOFct_syr7Bcp6WZAkXK_6f-ZZZN2cCYFWk9A5e1Iiv_L2YoekS6GfAA",
        "sk-ant-api03-WlQh4tdLEgJezhhwunYzFuPOcYTYcj2HZS4WcmugOFct_syr7Bcp6WZAkXK_6f-ZZZN2cCYFWk9A5e1Iiv_L2YoekS6GfAA",
    ),
    (
        "Anthropic admin key",
        "admin key sk-ant-admin01-SNtPjYCsqALaqxWBLlXvXFdW4M6sUMqfgFA9ukpjbGsjuWG0wS34rrGpsJxVWmQatg6KDxFWr9o9vydE",
        "sk-ant-admin01-SNtPjYCsqALaqxWBLlXvXFdW4M6sUMqfgFA9ukpjbGsjuWG0wS34rrGpsJxVWmQatg6KDxFWr9o9vydE",
    ),
    (
        "OpenRouter key",
        "Using 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 for routing",
        "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",
    ),
    (
        "GitHub classic token",
        "remote: ghp_Q52xVRqLRnCZ9LJA67FpssEuHUPgre1yaUNT",
        "ghp_Q52xVRqLRnCZ9LJA67FpssEuHUPgre1yaUNT",
    ),
    (
        "GitHub OAuth token",
        "oauth gho_eS3eYr80Mg0wHsduR7lKURrlCLxxkJNj0xG2",
        "gho_eS3eYr80Mg0wHsduR7lKURrlCLxxkJNj0xG2",
    ),
    (
        "GitHub app installation token",
        "installation ghs_oILgWoiJzS8pvyx2UhEuGfv1Nm9VP6CHAIeV expires soon",
        "ghs_oILgWoiJzS8pvyx2UhEuGfv1Nm9VP6CHAIeV",
    ),
    (
        "GitHub fine-grained token",
        "gh auth login --with 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",
        "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",
    ),
    (
        "GitLab personal token",
        "git clone with glpat-AUuZ0C7vBn_OBh6z98bD",
        "glpat-AUuZ0C7vBn_OBh6z98bD",
    ),
    (
        "GitLab deploy token",
        "deploy gldt-MO0tUHL0mqnqfytjfUfr",
        "gldt-MO0tUHL0mqnqfytjfUfr",
    ),
    (
        "GitLab runner token",
        "runner registered: glrt-J-8Zm3bYkta38hI76LFyOJGt",
        "glrt-J-8Zm3bYkta38hI76LFyOJGt",
    ),
    (
        "Slack bot token",
        "slack xoxb-384608916094-9361427274327-9qga0NKUYlQWl5Dj81NzQp1n",
        "xoxb-384608916094-9361427274327-9qga0NKUYlQWl5Dj81NzQp1n",
    ),
    (
        "Slack user token",
        "user token xoxp-846171907649-397602333643-8462249475431-954aae37a20b6f5ec770088e5d79298a",
        "xoxp-846171907649-397602333643-8462249475431-954aae37a20b6f5ec770088e5d79298a",
    ),
    (
        "Slack app token",
        "socket mode xapp-1-A057NBRXBWZ-8696748121266-0975e8850247b4c40b03d877532e58e9f19ad0b6537ea9c323577af7ab090a87",
        "xapp-1-A057NBRXBWZ-8696748121266-0975e8850247b4c40b03d877532e58e9f19ad0b6537ea9c323577af7ab090a87",
    ),
    (
        "Slack webhook URL",
        "POST https://hooks.slack.com/services/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",
        "1AqGVDmf8jGYtoRRiV8BNLtQ",
    ),
    (
        "Discord webhook URL",
        "https://discord.com/api/webhooks/119820936438394194/ydryDUyQMGnWm1Rcusxyx8YSfYYD9F9_4B1h3OK2gz06d0BYYcNYoieODPoIZxnzSmrg",
        "ydryDUyQMGnWm1Rcusxyx8YSfYYD9F9_4B1h3OK2gz06d0BYYcNYoieODPoIZxnzSmrg",
    ),
    (
        "Discord bot token",
        "bot login MTtamTsnd5SlK7ZE3zXOqKas3I.UKB7_4.SVGjMSYo6hCgX2o5-MpxMZLFUVj8mL17GhhhXZ",
        "MTtamTsnd5SlK7ZE3zXOqKas3I.UKB7_4.SVGjMSYo6hCgX2o5-MpxMZLFUVj8mL17GhhhXZ",
    ),
    (
        "Telegram bot token",
        "317637432:AAfbDdrjB9rvv7UpI0okUz-9DUdRGDTz-6C",
        "AAfbDdrjB9rvv7UpI0okUz-9DUdRGDTz-6C",
    ),
    (
        "Telegram bot API URL",
        "https://api.telegram.org/bot1462132384:AAhyaABqjobx6Ccasae_g2qDToItXZEUBFA/sendMessage",
        "AAhyaABqjobx6Ccasae_g2qDToItXZEUBFA",
    ),
    (
        "Google API key",
        "maps key AIzaorWl6sb0oQNqLToA7OrQgwPs1dLYKHejYkM",
        "AIzaorWl6sb0oQNqLToA7OrQgwPs1dLYKHejYkM",
    ),
    (
        "Google OAuth client secret",
        "client 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",
        "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",
    ),
    (
        "Google OAuth access token",
        "access ya29.a0_MeBpOVLWlfM75IUydLO1DUzprsvoB1-CO7k6Ab4NA9bsnGK2qAdEvSZC4FCfaA_XOtwj3_CPHf4eCndzPZyHVl9zJPvY0I1lET__5UZa18YLMuM2NDemWwE",
        "ya29.a0_MeBpOVLWlfM75IUydLO1DUzprsvoB1-CO7k6Ab4NA9bsnGK2qAdEvSZC4FCfaA_XOtwj3_CPHf4eCndzPZyHVl9zJPvY0I1lET__5UZa18YLMuM2NDemWwE",
    ),
    (
        "Google OAuth refresh token",
        "refresh 1//05txqqo3WCb97ESKo3R7ZJF2Q7qS5HJ7vsCcRsTlk_cV-tGF362J2J7uErt_8JgzVlU1BnhpfRdVXnXTtc3sIZTAvy9oJ6Ch7RPUn",
        "1//05txqqo3WCb97ESKo3R7ZJF2Q7qS5HJ7vsCcRsTlk_cV-tGF362J2J7uErt_8JgzVlU1BnhpfRdVXnXTtc3sIZTAvy9oJ6Ch7RPUn",
    ),
    (
        "AWS access key ID",
        "aws configure set key AKIAICZQU847P5R6P7AU",
        "AKIAICZQU847P5R6P7AU",
    ),
    (
        "AWS temporary key ID",
        "assumed role with ASIAJOEVH6U7EDK70BMG",
        "ASIAJOEVH6U7EDK70BMG",
    ),
    (
        "AWS secret access key (credentials file)",
        "[default]\naws_access_key_id = AKIAO9643KPVA7UR5J1H\naws_secret_access_key = VEK8NR8+10hlkzwsY+qrEFz/H3d3r+MXIVLEV1CB\nregion = eu-west-1",
        "VEK8NR8+10hlkzwsY+qrEFz/H3d3r+MXIVLEV1CB",
    ),
    (
        "AWS session token",
        "aws_session_token=IQoJb3JpZ2luX2Vj/u2UNa0QL35hcA0A0y5M7/tHKxO1R0hwqSgcoLMx6A5Sbv7tZX+PgqNvu/6EoUkiMWRPHxXYlH/hCdStyA9chWLPCJm7rgo9B1CgzyNyxc1stxduKb9UM0ypwKdHNF5bqlRMRWK24rd0gxYnieMQLWNZgcZgenO7BZbOKQrgsXjwegtPeBuL3rgXSAkbkvJPenywJN3tmDt7pN7Y0VoGzlL7pxeCfR73iPmcoJszMZquKS3VStDolZAwST7PCSdZk2CchKknxiS2IX0FXHKPpHSHXqSv3WZpm6usZcXfTGe5==",
        "IQoJb3JpZ2luX2Vj/u2UNa0QL35hcA0A0y5M7/tHKxO1R0hwqSgcoLMx6A5Sbv7tZX+PgqNvu/6EoUkiMWRPHxXYlH/hCdStyA9chWLPCJm7rgo9B1CgzyNyxc1stxduKb9UM0ypwKdHNF5bqlRMRWK24rd0gxYnieMQLWNZgcZgenO7BZbOKQrgsXjwegtPeBuL3rgXSAkbkvJPenywJN3tmDt7pN7Y0VoGzlL7pxeCfR73iPmcoJszMZquKS3VStDolZAwST7PCSdZk2CchKknxiS2IX0FXHKPpHSHXqSv3WZpm6usZcXfTGe5==",
    ),
    (
        "AWS key pair in a CSV",
        "Access key ID,Secret access key\nAKIA5S1EQ1WQ1NBTIZV9,JUWY7c/2jF/EYwMjsBIM7rIrrw5O8Jyy9ucWV2wM",
        "JUWY7c/2jF/EYwMjsBIM7rIrrw5O8Jyy9ucWV2wM",
    ),
    (
        "AWS STS answer (JSON)",
        "{\"Credentials\": {\"AccessKeyId\": \"ASIADHLIOS82X07LBC6X\", \"SecretAccessKey\": \"pSIqarJKfmks3+9DDkxnU0wOV6sOVWAdvm17WsnU\", \"Expiration\": \"2030-01-01T00:00:00Z\"}}",
        "pSIqarJKfmks3+9DDkxnU0wOV6sOVWAdvm17WsnU",
    ),
    (
        "Stripe live secret key",
        "stripe 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",
        "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",
    ),
    (
        "Stripe test secret key",
        "STRIPE=sk_test_51CmPWFdSZJGmvEI1yJF52ABtUZIOHUnk66hqYqprQN070yBkP7AW5V06eSBMmkio74XKfEoyNQObI77AXG4tqHFhw81xCvqF72",
        "sk_test_51CmPWFdSZJGmvEI1yJF52ABtUZIOHUnk66hqYqprQN070yBkP7AW5V06eSBMmkio74XKfEoyNQObI77AXG4tqHFhw81xCvqF72",
    ),
    (
        "Stripe restricted key",
        "restricted 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",
        "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",
    ),
    (
        "Stripe webhook secret",
        "endpoint secret whsec_59svRjetaUshG4Pvz3tjw1HKSrLz9GIY",
        "whsec_59svRjetaUshG4Pvz3tjw1HKSrLz9GIY",
    ),
    (
        "SendGrid key (second half)",
        "sendgrid 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",
        "yPu2KS4O3sPb4a9ukZjXrmxJrD_ZSHDWBlYQIuubfWb",
    ),
    (
        "Hugging Face token",
        "huggingface-cli login --with hf_VQaKp96iRz98K56aAjmguyYHbwmrlUu34i",
        "hf_VQaKp96iRz98K56aAjmguyYHbwmrlUu34i",
    ),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken=npm_gzWhNlxaSXUy4z78CV8pS3Xlk7c5VHBFwrt5",
        "npm_gzWhNlxaSXUy4z78CV8pS3Xlk7c5VHBFwrt5",
    ),
    (
        "PyPI token",
        "twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcM0uK3MR9_mydKuqg-nJwnI6PS-5znVgzYAfyzcTpX9FU-MuMCXOkYZ_shk5LD7l5yU4PvkrmKpc8n39vCIuyQ6ZtE7pcP9uSgToVbSwSYjpm3FYmoFpcWZdxgxU1gXJm-5G87VJ0tqxP4QMoMqkMgM",
        "pypi-AgEIcHlwaS5vcmcM0uK3MR9_mydKuqg-nJwnI6PS-5znVgzYAfyzcTpX9FU-MuMCXOkYZ_shk5LD7l5yU4PvkrmKpc8n39vCIuyQ6ZtE7pcP9uSgToVbSwSYjpm3FYmoFpcWZdxgxU1gXJm-5G87VJ0tqxP4QMoMqkMgM",
    ),
    (
        "Groq key",
        "groq 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",
        "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",
    ),
    (
        "xAI key",
        "grok xai-EBgCQCUDg43uL17udCUKRu0gCd8JsxRm89K9gs4rXjfPScr76wxHFB3pUgPdS9aSXZkjXINyybUJKmPF",
        "xai-EBgCQCUDg43uL17udCUKRu0gCd8JsxRm89K9gs4rXjfPScr76wxHFB3pUgPdS9aSXZkjXINyybUJKmPF",
    ),
    (
        "Perplexity key",
        "pplx 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",
        "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",
    ),
    (
        "Replicate token",
        "replicate r8_Iyjrgp0ZO2jVoQRnet4Sg5LnhfW6GuiW8UNET",
        "r8_Iyjrgp0ZO2jVoQRnet4Sg5LnhfW6GuiW8UNET",
    ),
    (
        "Tavily key",
        "search 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",
        "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",
    ),
    (
        "DigitalOcean token",
        "doctl auth init -t dop_v1_c27332499280dfb2ffb9e709fc677beccb3c5e06f229777395675097eced68ee",
        "dop_v1_c27332499280dfb2ffb9e709fc677beccb3c5e06f229777395675097eced68ee",
    ),
    (
        "Shopify access token",
        "shop 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",
        "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",
    ),
    (
        "Twilio API key SID",
        "twilio api key SK1fbd8716b8e46a3363c23807f7839074",
        "SK1fbd8716b8e46a3363c23807f7839074",
    ),
    (
        "Twilio auth token",
        "TWILIO_ACCOUNT_SID=AC4fe8b3d5f336db87d829e4537af76ea3\nTWILIO_AUTH_TOKEN=855f9ca80bab49d12990d948089b2c92",
        "855f9ca80bab49d12990d948089b2c92",
    ),
    (
        "Mailgun key",
        "mailgun api:key-b2847aae3feb6f6c3259ff4b1031a6f6",
        "key-b2847aae3feb6f6c3259ff4b1031a6f6",
    ),
    (
        "Mailchimp key",
        "mailchimp 28b99d46fa2d85e9a591b17fbaedd7ad-us21",
        "28b99d46fa2d85e9a591b17fbaedd7ad-us21",
    ),
    (
        "Atlassian API token",
        "jira ATATT3xFfGF0Pjd-duDtTCkIFjvBfTvD5PgMAmJp0A_MdYyLYy_Tn2fKxYo-NwRbzeBZxPTXgHlor1feOfRDdYJuouBdSulpt7GKvU9ER_Lmq9GzQ9RaZRCk7IDJiKS6r5jyT1zr9kFslkYiN0pxtTdQGMYFyZIW2cXoh5sauji_8l2KtXll_63K8TNmjLyJ=65NTVNID",
        "ATATT3xFfGF0Pjd-duDtTCkIFjvBfTvD5PgMAmJp0A_MdYyLYy_Tn2fKxYo-NwRbzeBZxPTXgHlor1feOfRDdYJuouBdSulpt7GKvU9ER_Lmq9GzQ9RaZRCk7IDJiKS6r5jyT1zr9kFslkYiN0pxtTdQGMYFyZIW2cXoh5sauji_8l2KtXll_63K8TNmjLyJ=65NTVNID",
    ),
    (
        "Databricks token",
        "databricks dapi341d59f57296ab85f26ecda5a4544df9",
        "dapi341d59f57296ab85f26ecda5a4544df9",
    ),
    (
        "Doppler token",
        "doppler dp.pt.KOak1aifZ3r6f6Uzf6HKAVUxsrtyklUjvHhsobiQ8EY",
        "dp.pt.KOak1aifZ3r6f6Uzf6HKAVUxsrtyklUjvHhsobiQ8EY",
    ),
    (
        "Linear key",
        "linear lin_api_H8arFdo4CSxrBQHrVD8lRRnScaa8LYKxvhm8LxAM",
        "lin_api_H8arFdo4CSxrBQHrVD8lRRnScaa8LYKxvhm8LxAM",
    ),
    (
        "Notion integration secret",
        "notion secret_hI2WRFmlY7GO26OIADoxZsnUsVXBJ1a9uHflbNBnb9g",
        "secret_hI2WRFmlY7GO26OIADoxZsnUsVXBJ1a9uHflbNBnb9g",
    ),
    (
        "Notion token",
        "notion ntn_H0j3FdVgbxO7WKyHfALPbcwh02oFaBcUueozTuzV1wi5Z4",
        "ntn_H0j3FdVgbxO7WKyHfALPbcwh02oFaBcUueozTuzV1wi5Z4",
    ),
    (
        "Vault token",
        "vault login hvs.O22CywSYqdqY8o8SLQsEx5lZ4Hh4gDQHvci8upQ34xPfMVCVNMhCSvsMFvDuFI9ErHmcLOGwFImDb3WAFdMcUvirn8",
        "hvs.O22CywSYqdqY8o8SLQsEx5lZ4Hh4gDQHvci8upQ34xPfMVCVNMhCSvsMFvDuFI9ErHmcLOGwFImDb3WAFdMcUvirn8",
    ),
    (
        "Postman key",
        "postman PMAK-c40a87a038035f00773104e3-438c523c23cd51d30484d33c52b9d6b037",
        "PMAK-c40a87a038035f00773104e3-438c523c23cd51d30484d33c52b9d6b037",
    ),
    (
        "Heroku key",
        "heroku HRKU-AAoMGdbOt-nNre8ikNV663685bDS24goTHKDcI2GCz1z07LRfwmqIIIZmfMQ",
        "HRKU-AAoMGdbOt-nNre8ikNV663685bDS24goTHKDcI2GCz1z07LRfwmqIIIZmfMQ",
    ),
    (
        "age secret key",
        "# created: 2024-01-01\n# public key: age15ar5stgh0zyrhcgjgw7dsylune8hunedrq5tgy287c869typsxranty0lv\nAGE-SECRET-KEY-1922SHQ260APHE9LN3PH5ZL4EP9JQ2KQ8L46QHMY6RYSRZ04Z8FSH683FR6",
        "AGE-SECRET-KEY-1922SHQ260APHE9LN3PH5ZL4EP9JQ2KQ8L46QHMY6RYSRZ04Z8FSH683FR6",
    ),
    (
        "JSON Web Token",
        "session eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.luf1gYu8-0wwLFdFhWHl75MP20lWAXIlUCfHn2PuiEF",
        "luf1gYu8-0wwLFdFhWHl75MP20lWAXIlUCfHn2PuiEF",
    ),
    (
        "Azure storage AccountKey",
        "DefaultEndpointsProtocol=https;AccountName=devstore;AccountKey=tM6cEVIdXgWHzn5hZXhUtXMI92Zn+2wfp88XpVL6njY/yXvKzpwLoWsYd79dCmE5rS0kwNuwUy4zs7K1APOgxs==;EndpointSuffix=core.windows.net",
        "tM6cEVIdXgWHzn5hZXhUtXMI92Zn+2wfp88XpVL6njY/yXvKzpwLoWsYd79dCmE5rS0kwNuwUy4zs7K1APOgxs==",
    ),
    (
        "Azure SAS signature",
        "https://devstore.blob.core.windows.net/c/report.pdf?sv=2022-11-02&ss=b&srt=co&sp=r&se=2030-01-01T00:00:00Z&sig=oqsbpQ1iaJXZmYdMN23FYp1AbIdR1dQkAejMlQ2D%3D",
        "oqsbpQ1iaJXZmYdMN23FYp1AbIdR1dQkAejMlQ2D%3D",
    ),
    (
        "Azure Service Bus SharedAccessKey",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=l8G1097YDWCEy/v2SFXISo+FGcv1eU5to6QYWiucKGr=",
        "l8G1097YDWCEy/v2SFXISo+FGcv1eU5to6QYWiucKGr=",
    ),
    (
        "Azure SharedAccessSignature",
        "SharedAccessSignature=sr=ns&sig=ogMZg9l6Aif0Ty5o23S8LbCME1p+3NW9&se=1700000000&skn=Root",
        "ogMZg9l6Aif0Ty5o23S8LbCME1p+3NW9",
    ),
    (
        "Azure AD client secret",
        "az login --service-principal -p fC28Q~9M9Whwp1700UV14EbiU4U1IwLgLCWKoeUH",
        "fC28Q~9M9Whwp1700UV14EbiU4U1IwLgLCWKoeUH",
    ),
    (
        "Authorization: Bearer",
        "curl -H \"Authorization: Bearer GQrJ3Mlzf7HxQaB2PV7p_8-19gNunqA_ObL57Zy6\" https://api.example.com",
        "GQrJ3Mlzf7HxQaB2PV7p_8-19gNunqA_ObL57Zy6",
    ),
    (
        "Authorization: Basic",
        "Authorization: Basic dXNlcjpw/6lRzTFaQatY87DcYHVc==",
        "dXNlcjpw/6lRzTFaQatY87DcYHVc==",
    ),
    (
        "Authorization: token",
        "Authorization: token 81b8cf5352bf69a4d2f842b11d05e29084116591",
        "81b8cf5352bf69a4d2f842b11d05e29084116591",
    ),
    (
        "Proxy-Authorization",
        "Proxy-Authorization: Bearer cub0Q6ks_xlJWYmpjMwMcXIurMv4dqGq",
        "cub0Q6ks_xlJWYmpjMwMcXIurMv4dqGq",
    ),
    (
        "Authorization: AWS SigV4 signature",
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIANT53MLOYNTGRUY4G/20240101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=8949cbc3841ba84d5be29c28a74b2904a1b315ec43a0451ee7dcbade6bb38086",
        "8949cbc3841ba84d5be29c28a74b2904a1b315ec43a0451ee7dcbade6bb38086",
    ),
    (
        "Authorization: Digest response",
        "Authorization: Digest username=\"ann\", realm=\"api\", nonce=\"abc\", uri=\"/\", response=\"18d7be8acae63a2e0a58082c8b1d55fa\"",
        "18d7be8acae63a2e0a58082c8b1d55fa",
    ),
    (
        "Cookie header",
        "Cookie: sessionid=ZFWVRy0Chc2aq0NU2VZnNmtK9PcFEnzX; theme=dark",
        "ZFWVRy0Chc2aq0NU2VZnNmtK9PcFEnzX",
    ),
    (
        "Set-Cookie header",
        "Set-Cookie: __Host-session=2k7CTrB_-1wmYMRpoCUY1807ji07oqKJcrYf1xTs; Path=/; Secure; HttpOnly",
        "2k7CTrB_-1wmYMRpoCUY1807ji07oqKJcrYf1xTs",
    ),
    (
        "x-api-key header",
        "x-api-key: 1bb8c7e1ded813633c30630fa12f1d6a2bd471c3",
        "1bb8c7e1ded813633c30630fa12f1d6a2bd471c3",
    ),
    (
        "Ocp-Apim-Subscription-Key header",
        "Ocp-Apim-Subscription-Key: fb313f037a51e86dffe6a81c287c36d5",
        "fb313f037a51e86dffe6a81c287c36d5",
    ),
    (
        "bare Bearer token",
        "sent bearer 2ipk2vMM1stLi1D4jeyKwwqYod2a8uvvBxRHEN68 upstream",
        "2ipk2vMM1stLi1D4jeyKwwqYod2a8uvvBxRHEN68",
    ),
    (
        "password= in a sentence",
        "login with password=Tr0ub4dor3x failed",
        "Tr0ub4dor3x",
    ),
    (
        "quoted password with spaces",
        "password=\"correct horse battery staple\"",
        "correct horse battery staple",
    ),
    (
        "single-quoted passphrase",
        "passphrase: 'lamp orbit 7 velvet'",
        "lamp orbit 7 velvet",
    ),
    (
        "JSON password member",
        "{\"user\": \"ann\", \"password\": \"Zq8!vN2$kL0p\"}",
        "Zq8!vN2$kL0p",
    ),
    (
        "JSON api_key without spaces",
        "{\"api_key\":\"ucNPc2QsWD0qDIb3Sq8ZbC4i7R0FvLYU\",\"model\":\"gpt\"}",
        "ucNPc2QsWD0qDIb3Sq8ZbC4i7R0FvLYU",
    ),
    (
        "JSON-escaped JSON",
        "{\\\"password\\\": \\\"s3cr3t value 9\\\"}",
        "s3cr3t value 9",
    ),
    (
        "YAML password",
        "database:\n  user: app\n  password: hunter2-prod-42\n  host: db",
        "hunter2-prod-42",
    ),
    (
        "ODBC Pwd=",
        "Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd=Sup3rS3cret7;Encrypt=yes",
        "Sup3rS3cret7",
    ),
    (
        "JDBC password parameter",
        "jdbc:mysql://db:3306/app?user=app&password=jdbcPa55word&useSSL=true",
        "jdbcPa55word",
    ),
    (
        "AUTH= assignment",
        "REDIS_HOST=cache\nAUTH=r3d1s-auth-77",
        "r3d1s-auth-77",
    ),
    (
        "secret_key assignment",
        "SECRET_KEY = 'django-insecure-pnRq0D%LDP4hC16Q*RV_e6@#HlD8G*kP1VPC^QgW%49m3r8RK_'",
        "django-insecure-pnRq0D%LDP4hC16Q*RV_e6@#HlD8G*kP1VPC^QgW%49m3r8RK_",
    ),
    (
        "client_secret assignment",
        "client_id=app&client_secret=WwedKmBVlEeEFZnKZMhMZl7wfalC-h6zY7sjwd63&grant_type=client_credentials",
        "WwedKmBVlEeEFZnKZMhMZl7wfalC-h6zY7sjwd63",
    ),
    (
        "private_key assignment",
        "PRIVATE_KEY=0x056f58c3afe208c8ae4775e0d984e629fe54ec58e7ca5ed7aa9b6574356ca758",
        "0x056f58c3afe208c8ae4775e0d984e629fe54ec58e7ca5ed7aa9b6574356ca758",
    ),
    (
        "export of an opaque token",
        "export MY_SERVICE_TOKEN=bk_Xu-63_Rcf-bK_T3KLCP-Zkn1WyA",
        "bk_Xu-63_Rcf-bK_T3KLCP-Zkn1WyA",
    ),
    (
        "password after Cyrillic",
        "пароль password=Zx9qLm2w",
        "Zx9qLm2w",
    ),
    (
        "password key after an umlaut",
        "Ümlaut_password=Qw3rty9zz",
        "Qw3rty9zz",
    ),
    (
        "password key glued to an accented letter",
        "éPASSWORD=Acc3ntPa55",
        "Acc3ntPa55",
    ),
    (
        "--password flag",
        "mysql --password Sup3rFl4gPa55 -h db.internal",
        "Sup3rFl4gPa55",
    ),
    (
        "--token= flag",
        "mcp-server --token=jg0hxeP6HUtG081EyY5vLJRL4O11LP9TfI7V",
        "jg0hxeP6HUtG081EyY5vLJRL4O11LP9TfI7V",
    ),
    (
        "XML password element",
        "<config><user>ann</user><password>Xml$ecret42</password></config>",
        "Xml$ecret42",
    ),
    (
        ".NET appSettings entry",
        "<add key=\"DbPassword\" value=\"N3tC0nfigPa55\"/>",
        "N3tC0nfigPa55",
    ),
    (
        ".netrc password",
        "machine api.example.com login deploy password n3trcP4ss9",
        "n3trcP4ss9",
    ),
    (
        "URL password containing @",
        "git clone https://deploy:p@ss@w0rd@git.example.com/repo.git",
        "p@ss@w0rd",
    ),
    (
        "PostgreSQL URL",
        "DATABASE_URL=postgres://app:s3cr3t-pass@db.internal:5432/app",
        "s3cr3t-pass",
    ),
    (
        "Redis URL without user",
        "REDIS_URL=redis://:r3d1sP4ss@cache:6379/0",
        "r3d1sP4ss",
    ),
    (
        "MongoDB SRV URL",
        "mongodb+srv://admin:M0ng0Pa55w0rd@cluster0.example.net/db",
        "M0ng0Pa55w0rd",
    ),
    (
        "bare token in a URL",
        "https://I8iiAw4Y4FeYfKz3RhJY@github.com/org/repo.git",
        "I8iiAw4Y4FeYfKz3RhJY",
    ),
    (
        "RSA private key",
        "-----BEGIN RSA PRIVATE KEY-----\nd/tyryYFRhjTXio04Bl1wqmKYg8oFMFE4vqC4dFKMRkpUfc9ZdjDhg4aKVVVgyxE\nE82pLZm6uYQstn1MxIm5EfcVzLrMgXeqnt2QOdXv3m4KhWK+Dp65Eq0lkiHc1S0p\niTtQsDOl4LJItY5+sWYKcUepLzj9aIdDoyzk/+4NiHArXtgvNAtuqqlE5C5u0mfj\nsLIFbslDLX4G3eBhGbbaz0ml0BkJy374irOwedav12SVUGlrFW6BZz3kvHwueN1y\nSDBiVVwj/mM3o/+u8UZAhi3Kn/y2a8+9inIrJoO8qZnsxDMl7RNNAH5b+O9gY1/U\niWNCJcCyg9TOrRVGqdRpZn5QohpAtj+GnNhXo6KwUTll+9kcAgHoFpZl5MDcFlgU\n-----END RSA PRIVATE KEY-----",
        "iTtQsDOl4LJItY5+sWYKcUepLzj9aIdDoyzk/+4NiHArXtgvNAtuqqlE5C5u0mfj",
    ),
    (
        "private key without END line",
        "cat id_rsa | head\n-----BEGIN PRIVATE KEY-----\n2FHwTRMNEH4juNkPnpY5ptPj2bmqeMyez7a80Fu5kbYw6WuN5aV/UgALCDpHGB1k\n5bDygVH+GaLKTVU2jSkR74oLbtq62ZeYpiGzh2640IK1pNCFCPlBn5iYiqi3Q/Ho\nbo0xLSymUP0rPlFEEvD+zez3uuNOIjQnbTUx6e94fFzOYzJ//aLP373VKxgqFX/g\nKm3bsvMEdS+jmfUDX14PfCnxidgEcYfoJbwIh2s/dLjZpsWyvcNtmn5+BGhbt+Ef\neURanvzKz1qlDTlfU0YNezKR0LWhrzIS1uiHfAZHM2N33Zvyv8N9YjVYK1G+RtQu\nNh/Pd7raWxuHceMPrRvQ0IM6Psgxre2HFLWEAyM0XnKYowgxLYlS5ktHde1L0+Po",
        "Nh/Pd7raWxuHceMPrRvQ0IM6Psgxre2HFLWEAyM0XnKYowgxLYlS5ktHde1L0+Po",
    ),
    (
        "OpenSSH private key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n6yPeejIE0XCggXh6xYcZ6YBoqHHpfnTXew9bfaEfPbQz9tzNba4PkUrct/onGhMu\nJVDc13Nln/TW3u07WGD29zBrj0kpkT1TaucrjSHTf48uw633+ZvskZ5jjlV+aSC/\nT28xer5o4FMDxP8AJkfoc5T3Ol69zm2McHoPpq60fzA7qd3Uzvq4nX3BKlqFppfi\nkzDzJq5jN/hqvCoCARJdZji5e7/xzJ8upuTBB75ktxIH6/477n6uNYGtmFEZGAPz\nRryhp3u6Ih5Dc8noLfMhX+nWbjKe+ZGm24gY6Fhml67Q2cUcoGHiZekNNvouCzoq\nYsje+QUNphQB/lkxddT1AHGcfqTqHlMc6gqsGrMQNBMDzPGObqtXuTPluMtjEBp4\n-----END OPENSSH PRIVATE KEY-----",
        "kzDzJq5jN/hqvCoCARJdZji5e7/xzJ8upuTBB75ktxIH6/477n6uNYGtmFEZGAPz",
    ),
    (
        "encrypted private key with headers",
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,F08F0F3E968B01F0F704EC18E4379195\n\nHdD7WSdqA1eTTeqwpQpgnlfwJ3GvGw7LuddDPxI7M8DH3o/jahPoRUHcAxOPUFC9\n+Ve3n9sqksPN7IlcpzlLAGb5JI+oxoSqLjmfnCIO+StLGvNMhPe4eDJTqnG9tpON\nF6UH79l0WoErR7JDyUnLKkhzVwlbbcpXrw5Z69lWpT5Zo0ACbA4fDrEEfngm2kpU\n/EILSWZ5hEIydB2XLvz8oSQPgB6mt4FustXrFvwA6Ki8uhK4Br0ffAf0FFodW2yo\n/FDnJpa1qnhZelb3m2eAwkw2l95mi0UoSJmFFrjFo6T6VJ1tU5gCmQyWFdbMo5Ma\nCmeELMBXTeXw4Mw6r/Bldckj8gXwVkC/ESDIDvsOtM8AxgDNHEieDTCzmObfXtTW\n-----END RSA PRIVATE KEY-----",
        "+Ve3n9sqksPN7IlcpzlLAGb5JI+oxoSqLjmfnCIO+StLGvNMhPe4eDJTqnG9tpON",
    ),
    (
        "PGP private key block",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n/rTGlWXuzWh+S+8KYvHmEF7CfcjeIBcjhNjFx7Y06J7D2Fx5VTvboZxIw2+PoC6Z\n9Z8Q8j1F5bnytA6eeVbJfGesG4GLu51yvEj+Of3P7I28lr5yebjRKvpgt7u4R+Pj\n9cVjEw5JNqT+HrSpQi0KMAA2c+0RRIRK6zYayVsooAfEZfub2WvqBvcc47mUdMq+\nLJEZ+zmYXXGFhsELYdk3OFvmRnmpL3fWk7Fm9mqL+lS89+2iTuiUvGWZqB96IoM2\nGSOuuZRaUySvHxV2d6bX8V72hx/Z2UBmM5p8bqOesq+feJqtMVzLiWWbtcwtRKSk\ncuD/RRqg99oZH300ZHYAgZ5OckEyg7mKnLhi8vEAsqk5HyBAesRt2n/rjPlWLDm5\n-----END PGP PRIVATE KEY BLOCK-----",
        "GSOuuZRaUySvHxV2d6bX8V72hx/Z2UBmM5p8bqOesq+feJqtMVzLiWWbtcwtRKSk",
    ),
    (
        "service account JSON (escaped PEM)",
        "{\"type\": \"service_account\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n5GAySU85DEZkakrrYmzeEemV/hpMOMVv+NL9/TdSJRrotM4D6EyGi8nTsJNlhjU2\\nbQjNgnYjwsLjV764Q2FxlWCYJeyJRyXCkljKSdMpattofD/rtNBKXVp1CYKoBl4f\\nImKFI8AeOlqPGObHaDNb44m8IQIWKVo2040598KHuahv2uyptvrg9Py/DhMaQoyU\\n0THgjPD+bB5aGohGE7aXoXEPLXk6pZcPo2vXBvez4vejmfs4WoDlZffLHRKWDUeK\\n-----END PRIVATE KEY-----\\n\", \"client_email\": \"bot@proj.iam.gserviceaccount.com\"}",
        "bQjNgnYjwsLjV764Q2FxlWCYJeyJRyXCkljKSdMpattofD/rtNBKXVp1CYKoBl4f",
    ),
    (
        "sha512crypt hash (shadow)",
        "root:$6$Jd304BTC$HzePhlJAP7vfeR5FwNlxn8MfV4PsRq3OX2zO9hHb2MuQaZ/jUGlWA6KpA8ItPm9DPuLNMeamJRdkzL3evYSK3a:19000:0:99999:7:::",
        "Jd304BTC$HzePhlJAP7vfeR5FwNlxn8MfV4PsRq3OX2zO9hHb2MuQaZ/jUGlWA6KpA8ItPm9DPuLNMeamJRdkzL3evYSK3a",
    ),
    (
        "bcrypt hash",
        "admin:$2b$12$YijiBlTPgyOiBcJWuqTR/WV9HDX5PXZRV/1KJI0k1kajON8VMHnZR",
        "YijiBlTPgyOiBcJWuqTR/WV9HDX5PXZRV/1KJI0k1kajON8VMHnZR",
    ),
    (
        "Sentry token",
        "sentry sntrys_PORT9RAU9XjrBa0NE/EygFYIm288dWKoqn5fIW8dVSQHrPdNJqjImMwVG5qO6bl3FX19iLr0xKIsz1NaKxbtLMrDxby8/ssSRjcoCJD/FtBeShNZfZzTe9rz",
        "sntrys_PORT9RAU9XjrBa0NE/EygFYIm288dWKoqn5fIW8dVSQHrPdNJqjImMwVG5qO6bl3FX19iLr0xKIsz1NaKxbtLMrDxby8/ssSRjcoCJD/FtBeShNZfZzTe9rz",
    ),
    (
        "Grafana service account token",
        "grafana glsa_TbWUVGczbMSNWvosACSI4g9uMW4gFTPn_e9b310f3",
        "glsa_TbWUVGczbMSNWvosACSI4g9uMW4gFTPn_e9b310f3",
    ),
    (
        "New Relic key",
        "newrelic NRAK-I6J5K5ZYVJZ4XUHLBQRCY4IUBFI",
        "NRAK-I6J5K5ZYVJZ4XUHLBQRCY4IUBFI",
    ),
    (
        "Docker Hub token",
        "docker login -u ann --password-stdin <<< dckr_pat_-ZATv4tYBo5KlV-9ULpNSsQ5Eve",
        "dckr_pat_-ZATv4tYBo5KlV-9ULpNSsQ5Eve",
    ),
    (
        "Pulumi token",
        "pulumi pul-00dfd2ae7e394ebc3ee6e7f7da74e44b1e807583",
        "pul-00dfd2ae7e394ebc3ee6e7f7da74e44b1e807583",
    ),
    (
        "Supabase token",
        "supabase sbp_2ed35c063ae1a9fdf86de08fceb7baaae99ac7f6",
        "sbp_2ed35c063ae1a9fdf86de08fceb7baaae99ac7f6",
    ),
    (
        "Figma token",
        "figma figd_0se-PLQoyEwdYUNIjshdYsIZAam00zb__NFGvO_t",
        "figd_0se-PLQoyEwdYUNIjshdYsIZAam00zb__NFGvO_t",
    ),
    (
        "Terraform Cloud token",
        "terraform ZUwmC6y81zz1It.atlasv1.2OXuXIrJPzKSIGxr62ilazb0hd_b-63DIqVxiVkv5yY1FFww0Ht2upw-kVGOpmxEPHe",
        "ZUwmC6y81zz1It.atlasv1.2OXuXIrJPzKSIGxr62ilazb0hd_b-63DIqVxiVkv5yY1FFww0Ht2upw-kVGOpmxEPHe",
    ),
    (
        "Fly.io token",
        "FlyV1 fm2_h9gRH6fB+4fu/QwCjzuc8u/Bey9H6G2Givb9D3ECLcUH5vw91kbUOvkmPnt2c3FIgA8N83j/SqOVof/8Bn7ZkHNqd4/LUH1LfgurMgQMu7yMsNK60bUYYCW2",
        "fm2_h9gRH6fB+4fu/QwCjzuc8u/Bey9H6G2Givb9D3ECLcUH5vw91kbUOvkmPnt2c3FIgA8N83j/SqOVof/8Bn7ZkHNqd4/LUH1LfgurMgQMu7yMsNK60bUYYCW2",
    ),
    (
        "Square access token",
        "square EAAAF0_yVvMVnvLKJi3mmIW_ChFvcpxfA2Wec0CWxNVLb-2kAtMTwOE98TQgz_hl",
        "EAAAF0_yVvMVnvLKJi3mmIW_ChFvcpxfA2Wec0CWxNVLb-2kAtMTwOE98TQgz_hl",
    ),
    (
        "Dropbox token",
        "dropbox sl.B32T2hOmYvYOq52os02J-4_V_-ow3lz5007YD3qrK6WcsNypuwGSyKs-kKrxcdfrAk2d5AvPWq5fa1WWagMZEtDXVKB7oFPRUZjiY04QFwsH_RBMW-Ns7NQ0FlxJK5b9w21",
        "sl.B32T2hOmYvYOq52os02J-4_V_-ow3lz5007YD3qrK6WcsNypuwGSyKs-kKrxcdfrAk2d5AvPWq5fa1WWagMZEtDXVKB7oFPRUZjiY04QFwsH_RBMW-Ns7NQ0FlxJK5b9w21",
    ),
    (
        "LangSmith key",
        "langsmith 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",
        "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",
    ),
    (
        "Cerebras key",
        "cerebras csk-inot1Wcif5OLq9J0FeUoB8khQ7cteY14LvkWNiWLtaUPthLL",
        "csk-inot1Wcif5OLq9J0FeUoB8khQ7cteY14LvkWNiWLtaUPthLL",
    ),
    (
        "Pinecone key",
        "pinecone pcsk_bFn3j7D2FAjdqwlWD2L8cxXueinyeStukRzMZ8UjQYTRhvLME0pxhIw2Klsi",
        "pcsk_bFn3j7D2FAjdqwlWD2L8cxXueinyeStukRzMZ8UjQYTRhvLME0pxhIw2Klsi",
    ),
    (
        "crates.io token",
        "cargo login cio7uHhxfiMaSiDGsLKGigKwgTcMoq5Ppu8",
        "cio7uHhxfiMaSiDGsLKGigKwgTcMoq5Ppu8",
    ),
    (
        "RubyGems key",
        "gem rubygems_a8b82c6cf0f1502c1112b4b640d4a9c31b460be29e2db11b",
        "rubygems_a8b82c6cf0f1502c1112b4b640d4a9c31b460be29e2db11b",
    ),
    (
        "NuGet key",
        "nuget push -k oy27uaygn6w0fhaxoz0ohrqt6ametgypccx5190sljgy4m",
        "oy27uaygn6w0fhaxoz0ohrqt6ametgypccx5190sljgy4m",
    ),
    (
        "Artifactory key",
        "jfrog AKCpgxeSq3pRhcikQssos4HEum3dd7P2rG85mRh1J2Rh6i7sxILB4QfRvNpoOhh6QrLPMFW7a",
        "AKCpgxeSq3pRhcikQssos4HEum3dd7P2rG85mRh1J2Rh6i7sxILB4QfRvNpoOhh6QrLPMFW7a",
    ),
    (
        "Hugging Face org token",
        "org api_org_Y6Tn9lTwri0dEu8F1Dft4VApey7OG5TBA8",
        "api_org_Y6Tn9lTwri0dEu8F1Dft4VApey7OG5TBA8",
    ),
    (
        "Fernet token",
        "encrypted gAAAAA9tja-UNIaxNfiY_hHSp6BcyCK-ayAzC4Ny8R_Rm6BJYxOeqoOXpp0KrGtg6xh79bHhOymSWMA_UznSActJ2HI788Hc1nXPeQp9k7==",
        "gAAAAA9tja-UNIaxNfiY_hHSp6BcyCK-ayAzC4Ny8R_Rm6BJYxOeqoOXpp0KrGtg6xh79bHhOymSWMA_UznSActJ2HI788Hc1nXPeQp9k7==",
    ),
    (
        "BIP32 extended private key",
        "wallet xprv9s21ZrQH143Kt9j1vkG72GtxyzdukEZRot8Xg7AuVXV98M4c54KcTacXsrfGGnmxt2yNV74ndnPKcT7m2AvKkWhwaX6LvPjiuGjGeJbubXp",
        "xprv9s21ZrQH143Kt9j1vkG72GtxyzdukEZRot8Xg7AuVXV98M4c54KcTacXsrfGGnmxt2yNV74ndnPKcT7m2AvKkWhwaX6LvPjiuGjGeJbubXp",
    ),
    (
        "password default after a type annotation",
        "def connect(password: str = \"hunt3r-2-default\"):",
        "hunt3r-2-default",
    ),
    (
        "S3 presigned URL signature",
        "https://bucket.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA160LYABZIT57RBVD%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=d778c938745a5c3fea66c949146300e4d40f4f4f3867db92c520f6e2af8961dc",
        "d778c938745a5c3fea66c949146300e4d40f4f4f3867db92c520f6e2af8961dc",
    ),
    (
        "Kubernetes secret data",
        "apiVersion: v1\nkind: Secret\ndata:\n  db-password: CaxR1ykkO7gbFC8dhjZkNn61\n",
        "CaxR1ykkO7gbFC8dhjZkNn61",
    ),
    (
        "Slack refresh token",
        "refresh xoxe.xoxp-1-Pr3xFAn0Up7xgXJ8u729QcoOQwFChifKfPl1_XX9JaXejHtaiLQI7uWyOzjPVyCka-uu-d_aSMEBFeVdyAZoc6drib-Ky665Kv6FSZBgbIajM1sn93JW5uAT43Iat_ctCywxpr2aBxCr",
        "xoxe.xoxp-1-Pr3xFAn0Up7xgXJ8u729QcoOQwFChifKfPl1_XX9JaXejHtaiLQI7uWyOzjPVyCka-uu-d_aSMEBFeVdyAZoc6drib-Ky665Kv6FSZBgbIajM1sn93JW5uAT43Iat_ctCywxpr2aBxCr",
    ),
    (
        "bare Basic credentials",
        "proxy said: expected basic ZGVwbG95OlMzY3JldFBhc3N3MHJkIQ== for realm",
        "ZGVwbG95OlMzY3JldFBhc3N3MHJkIQ==",
    ),
    (
        "Fireworks key",
        "fireworks fw_M53Zpq1shQzP46kbgxysym5k",
        "fw_M53Zpq1shQzP46kbgxysym5k",
    ),
    (
        "GitLab runner registration token",
        "gitlab-runner register --registration-token GR1348941gRU6UQso3_TJfNH1vmsK",
        "GR1348941gRU6UQso3_TJfNH1vmsK",
    ),
    (
        "Netlify token",
        "netlify nfp_3i9N1SsOX3tjnaGwzjOIQfKO0oBdNvCXzr1P",
        "nfp_3i9N1SsOX3tjnaGwzjOIQfKO0oBdNvCXzr1P",
    ),
    (
        "Render key",
        "render rnd_nINiEDJa7pHXrRyDNoXCyspvKTDRUvJb",
        "rnd_nINiEDJa7pHXrRyDNoXCyspvKTDRUvJb",
    ),
    (
        "PlanetScale token",
        "pscale pscale_tkn_QjBBsF44xQ1yvgs3YlYOFaxq8qBvuQ8FXIOuYVA01Je",
        "pscale_tkn_QjBBsF44xQ1yvgs3YlYOFaxq8qBvuQ8FXIOuYVA01Je",
    ),
    (
        "Meta access token",
        "graph api EAAGtacXvHYB8z7b5X931T7cOWzko7uW3Fb6JIYI7v8tqnynMcqwhr43JLyxpUGPEnJSfgnYcdgHYHhc0JWyVWQmAVkVYs4Gfj1VPvEOqfRi11PA42CvdxyFZbl8JGtjuMrLH2DPgp41XbF69aOaflo6fD",
        "EAAGtacXvHYB8z7b5X931T7cOWzko7uW3Fb6JIYI7v8tqnynMcqwhr43JLyxpUGPEnJSfgnYcdgHYHhc0JWyVWQmAVkVYs4Gfj1VPvEOqfRi11PA42CvdxyFZbl8JGtjuMrLH2DPgp41XbF69aOaflo6fD",
    ),
    // Issue 24's seven classes, two or more rows each.
    (
        "URL key query parameter",
        "GET https://maps.example.com/api/geocode/json?address=Paris&key=Xq7pL2mN9vR4tY8wZ3kB HTTP/1.1",
        "Xq7pL2mN9vR4tY8wZ3kB",
    ),
    (
        "URL api_key query parameter",
        "curl 'https://api.example.com/v2/forecast?city=Oslo&api_key=9f8e7d6c5b4a39281706f5e4d3c2b1a0'",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    (
        "URL SAS sig query parameter",
        "https://acct.blob.core.windows.net/c/file.txt?sv=2022-11-02&ss=b&sig=K8vR2pQ9mX4tL7wN3yZ6bC1dF5gH0jA%3D&se=2026",
        "K8vR2pQ9mX4tL7wN3yZ6bC1dF5gH0jA",
    ),
    (
        "URL access_token query parameter",
        "redirect to https://graph.example.com/me?fields=id&access_token=Q2x5v8N1m4B7c0Z3k6J9h2G5f8D1s4A7#top",
        "Q2x5v8N1m4B7c0Z3k6J9h2G5f8D1s4A7",
    ),
    (
        "URL-encoded password assignment",
        "next=%2Fcallback%3Fpassword%3DTr0ub4dorX9%26user%3Dann",
        "Tr0ub4dorX9",
    ),
    (
        "URL-encoded api_key assignment",
        "state=api_key%3dc4f9a1e7b2d8c3f6a9e0%26format%3Djson",
        "c4f9a1e7b2d8c3f6a9e0",
    ),
    (
        "doubly URL-encoded token assignment",
        "return_to=https%3A%2F%2Fx.example.io%2Fcb%3Ftoken%253DZ9y8X7w6V5u4T3s2 done",
        "Z9y8X7w6V5u4T3s2",
    ),
    (
        "GitHub token glued to a word",
        "remote: invalid credentialsghp_R8sK2mV9xQ4tL7wN3yZ6bC1dF5gH0jA2pE8u",
        "ghp_R8sK2mV9xQ4tL7wN3yZ6bC1dF5gH0jA2pE8u",
    ),
    (
        "OpenAI key glued to a digit",
        "request 42sk-proj-Fh3Jk9Lm2Np5Qr8St1Uv4Wx7Yz0Ab3Cd6Ef9Gh failed",
        "sk-proj-Fh3Jk9Lm2Np5Qr8St1Uv4Wx7Yz0Ab3Cd6Ef9Gh",
    ),
    (
        "AWS key ID glued to a word",
        "userAKIAJ4Q5R6S7T8U9V0W1 denied",
        "AKIAJ4Q5R6S7T8U9V0W1",
    ),
    (
        "YAML literal block password",
        "database:\n  user: app\n  password: |\n    Bl0ckScal4rPa55\n  host: db.internal\n",
        "Bl0ckScal4rPa55",
    ),
    (
        "YAML folded block client secret",
        "oauth:\n  client_secret: >-\n    F0ldedS3cretValue\n    AndItsSecondLine77\nnext: 1\n",
        "AndItsSecondLine77",
    ),
    (
        "YAML block token with its first line",
        "auth_token: |+\n  YmxvY2stdG9rZW4tdmFsdWU9\n",
        "YmxvY2stdG9rZW4tdmFsdWU9",
    ),
    (
        "PEM body with text after its last line",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCB== (truncated by the tool)",
        "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCB==",
    ),
    (
        "PEM body with text after its first line",
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSkdsKbAqhcXjkR1Ne7V3qDMtPJXYmvoAoGCCqGSM49 <- pasted from vault",
        "MHcCAQEEIBkg4LVWM9nuwNSkdsKbAqhcXjkR1Ne7V3qDMtPJXYmvoAoGCCqGSM49",
    ),
    (
        "env _KEY of any vendor",
        "export MAPBOX_KEY=pk9Xy7Wv5Ut3Sr1Qp",
        "pk9Xy7Wv5Ut3Sr1Qp",
    ),
    (
        "env _KEY in a .env file",
        "WEATHERAPI_KEY=\"b7c9d1e3f5a7b9c1d3e5\"\nDEBUG=true",
        "b7c9d1e3f5a7b9c1d3e5",
    ),
    (
        "env _SECRET of any vendor",
        "ACME_WEBHOOK_SECRET=whk8N2m4P6q8R0s2T4u6",
        "whk8N2m4P6q8R0s2T4u6",
    ),
    (
        "env _SECRET in docker run",
        "docker run -e PAYPAL_SECRET=EOd3Kx9Lq2Mw7Nz5Bv8C app",
        "EOd3Kx9Lq2Mw7Nz5Bv8C",
    ),
    (
        "service-account private_key_id",
        "{\"type\": \"service_account\", \"project_id\": \"demo-1\", \"private_key_id\": \"3f1c9a7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a\"}",
        "3f1c9a7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a",
    ),
    (
        "private_key_id in YAML",
        "private_key_id: 9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d",
        "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d",
    ),
];
