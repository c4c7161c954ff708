//! Numbers: the numeric keywords (`minimum`, `maximum`, their exclusive forms, `multipleOf`, the
//! integer `format`s), compared exactly: integers as integers, never through `f64`.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::messages::invalid;
use super::{Checked, Path};

pub(super) fn check_number(
    number: &Number,
    rules: &Map<String, Value>,
    path: &Path<'_>,
    value: &Value,
) -> Checked {
    type Holds = fn(Ordering) -> bool;
    let bounds: [(&str, Holds, &str); 4] = [
        ("minimum", |o| o != Ordering::Less, "at least"),
        ("maximum", |o| o != Ordering::Greater, "at most"),
        (
            "exclusiveMinimum",
            |o| o == Ordering::Greater,
            "greater than",
        ),
        ("exclusiveMaximum", |o| o == Ordering::Less, "less than"),
    ];
    for (keyword, holds, words) in bounds {
        if let Some(limit) = rules.get(keyword).and_then(Value::as_number)
            && !compare(number, limit).is_some_and(holds)
        {
            return Err(invalid(path, format!("{words} {limit}"), value));
        }
    }
    if let Some(step) = rules.get("multipleOf").and_then(Value::as_number)
        && !is_multiple(number, step)
    {
        return Err(invalid(path, format!("a multiple of {step}"), value));
    }
    if let Some(format) = rules.get("format").and_then(Value::as_str)
        && let Some((low, high)) = integer_format_range(format)
        && !within(number, low, high)
    {
        let expected = format!("an integer from {low} to {high} ({format})");
        return Err(invalid(path, expected, value));
    }
    Ok(())
}

pub(super) fn is_integral(number: &Number) -> bool {
    exact(number).is_some() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The range of schemars' integer `format`s; `int`/`uint` are `isize`/`usize`, 64-bit here.
fn integer_format_range(format: &str) -> Option<(i128, i128)> {
    let range = |low: i128, high: i128| Some((low, high));
    match format {
        "int8" => range(i8::MIN.into(), i8::MAX.into()),
        "int16" => range(i16::MIN.into(), i16::MAX.into()),
        "int32" => range(i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => range(i64::MIN.into(), i64::MAX.into()),
        "uint8" => range(0, u8::MAX.into()),
        "uint16" => range(0, u16::MAX.into()),
        "uint32" => range(0, u32::MAX.into()),
        "uint64" | "uint" => range(0, u64::MAX.into()),
        _ => None,
    }
}

fn within(number: &Number, low: i128, high: i128) -> bool {
    match exact(number) {
        Some(integer) => (low..=high).contains(&integer),
        None => number.as_f64().is_some_and(|f| {
            compare_with_float(low, f) != Some(Ordering::Greater)
                && compare_with_float(high, f) != Some(Ordering::Less)
        }),
    }
}

/// `number` as an exact integer, when it is stored as one.
pub(super) fn exact(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// Orders two JSON numbers exactly: no integer goes through `f64`.
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (exact(a), exact(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => compare_with_float(x, b.as_f64()?),
        (None, Some(y)) => compare_with_float(y, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn compare_with_float(x: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    let floor = f.floor();
    // `as` saturates at i128's ends, which no i64/u64 reaches, so the order stays right.
    match x.cmp(&(floor as i128)) {
        Ordering::Equal if f > floor => Some(Ordering::Less),
        other => Some(other),
    }
}

/// `multipleOf`: exact for integers; for fractions within a relative tolerance, since e.g.
/// 0.3 is not a multiple of 0.1 in binary floating point.
fn is_multiple(number: &Number, step: &Number) -> bool {
    if let (Some(x), Some(m)) = (exact(number), exact(step))
        && m > 0
    {
        return x % m == 0;
    }
    match (number.as_f64(), step.as_f64()) {
        (Some(x), Some(m)) if m > 0.0 => {
            let quotient = x / m;
            quotient.is_finite() && (quotient - quotient.round()).abs() < 1e-9
        }
        // A non-positive step is a broken schema: ignore it.
        _ => true,
    }
}
