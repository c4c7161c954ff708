//! Compile-time rules on one parameter's `#[arg]` keys taken together, and on the names a
//! provider would refuse: what the macro can know about a schema before any request is sent.
//!
//! Each rule reports to the [`Ctxt`], spanned at the key at fault, so that every mistake of a
//! tool is reported in one build with the other attribute errors. Only literals are judged: a
//! bound written as a constant or an expression is left to the type checker and the runtime.

use proc_macro2::Span;
use syn::{Expr, ExprLit, Lit, LitInt, UnOp};

use crate::attr::ArgAttr;
use crate::check::Ctxt;

/// Checks `attr`'s bounds against each other, its literal `default` against its bounds, and
/// its `pattern` against the regex engine the runtime validates with.
pub fn arg(cx: &Ctxt, attr: &ArgAttr) {
    ordered_counts(
        cx,
        "min_items",
        &attr.min_items,
        "max_items",
        &attr.max_items,
    );
    ordered_counts(
        cx,
        "min_length",
        &attr.min_length,
        "max_length",
        &attr.max_length,
    );
    let minimum = attr.minimum.as_ref().and_then(number);
    let maximum = attr.maximum.as_ref().and_then(number);
    if let (Some(low), Some(high), Some(at)) = (minimum, maximum, attr.minimum.as_ref())
        && low > high
    {
        cx.error_spanned_by(
            at,
            format!(
                "`minimum` ({low}) is above `maximum` ({high}): no value satisfies both; swap \
                 them or fix one"
            ),
        );
    }
    if let Some(default) = &attr.default {
        default_in_bounds(cx, attr, default, minimum, maximum);
    }
    if let Some(pattern) = &attr.pattern
        && let Err(why) = compiles(&pattern.value())
    {
        cx.error_spanned_by(
            pattern,
            format!(
                "`pattern` {:?} does not compile with the regex engine that validates \
                 arguments (the `regex` crate: no look-around, no backreferences): {why}",
                pattern.value()
            ),
        );
    }
}

/// `min > max` for a pair of counts (`min_items`/`max_items`, `min_length`/`max_length`).
fn ordered_counts(
    cx: &Ctxt,
    min_key: &str,
    min: &Option<LitInt>,
    max_key: &str,
    max: &Option<LitInt>,
) {
    let (Some(min), Some(max)) = (min, max) else {
        return;
    };
    let (Ok(low), Ok(high)) = (min.base10_parse::<u64>(), max.base10_parse::<u64>()) else {
        return;
    };
    if low > high {
        cx.error_spanned_by(
            min,
            format!(
                "`{min_key}` ({low}) is above `{max_key}` ({high}): no value satisfies both; \
                 swap them or fix one"
            ),
        );
    }
}

/// A literal `default` the schema's own bounds refuse: the model would be told a default it
/// may not send.
fn default_in_bounds(
    cx: &Ctxt,
    attr: &ArgAttr,
    default: &Expr,
    minimum: Option<f64>,
    maximum: Option<f64>,
) {
    if let Some(value) = number(default) {
        let below = minimum
            .filter(|low| value < *low)
            .map(|low| ("minimum", low));
        let above = maximum
            .filter(|high| value > *high)
            .map(|high| ("maximum", high));
        if let Some((key, bound)) = below.or(above) {
            cx.error_spanned_by(
                default,
                format!(
                    "the default {value} is outside the bounds: `{key}` is {bound}; change the \
                     default or the bound"
                ),
            );
        }
        return;
    }
    let Some(text) = string(default) else {
        return;
    };
    let chars = text.chars().count() as u64;
    let count = |lit: &Option<LitInt>| lit.as_ref().and_then(|l| l.base10_parse::<u64>().ok());
    let short = count(&attr.min_length)
        .filter(|low| chars < *low)
        .map(|low| ("min_length", low));
    let long = count(&attr.max_length)
        .filter(|high| chars > *high)
        .map(|high| ("max_length", high));
    if let Some((key, bound)) = short.or(long) {
        cx.error_spanned_by(
            default,
            format!(
                "the default {text:?} has {chars} characters, outside the bounds: `{key}` is \
                 {bound}; change the default or the bound"
            ),
        );
    }
}

/// The value of a numeric literal, possibly negated or parenthesised.
fn number(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse().ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Float(float),
            ..
        }) => float.base10_parse().ok(),
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => number(&unary.expr).map(|v| -v),
        Expr::Paren(paren) => number(&paren.expr),
        Expr::Group(group) => number(&group.expr),
        _ => None,
    }
}

/// The value of a string literal, bare or as `"…".to_owned()`/`.to_string()`/`String::from`.
fn string(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Some(text.value()),
        Expr::MethodCall(call)
            if call.args.is_empty()
                && ["to_owned", "to_string", "into"]
                    .iter()
                    .any(|name| call.method == name) =>
        {
            string(&call.receiver)
        }
        Expr::Call(call) if call.args.len() == 1 => match &*call.func {
            Expr::Path(path) if path.path.segments.last()?.ident == "from" => {
                string(call.args.first()?)
            }
            _ => None,
        },
        Expr::Paren(paren) => string(&paren.expr),
        Expr::Group(group) => string(&group.expr),
        _ => None,
    }
}

/// Whether `pattern` compiles with the syntax the runtime's `regex` crate accepts.
fn compiles(pattern: &str) -> Result<(), String> {
    match regex_syntax::Parser::new().parse(pattern) {
        Ok(_) => Ok(()),
        Err(regex_syntax::Error::Parse(err)) => Err(err.kind().to_string()),
        Err(regex_syntax::Error::Translate(err)) => Err(err.kind().to_string()),
        Err(err) => Err(err.to_string()),
    }
}

/// A parameter's name as the model sees it: Anthropic refuses property keys outside
/// `^[a-zA-Z0-9_.-]{1,64}$` (the Messages API's `input_schema` validation).
pub fn parameter_name(cx: &Ctxt, name: &str, span: Span) {
    let valid = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if !valid {
        cx.error_at(
            span,
            format!(
                "invalid parameter name {name:?}: Anthropic accepts 1 to 64 characters from \
                 a-z, A-Z, 0-9, '_', '.' and '-'; `rename` it"
            ),
        );
    }
}

/// Gemini's rule on top of the shared one: a function name starts with a letter or `_`.
pub fn tool_name_start(cx: &Ctxt, name: &str, span: Span) {
    if name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'-')
    {
        cx.error_at(
            span,
            format!(
                "invalid tool name {name:?}: Gemini requires a function name to start with a \
                 letter or '_'"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_the_regex_crate_refuses_are_refused() {
        assert!(compiles(r"^[a-z]+\d{2}$").is_ok());
        assert!(compiles(r"\p{Greek}+").is_ok());
        assert!(compiles(r"(?=a)b").is_err(), "look-ahead");
        assert!(compiles(r"(a)\1").is_err(), "backreference");
        assert!(compiles(r"[a-").is_err(), "unclosed class");
    }

    #[test]
    fn literals_are_read_through_negation_and_conversions() {
        let number = |text: &str| number(&syn::parse_str(text).unwrap());
        assert_eq!(number("-2.5"), Some(-2.5));
        assert_eq!(number("(10)"), Some(10.0));
        assert_eq!(number("LIMIT"), None);
        let string = |text: &str| string(&syn::parse_str(text).unwrap());
        assert_eq!(string(r#""en".to_owned()"#).as_deref(), Some("en"));
        assert_eq!(string(r#"String::from("x")"#).as_deref(), Some("x"));
        assert_eq!(string("name()"), None);
    }
}
