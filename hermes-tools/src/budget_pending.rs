//! Temporary until budget.rs lands.
#![allow(missing_docs, dead_code)]
use std::path::{Path, PathBuf};
pub struct Spill {
    dir: PathBuf,
}
impl Spill {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
        }
    }
}
pub struct Cut;
pub struct Budgeted {
    pub text: String,
    pub cut: Option<Cut>,
}
#[derive(Debug)]
pub struct TurnBudget;
impl TurnBudget {
    pub fn fit(&self, _t: &str, a: &str, _m: usize, _s: Option<&Spill>) -> Budgeted {
        Budgeted {
            text: a.to_owned(),
            cut: None,
        }
    }
}
pub fn fit(_t: &str, a: &str, _m: usize, _s: Option<&Spill>) -> Budgeted {
    Budgeted {
        text: a.to_owned(),
        cut: None,
    }
}
