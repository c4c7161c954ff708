//! Availability: whether a tool can run here, and why not.
//!
//! A tool is available when its check function returns true and every `requires_env`
//! variable is set (Hermes only displays `requires_env`; here it is enforced). A check that
//! panics means unavailable.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::tool::Tool;

/// Why a tool is unavailable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// Its check function returned false.
    CheckFailed,
    /// Its check function panicked.
    CheckPanicked,
    /// A required environment variable is not set.
    MissingEnv(String),
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::CheckFailed => f.write_str("check failed"),
            Unavailable::CheckPanicked => f.write_str("check panicked"),
            Unavailable::MissingEnv(var) => write!(f, "missing env {var}"),
        }
    }
}

/// Runs `tool`'s availability rules now (no caching).
pub fn check(tool: &Tool) -> Result<(), Unavailable> {
    if let Some(var) = tool
        .requires_env()
        .iter()
        .find(|var| std::env::var_os(var.as_str()).is_none_or(|v| v.is_empty()))
    {
        return Err(Unavailable::MissingEnv(var.clone()));
    }
    match tool.check() {
        None => Ok(()),
        Some(check) => match catch_unwind(AssertUnwindSafe(|| check())) {
            Ok(true) => Ok(()),
            Ok(false) => Err(Unavailable::CheckFailed),
            Err(_) => Err(Unavailable::CheckPanicked),
        },
    }
}
