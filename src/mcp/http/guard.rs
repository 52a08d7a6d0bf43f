//! Who is calling, and from where: the bearer token is matched to a tenant
//! ([`super::tenants::Tenants::find`], constant time), and a browser's `Origin` is checked
//! against DNS rebinding: none is allowed but the loopback origins of a loopback server and the
//! operator's list (`GNAW_MCP_ALLOWED_ORIGINS`). A request without `Origin` (not a browser)
//! passes this check.

use super::request::Request;
use super::settings::Settings;
use super::tenants::Tenants;

/// The caller, or why none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    Tenant(usize),
    /// No `Authorization: Bearer` header.
    Missing,
    /// A token no tenant holds.
    Invalid,
}

/// The tenant of `request`'s bearer token; with no tenants file (`--unauthenticated-loopback`)
/// every caller is the one tenant.
pub fn authenticate(request: &Request, tenants: Option<&Tenants>) -> Caller {
    let Some(tenants) = tenants else {
        return Caller::Tenant(0);
    };
    let Some(value) = request.header("authorization") else {
        return Caller::Missing;
    };
    let Some((scheme, token)) = value.split_once(' ') else {
        return Caller::Missing;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Caller::Missing;
    }
    match tenants.find(token.trim()) {
        Some(i) => Caller::Tenant(i),
        None => Caller::Invalid,
    }
}

/// Whether a request with this `Origin` may be served. Behind a proxy (`GNAW_MCP_PUBLIC_URL`
/// set) the server is not a loopback one whatever address it listens on: loopback origins are
/// then a remote browser's own machine, and pass only if listed; the public URL's own origin
/// passes.
pub fn origin_allowed(origin: Option<&str>, settings: &Settings, loopback: bool) -> bool {
    let Some(origin) = origin else {
        return true;
    };
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if settings.allowed_origins.contains(&origin) {
        return true;
    }
    if let Some(public) = &settings.public_url {
        return public.to_ascii_lowercase() == origin;
    }
    if !loopback {
        return false;
    }
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        rest.split(':').next().unwrap_or_default()
    };
    if host.is_empty() || rest.contains('/') || rest.contains('@') {
        return false;
    }
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_and_listed_origins_pass() {
        let mut s = Settings::default();
        for ok in [
            None,
            Some("http://localhost:3000"),
            Some("http://127.0.0.1"),
            Some("http://[::1]:8752"),
        ] {
            assert!(origin_allowed(ok, &s, true), "{ok:?}");
        }
        for bad in [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "null",
            "http://user@localhost",
            "file://",
        ] {
            assert!(!origin_allowed(Some(bad), &s, true), "{bad}");
        }
        assert!(!origin_allowed(Some("http://localhost:3000"), &s, false));
        s.allowed_origins = vec!["https://app.example.com".into()];
        assert!(origin_allowed(Some("https://APP.example.com/"), &s, false));
        // Behind a proxy: loopback origins are a remote browser's, the public origin passes.
        s.public_url = Some("https://mcp.example.com".into());
        assert!(!origin_allowed(Some("http://localhost:3000"), &s, true));
        assert!(origin_allowed(Some("https://mcp.example.com"), &s, true));
        assert!(origin_allowed(Some("https://app.example.com"), &s, true));
    }
}
