//! Sensitive files: files whose whole purpose is to hold credentials (`.env`, private keys,
//! password databases, cloud credential stores), which are left out of a prompt by default
//! whatever their content scans as. Some (`.npmrc`, `.pypirc`, `.netrc`, `.docker/config.json`,
//! kubeconfig, service-account JSON) only count when their content holds a credential.

/// Why `rel_path` is a sensitive file, or None. `rel_path` uses `/` separators.
///
/// Rules that depend on content return None when `content` is None: call again with the bytes
/// once they are read. Dotenv templates (`.env.example`, `.env.sample`, `.env.template`,
/// `.env.dist`, `.env.defaults`) are not sensitive files: they are meant to be committed and
/// hold placeholders; their content is still scanned like any other text.
pub fn sensitive_file(rel_path: &str, content: Option<&[u8]>) -> Option<&'static str> {
    let name = rel_path.rsplit('/').next().unwrap_or(rel_path);
    let parent = rel_path
        .rsplit('/')
        .nth(1)
        .filter(|_| rel_path.contains('/'))
        .unwrap_or("");
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);

    if name == ".env" || name.starts_with(".env.") && !is_env_template(name) {
        return Some("dotenv file");
    }
    if ext == "pem" {
        return Some("PEM file (private key or certificate)");
    }
    if ext == "key" {
        return Some("private key file");
    }
    if ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        return Some("SSH key file");
    }
    if matches!(ext, "p12" | "pfx") {
        return Some("PKCS#12 key store");
    }
    if matches!(ext, "kdbx" | "kdb") {
        return Some("KeePass password database");
    }
    if name == ".git-credentials" {
        return Some("git credential store");
    }
    if name == ".pgpass" {
        return Some("PostgreSQL password file");
    }
    if parent == ".aws" && name == "credentials" {
        return Some("AWS credentials file");
    }
    if rel_path.contains(".config/gcloud/")
        && matches!(
            name,
            "credentials.db"
                | "access_tokens.db"
                | "adc.json"
                | "application_default_credentials.json"
        )
        || name == "application_default_credentials.json"
        || rel_path.contains("gcloud/legacy_credentials/")
    {
        return Some("Google Cloud credentials file");
    }
    if parent == ".azure"
        && matches!(
            name,
            "accessTokens.json"
                | "msal_token_cache.json"
                | "msal_token_cache.bin"
                | "service_principal_entries.json"
        )
    {
        return Some("Azure CLI credentials file");
    }

    // Only these names depend on content; other files are not decoded here at all.
    let by_content = matches!(name, ".npmrc" | ".pypirc" | ".netrc" | "_netrc")
        || (name == "config.json" && parent == ".docker")
        || (name == "config" && parent == ".kube")
        || ext == "json";
    if !by_content {
        return None;
    }
    let text = String::from_utf8_lossy(content?);
    match name {
        ".npmrc" if npmrc_has_credentials(&text) => Some("credentials in .npmrc"),
        ".pypirc" if ini_has_password(&text) => Some("credentials in .pypirc"),
        ".netrc" | "_netrc" if netrc_has_password(&text) => Some("credentials in .netrc"),
        "config.json" if parent == ".docker" && text.contains("\"auth\"") => {
            Some("Docker registry credentials")
        }
        "config" if parent == ".kube" && kubeconfig_has_credentials(&text) => {
            Some("kubeconfig with credentials")
        }
        _ if ext == "json"
            && text.contains("\"private_key\"")
            && text.contains("service_account") =>
        {
            Some("Google service account key")
        }
        _ => None,
    }
}

fn is_env_template(name: &str) -> bool {
    let suffix = &name[".env.".len()..];
    matches!(
        suffix,
        "example" | "sample" | "template" | "dist" | "defaults" | "tmpl" | "schema"
    )
}

/// A value that is really there, not a variable reference like `${NPM_TOKEN}` that npm and pip
/// fill in from the environment.
fn is_literal_value(v: &str) -> bool {
    let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
    !v.is_empty() && !v.starts_with('$')
}

/// `_authToken`, `_auth` or `_password` with a literal value, globally or per registry
/// (`//registry.npmjs.org/:_authToken=...`).
fn npmrc_has_credentials(text: &str) -> bool {
    text.lines().any(|line| {
        let Some((key, value)) = line.split_once('=') else {
            return false;
        };
        let key = key.trim();
        let key = key.rsplit(':').next().unwrap_or(key);
        matches!(key, "_authToken" | "_auth" | "_password") && is_literal_value(value)
    })
}

fn ini_has_password(text: &str) -> bool {
    text.lines().any(|line| {
        line.split_once(['=', ':'])
            .is_some_and(|(k, v)| k.trim().eq_ignore_ascii_case("password") && is_literal_value(v))
    })
}

/// netrc is a stream of tokens: `machine h login u password p`, on one line or many.
fn netrc_has_password(text: &str) -> bool {
    let mut tokens = text.split_whitespace();
    while let Some(t) = tokens.next() {
        if t == "password" && tokens.next().is_some_and(is_literal_value) {
            return true;
        }
    }
    false
}

fn kubeconfig_has_credentials(text: &str) -> bool {
    text.lines().any(|line| {
        line.split_once(':').is_some_and(|(k, v)| {
            matches!(k.trim(), "token" | "client-key-data" | "password") && is_literal_value(v)
        })
    })
}
