//! The realistic shapes: argument types as tools declare them, for schemars to describe.

// Public for the other crates' tests that include this file by `#[path]`.
#![allow(unreachable_pub)]

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(JsonSchema, Deserialize)]
pub struct Primitives {
    /// How many.
    count: u8,
    big: i64,
    size: usize,
    ratio: f64,
    small: f32,
    name: String,
    flag: bool,
}

#[derive(JsonSchema, Deserialize)]
pub struct Optionals {
    /// A nickname.
    nickname: Option<String>,
    age: Option<u32>,
    #[serde(default)]
    retries: u32,
    #[serde(default = "five")]
    limit: u16,
}

fn five() -> u16 {
    5
}

#[derive(JsonSchema, Deserialize)]
pub struct Constrained {
    #[schemars(length(max = 5))]
    tags: Vec<String>,
    #[schemars(length(min = 1, max = 20), regex(pattern = "^[a-z]+$"))]
    slug: String,
    #[schemars(range(min = 1, max = 10))]
    level: i32,
}

#[derive(JsonSchema, Deserialize)]
pub struct Address {
    street: String,
    city: String,
}

#[derive(JsonSchema, Deserialize)]
pub struct Nested {
    /// Home address.
    home: Address,
    /// Work address, if any.
    work: Option<Address>,
    other: Option<Address>,
}

#[derive(JsonSchema, Deserialize)]
pub enum Color {
    Red,
    Green,
    Blue,
}

#[derive(JsonSchema, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

#[derive(JsonSchema, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

#[derive(JsonSchema, Deserialize)]
pub struct Enums {
    color: Color,
    unit: Option<Unit>,
    shape: Shape,
}

#[derive(JsonSchema, Deserialize)]
pub struct Tree {
    value: i32,
    /// Sub trees.
    children: Vec<Tree>,
}

#[derive(JsonSchema, Deserialize)]
pub struct Forest {
    root: Tree,
    maybe: Option<Box<Tree>>,
}

#[derive(JsonSchema, Deserialize)]
pub struct Maps {
    counts: HashMap<String, u32>,
    labels: Option<HashMap<String, Address>>,
}

#[derive(JsonSchema, Deserialize)]
pub struct NoArgs {}

#[derive(JsonSchema, Deserialize)]
pub struct Misc {
    pair: (i32, String),
    n: Option<u8>,
    colors: Option<Vec<Color>>,
}
